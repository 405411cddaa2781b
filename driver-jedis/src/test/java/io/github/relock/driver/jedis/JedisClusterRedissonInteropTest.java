package io.github.relock.driver.jedis;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;
import redis.clients.jedis.UnifiedJedis;

/** Runs the Redisson interop chapter against the Jedis driver on a 3-master, 3-replica Redis Cluster. */
class JedisClusterRedissonInteropTest extends JedisRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return JedisTopologies.client(topology);
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((UnifiedJedis) nativeClient).close();
    }
}
