package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.redisson.RedissonDriverTck;
import io.lettuce.core.AbstractRedisClient;

/**
 * Runs the driver contract kit and the Redisson interop rules where the driver matters
 * ({@link RedissonDriverTck}) against the Lettuce driver on every topology: a standalone
 * {@code RedisClient}, a {@code RedisClusterClient} and a Sentinel-managed {@code RedisClient}
 * ({@link LettuceTopologies#client}). The engine spec runs once per topology on the reference
 * driver (Jedis); {@code -Pfull} runs it here too ({@link LettuceEngineSpecTest}), and the whole
 * interop chapter ({@link LettuceRedissonInteropTest}).
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class LettuceTckTest extends RedissonDriverTck {

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

    /** Lettuce multiplexes one connection: there is no pool to exhaust, and {@code exhaustPool} stays null. */
    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        return LettuceTopologies.clientAs(topology, user, password);
    }
}
