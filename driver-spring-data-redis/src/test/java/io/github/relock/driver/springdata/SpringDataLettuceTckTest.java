package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RelockTck;

/**
 * Runs the whole relock kit against the driver over a standalone {@code LettuceConnectionFactory}.
 *
 * <p>In the default build: the standalone kit on each backing client is the driver's main
 * evidence (about 3 minutes here: with Spring's default 60 s command timeout, the RedLock rule
 * with stopped servers waits a minute); the Sentinel and cluster subclasses run in the
 * {@code spring-data-kit} profile.
 */
class SpringDataLettuceTckTest extends RelockTck {

    @Override
    protected Object newNativeClient(RedisServer server) {
        return Factories.lettuce(server);
    }

    @Override
    protected void closeNativeClient(Object factory) {
        Factories.dispose(factory);
    }

    @Override
    protected RedisDriverProvider provider() {
        return new SpringDataDriverProvider();
    }
}
