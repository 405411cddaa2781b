package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.redisson.RedissonDriverTck;
import io.lettuce.core.AbstractRedisClient;

/**
 * Runs the driver contract kit and the Redisson interop rules where the driver matters
 * ({@link RedissonDriverTck}) against the Lettuce driver on a standalone {@code RedisClient}; the
 * subclasses change only the topology. The engine spec runs once per topology on the reference
 * driver (Jedis); {@code -Pfull} runs it here too ({@link LettuceEngineSpecTest}), and the whole
 * interop chapter ({@link LettuceRedissonInteropTest}).
 */
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
