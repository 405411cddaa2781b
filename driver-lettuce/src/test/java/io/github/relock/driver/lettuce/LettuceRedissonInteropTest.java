package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.redisson.RedissonTck;
import io.lettuce.core.AbstractRedisClient;

/**
 * Runs the kit's whole Redisson interop chapter (lock-tck-redisson) against the Lettuce driver on
 * every topology: only in {@code -Pfull}. The default build
 * runs the rules where the driver matters in {@link LettuceTckTest} and the whole chapter on the
 * reference driver (Jedis).
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class LettuceRedissonInteropTest extends RedissonTck {

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
