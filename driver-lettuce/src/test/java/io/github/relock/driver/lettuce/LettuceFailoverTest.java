package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.FailoverKit;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.AbstractRedisClient;

/** Runs the kit's failover chapter against the Lettuce driver on a cluster and under Sentinel. */
class LettuceFailoverTest extends FailoverKit {

    @Override
    protected RedisDriverProvider provider() {
        return new LettuceDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return LettuceTopologies.client(server);
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
