package io.github.relock.driver.springdata;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import java.net.URI;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * relock's driver for Spring Data Redis 4: accepts an application's
 * {@link RedisConnectionFactory} ({@code LettuceConnectionFactory} or {@code JedisConnectionFactory};
 * standalone, Sentinel or cluster, as the factory is configured), and never opens connections from a URI ({@link #supportsUri} is false), so
 * {@code RedisLocks.connect(uri)} never picks it. Found through {@link java.util.ServiceLoader}
 * under the name {@code "spring-data-redis"}.
 *
 * <p>Each executor borrows a factory connection per script, holds one pub/sub connection while
 * anything is subscribed, and runs the daemon threads {@code relock-sdr-pubsub},
 * {@code relock-sdr-pubsub-reader} and (Jedis) {@code relock-sdr-async-N}; all end on
 * {@link CommandExecutor#close()}, which never closes the factory.
 *
 * <p>Thread-safety: stateless; safe for use by several threads.
 */
public final class SpringDataDriverProvider implements RedisDriverProvider {

    private static final String LETTUCE_FACTORY =
            "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";
    private static final String JEDIS_FACTORY =
            "org.springframework.data.redis.connection.jedis.JedisConnectionFactory";

    /** Creates the provider ({@link java.util.ServiceLoader} does this). */
    public SpringDataDriverProvider() {
    }

    @Override
    public boolean supports(Object nativeClient) {
        return nativeClient instanceof RedisConnectionFactory;
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        RedisConnectionFactory factory = asFactory(nativeClient);
        Objects.requireNonNull(options, "options must not be null");
        boolean lettuce = isA(factory.getClass(), LETTUCE_FACTORY);
        boolean cluster = lettuce ? LettuceScriptCalls.isCluster(factory)
                : isA(factory.getClass(), JEDIS_FACTORY) && JedisClusterScripts.isCluster(factory);
        ScriptCalls scripts = lettuce
                ? new LettuceScriptCalls(factory, options.commandTimeout())
                : new GenericScriptCalls(factory, cluster);
        LettuceShardedPubSub sharded = lettuce && cluster
                ? new LettuceShardedPubSub(factory, options.commandTimeout()) : null;
        // Jedis' classes are loaded only for a Jedis-backed factory
        return new SpringDataCommandExecutor(factory, scripts, lettuce ? null : new JedisPubSubTransport(factory),
                cluster, sharded, options);
    }

    private static RedisConnectionFactory asFactory(Object candidate) {
        if (candidate instanceof RedisConnectionFactory factory) {
            return factory;
        }
        String got = candidate == null ? "null" : candidate.getClass().getName();
        throw new IllegalArgumentException("the spring-data-redis driver accepts an "
                + "org.springframework.data.redis.connection.RedisConnectionFactory "
                + "(LettuceConnectionFactory, JedisConnectionFactory), not " + got);
    }

    /** Never: this driver only wraps factories the application configured. */
    @Override
    public boolean supportsUri(URI uri) {
        return false;
    }

    @Override
    public CommandExecutor connect(URI uri, DriverOptions options) {
        Objects.requireNonNull(uri, "uri must not be null");
        throw new IllegalArgumentException("the spring-data-redis driver does not open connections from a URI ("
                + uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + "); pass the application's RedisConnectionFactory to RedisLocks.create instead");
    }

    /**
     * By name, so a Jedis-only application never loads a class that refers to Lettuce (nor a
     * Lettuce-only one a class that refers to Jedis).
     */
    private static boolean isA(Class<?> type, String factoryClass) {
        for (Class<?> t = type; t != null; t = t.getSuperclass()) {
            if (t.getName().equals(factoryClass)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String name() {
        return "spring-data-redis";
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public String toString() {
        return "SpringDataDriverProvider[spring-data-redis, spi " + SPI_VERSION + "]";
    }
}
