package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisTopology;

/**
 * Runs the whole relock kit against the driver over a {@code JedisConnectionFactory}
 * on a Sentinel-managed primary with two replicas
 * (a factory from {@code RedisSentinelConfiguration}).
 */
class SpringDataJedisSentinelTckTest extends SpringDataJedisTckTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.jedis(topology);
    }
}
