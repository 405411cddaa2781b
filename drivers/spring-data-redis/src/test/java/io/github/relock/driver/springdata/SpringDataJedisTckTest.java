package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.redisson.RedissonDriverTck;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;

/**
 * Runs the driver contract kit and the Redisson interop rules where the driver matters
 * ({@link RedissonDriverTck}) against the driver over a standalone {@code JedisConnectionFactory}
 * ({@link Factories}); the cluster and Sentinel subclasses change only the topology. The
 * engine spec and the whole interop chapter run on the reference driver (Jedis) in the default
 * build, and here in {@code -Pfull} ({@link SpringDataJedisEngineSpecTest},
 * {@link SpringDataJedisRedissonInteropTest}).
 */
class SpringDataJedisTckTest extends RedissonDriverTck {

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

    @Override
    protected void closeNativeClient(Object factory) {
        Factories.dispose(factory);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        return Factories.loggedIn(true, topology, user, password);
    }

    @Override
    protected AutoCloseable exhaustPool(Object factory, String key) {
        return Factories.exhaust(factory, key, topology());
    }

    @Override
    protected boolean restartNativeClient(Object factory) {
        Factories.restart(factory);
        return true;
    }
}
