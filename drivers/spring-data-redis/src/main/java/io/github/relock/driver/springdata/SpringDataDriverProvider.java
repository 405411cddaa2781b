package io.github.relock.driver.springdata;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import java.net.URI;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * relock's driver for Spring Data Redis 4: accepts an application's {@link RedisConnectionFactory}
 * ({@code LettuceConnectionFactory} or {@code JedisConnectionFactory}; standalone, Sentinel or
 * cluster, as configured) and never opens connections from a URI, so {@code RedisLocks.connect(uri)}
 * never picks it. Found through {@link java.util.ServiceLoader} as {@code "spring-data-redis"}.
 *
 * <p>Threads, all ended by {@link CommandExecutor#close()} (which never closes the factory):
 * {@code relock-sdr-pubsub} (Jedis pub/sub reader), {@code relock-sdr-pubsub-connect} (short-lived,
 * opens Lettuce's pub/sub connection), core's {@code relock-pubsub-timer} and
 * {@code relock-sdr-async-N} (Jedis scripts). Lettuce pub/sub needs a client with one endpoint:
 * on a static master/replica configuration a subscribe fails with an {@link IllegalStateException}.
 *
 * <p>Thread-safety: stateless; safe for use by several threads.
 */
public final class SpringDataDriverProvider implements RedisDriverProvider {

    private static final String LETTUCE_FACTORY = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";
    private static final String JEDIS_FACTORY = "org.springframework.data.redis.connection.jedis.JedisConnectionFactory";

    /** Creates the provider ({@link java.util.ServiceLoader} does this). */
    public SpringDataDriverProvider() {
    }

    @Override
    public boolean supports(Object nativeClient) {
        return nativeClient instanceof RedisConnectionFactory;
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        if (!(nativeClient instanceof RedisConnectionFactory factory)) {
            throw new IllegalArgumentException("the spring-data-redis driver accepts an "
                    + "org.springframework.data.redis.connection.RedisConnectionFactory (LettuceConnectionFactory, "
                    + "JedisConnectionFactory), not " + (nativeClient == null ? "null" : nativeClient.getClass().getName()));
        }
        Objects.requireNonNull(options, "options must not be null");
        boolean lettuce = isA(factory.getClass(), LETTUCE_FACTORY);
        boolean cluster = lettuce ? LettuceScriptCalls.isCluster(factory)
                : isA(factory.getClass(), JEDIS_FACTORY) && JedisClusterScripts.isCluster(factory);
        ScriptCalls scripts = lettuce
                ? new LettuceScriptCalls(factory, options.commandTimeout())
                : new GenericScriptCalls(factory, cluster, options.commandTimeout());
        return new SpringDataCommandExecutor(factory, scripts, lettuce, cluster, options);
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

    /** By name, so an application without Lettuce (or Jedis) never loads a class that refers to it. */
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
