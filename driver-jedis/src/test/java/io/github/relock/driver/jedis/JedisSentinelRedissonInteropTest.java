package io.github.relock.driver.jedis;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;
import redis.clients.jedis.UnifiedJedis;

/** Runs the Redisson interop chapter against the Jedis driver on a Sentinel-managed primary with two replicas. */
class JedisSentinelRedissonInteropTest extends JedisRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
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
