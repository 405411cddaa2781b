package io.github.relock.driver.lettuce;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.AbstractRedisClient;

/** Runs the Redisson interop chapter against the Lettuce driver on a Sentinel-managed primary with two replicas ({@code -Pfull}). */
class LettuceSentinelRedissonInteropTest extends LettuceRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return LettuceTopologies.client(topology);
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((AbstractRedisClient) nativeClient).shutdown();
    }
}
