package io.github.relock.driver.lettuce;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.AbstractRedisClient;

/** Runs the Redisson interop chapter against the Lettuce driver on a 3-master, 3-replica Redis Cluster ({@code -Pfull}). */
class LettuceClusterRedissonInteropTest extends LettuceRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
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
