package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisServer;
import java.time.Duration;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Builds and disposes the application-side factories the tests hand to the driver. */
final class Factories {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private Factories() {
    }

    /** @return a started {@link LettuceConnectionFactory} on the server (Spring's defaults) */
    static LettuceConnectionFactory lettuce(RedisServer server) {
        LettuceConnectionFactory f = new LettuceConnectionFactory(standalone(server)); // Spring's defaults
        f.afterPropertiesSet();
        return f;
    }

    /** @return a started, pooled {@link JedisConnectionFactory} on the server (Spring's defaults) */
    static JedisConnectionFactory jedis(RedisServer server) {
        // timeouts as an application would set them (with Spring's 60 s the stopped-server chapters
        // wait a minute each)
        JedisClientConfiguration cfg = JedisClientConfiguration.builder()
                .connectTimeout(CONNECT_TIMEOUT).readTimeout(TIMEOUT).usePooling().build();
        JedisConnectionFactory f = new JedisConnectionFactory(standalone(server), cfg);
        f.afterPropertiesSet();
        f.start();
        return f;
    }

    /** Stops a factory the way the application context would. */
    static void dispose(Object factory) {
        try {
            ((DisposableBean) factory).destroy();
        } catch (Exception e) {
            throw new IllegalStateException("could not dispose " + factory, e);
        }
    }

    private static RedisStandaloneConfiguration standalone(RedisServer server) {
        return new RedisStandaloneConfiguration(server.host(), server.port());
    }
}
