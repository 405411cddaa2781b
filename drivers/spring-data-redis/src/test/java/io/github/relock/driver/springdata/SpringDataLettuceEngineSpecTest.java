package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.redisson.RedissonEngineSpec;

/**
 * The engine spec and the whole Redisson interop chapter ({@link RedissonEngineSpec}: what does not
 * depend on the driver) against the driver over a {@code LettuceConnectionFactory}, on every topology. Only in
 * {@code -Pfull}: the default build runs them once per topology on the reference driver (Jedis),
 * and the interop rules where the driver matters in the {@code SpringData*TckTest} classes.
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class SpringDataLettuceEngineSpecTest extends RedissonEngineSpec {

    @Override
    protected RedisDriverProvider provider() {
        return new SpringDataDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return Factories.lettuce(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.lettuce(topology);
    }

    @Override
    protected void closeNativeClient(Object factory) {
        Factories.dispose(factory);
    }
}
