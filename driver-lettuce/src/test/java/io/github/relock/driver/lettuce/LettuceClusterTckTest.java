package io.github.relock.driver.lettuce;

import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.RedisTopology;
import io.lettuce.core.AbstractRedisClient;

/** Runs the whole relock TCK against the Lettuce driver on a 3-master, 3-replica Redis Cluster. */
class LettuceClusterTckTest extends LettuceTckTest {

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
