package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.redisson.RedissonEngineSpec;
import io.lettuce.core.AbstractRedisClient;

/**
 * The engine spec and the whole Redisson interop chapter ({@link RedissonEngineSpec}: what does not
 * depend on the driver) against the Lettuce driver on every topology. Only in {@code -Pfull}: the
 * default build runs them once per topology on the reference driver (Jedis), and the interop
 * rules where the driver matters in {@link LettuceTckTest}.
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class LettuceEngineSpecTest extends RedissonEngineSpec {

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
