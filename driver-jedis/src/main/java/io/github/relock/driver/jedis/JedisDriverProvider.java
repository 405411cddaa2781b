package io.github.relock.driver.jedis;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.RedisUri;
import java.net.URI;
import java.util.Objects;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * relock's driver for Jedis 7/8: accepts any {@link UnifiedJedis} ({@code RedisClient},
 * {@code RedisClusterClient}, {@code JedisCluster}, {@code RedisSentinelClient}, ...), and opens a
 * pooled {@link RedisClient} of its own for {@link #connect}. Found through
 * {@link java.util.ServiceLoader} under the name {@code "jedis"}.
 *
 * <p>Each executor owns one pub/sub connection (taken from the client's own connection provider
 * while anything is subscribed), one daemon reader thread {@code relock-jedis-pubsub} and a small
 * pool of daemon threads {@code relock-jedis-async-N} for the async calls; all end on
 * {@link CommandExecutor#close()}.
 *
 * <p>Thread-safety: stateless; safe for use by several threads.
 */
public final class JedisDriverProvider implements RedisDriverProvider {

    /** Creates the provider ({@link java.util.ServiceLoader} does this). */
    public JedisDriverProvider() {
    }

    @Override
    public String name() {
        return "jedis";
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean supports(Object nativeClient) {
        return nativeClient instanceof UnifiedJedis;
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        Objects.requireNonNull(options, "options must not be null");
        if (!(nativeClient instanceof UnifiedJedis jedis)) {
            throw new IllegalArgumentException("the jedis driver accepts a redis.clients.jedis.UnifiedJedis "
                    + "(RedisClient, RedisClusterClient, JedisCluster, RedisSentinelClient), not "
                    + (nativeClient == null ? "null" : nativeClient.getClass().getName()));
        }
        return new JedisCommandExecutor(jedis, false, jedis.getClass().getSimpleName(), options);
    }

    /** Opens a connection of its own for {@code redis://} and {@code rediss://} URIs. */
    @Override
    public boolean supportsUri(URI uri) {
        return RedisDriverProvider.super.supportsUri(uri);
    }

    @Override
    public CommandExecutor connect(URI uri, DriverOptions options) {
        Objects.requireNonNull(uri, "uri must not be null");
        Objects.requireNonNull(options, "options must not be null");
        RedisUri t;
        try {
            t = RedisUri.parse(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the jedis driver " + e.getMessage(), e);
        }
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, options.commandTimeout().toMillis()));
        DefaultJedisClientConfig.Builder cfg = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMs)
                .socketTimeoutMillis(timeoutMs)
                .database(t.database())
                .ssl(t.ssl())
                .clientName(options.clientName());
        if (t.user() != null) {
            cfg.user(t.user());
        }
        if (t.password() != null) {
            cfg.password(t.password());
        }
        RedisClient client = RedisClient.builder().hostAndPort(t.host(), t.port()).clientConfig(cfg.build()).build();
        try {
            client.ping(); // fail here, not on the first lock call, when the server is not there
        } catch (RuntimeException e) {
            client.close();
            RuntimeException mapped = Errors.translate(e, "PING " + t.redacted());
            if (mapped instanceof RedisUnavailableException) {
                throw mapped;
            }
            // e.g. WRONGPASS / NOAUTH: the server is there but will not serve us
            throw new RedisUnavailableException("cannot use " + t.redacted() + ": " + e.getMessage(), e);
        }
        return new JedisCommandExecutor(client, true, t.redacted(), options);
    }

    @Override
    public String toString() {
        return "JedisDriverProvider[jedis, spi " + SPI_VERSION + "]";
    }
}
