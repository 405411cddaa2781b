package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisServer;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Builds and disposes the application-side factories the tests hand to the driver. */
final class Factories {

    private Factories() {
    }

    /** @return a started {@link LettuceConnectionFactory} on the server (Spring's defaults) */
    static LettuceConnectionFactory lettuce(RedisServer server) {
        LettuceConnectionFactory f = new LettuceConnectionFactory(standalone(server));
        f.afterPropertiesSet();
        return f;
    }

    /** @return a started, pooled {@link JedisConnectionFactory} on the server (Spring's defaults) */
    static JedisConnectionFactory jedis(RedisServer server) {
        JedisConnectionFactory f = new JedisConnectionFactory(standalone(server));
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
