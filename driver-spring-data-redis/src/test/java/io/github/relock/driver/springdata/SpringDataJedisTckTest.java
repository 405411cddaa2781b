package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RelockTck;

/**
 * Runs the whole relock kit against the driver over a standalone, pooled {@code JedisConnectionFactory}.
 *
 * <p>In the default build: the standalone kit on each backing client is the driver's main
 * evidence (about 2 minutes); the Sentinel and cluster subclasses run in the
 * {@code spring-data-kit} profile.
 */
class SpringDataJedisTckTest extends RelockTck {

    @Override
    protected void closeNativeClient(Object factory) {
        Factories.dispose(factory);
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return Factories.jedis(server);
    }

    @Override
    protected RedisDriverProvider provider() {
        return new SpringDataDriverProvider();
    }
}
