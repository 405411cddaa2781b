package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RelockTck;

/**
 * Runs the whole relock kit against the driver over a standalone {@code LettuceConnectionFactory}.
 *
 * <p>In the default build: the standalone kit on each backing client is the driver's main
 * evidence (about 2 minutes; its factory's command timeout is 5 s, as an application would set
 * it, so the RedLock rule with stopped servers does not wait out Spring's default 60 s); the
 * Sentinel and cluster subclasses run in the {@code spring-data-kit} profile.
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
