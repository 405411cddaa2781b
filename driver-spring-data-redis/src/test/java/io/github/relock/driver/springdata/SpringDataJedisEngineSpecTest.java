package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.EngineSpec;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;

/**
 * The engine spec against the driver over a standalone {@code JedisConnectionFactory}, on every topology. Only in {@code -Pfull}: the engine does not depend on the
 * client, and the default build runs it once per topology on the reference driver (Jedis).
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class SpringDataJedisEngineSpecTest extends EngineSpec {

    @Override
    protected RedisDriverProvider provider() {
        return new SpringDataDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return Factories.jedis(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.jedis(topology);
    }

    /** The wider bound on the cluster that {@link SpringDataJedisTckTest} explains. */
    @Override
    public Duration livenessBound() {
        return SpringDataJedisTckTest.livenessBound(topology());
    }

    @Override
    protected void closeNativeClient(Object factory) {
        Factories.dispose(factory);
    }
}
