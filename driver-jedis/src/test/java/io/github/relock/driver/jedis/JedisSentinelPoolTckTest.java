package io.github.relock.driver.jedis;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.JedisSentinelPool;

/**
 * Runs the driver contract kit against the Jedis driver on a classic {@link JedisSentinelPool} (what Spring
 * Data Redis' {@code JedisConnectionFactory} holds with a sentinel configuration), API every Jedis
 * from 6.0 to 8.x has. Only the {@code jedis-*} version profiles run it; the default build covers
 * Sentinel with {@link JedisSentinelTckTest} and the pool with {@link JedisPoolTckTest}.
 */
class JedisSentinelPoolTckTest extends JedisSentinelTckTest {

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        Set<String> sentinels = ((RedisSentinelGroup) topology).sentinels().stream()
                .map(s -> s.host() + ":" + s.port()).collect(Collectors.toSet());
        return new JedisSentinelPool(RedisSentinelGroup.MASTER_NAME, sentinels);
    }
}
