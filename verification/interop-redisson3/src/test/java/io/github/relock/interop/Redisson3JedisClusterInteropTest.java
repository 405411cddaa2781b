package io.github.relock.interop;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/** The kit's Redisson interop chapter on a 3-master, 3-replica cluster: relock on Jedis against Redisson 3.17.7. */
class Redisson3JedisClusterInteropTest extends Redisson3JedisInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return RedisClusterClient.create(((RedisCluster) topology).uris().stream()
                .map(u -> new HostAndPort(u.getHost(), u.getPort())).collect(Collectors.toSet()));
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((UnifiedJedis) nativeClient).close();
    }
}
