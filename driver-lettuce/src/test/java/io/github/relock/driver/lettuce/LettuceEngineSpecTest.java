package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.EngineSpec;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.AbstractRedisClient;

/**
 * The engine spec against the Lettuce driver on every topology. Only in {@code -Pfull}: the engine
 * does not depend on the client, and the default build runs it once per topology on the reference
 * driver (Jedis).
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class LettuceEngineSpecTest extends EngineSpec {

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
