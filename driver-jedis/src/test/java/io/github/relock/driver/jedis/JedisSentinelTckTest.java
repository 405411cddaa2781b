package io.github.relock.driver.jedis;

import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisTopology;

/** Runs the whole relock TCK against the Jedis driver on a Sentinel-managed primary with two replicas. */
class JedisSentinelTckTest extends JedisTckTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return JedisTopologies.client(topology);
    }
}
