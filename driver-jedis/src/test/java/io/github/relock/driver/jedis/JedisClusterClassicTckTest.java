package io.github.relock.driver.jedis;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * Runs the relock TCK against the Jedis driver on a {@link JedisCluster}, the cluster client every
 * Jedis from 6.0 to 8.x has ({@code RedisClusterClient} came with 7, see
 * {@link JedisClusterTckTest}). Only the {@code jedis-*} version profiles run it; the default build
 * covers the cluster with {@link JedisClusterTckTest}.
 */
class JedisClusterClassicTckTest extends JedisClusterTckTest {

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        Set<HostAndPort> seeds = ((RedisCluster) topology).uris().stream()
                .map(u -> new HostAndPort(u.getHost(), u.getPort())).collect(Collectors.toSet());
        return new JedisCluster(seeds);
    }
}
