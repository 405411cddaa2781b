package io.github.relock.driver.jedis;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.RedisUri;
import java.net.URI;
import java.util.Objects;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisSentinelPool;
import redis.clients.jedis.UnifiedJedis;

/**
 * relock's driver for Jedis 6.0 to 8.x. Accepts any {@link UnifiedJedis} ({@code RedisClient},
 * {@code RedisClusterClient}, {@code RedisSentinelClient} on Jedis 7+; {@code JedisPooled},
 * {@code JedisSentineled} on 6/7; {@code JedisCluster} on all), and a classic {@link JedisPool} or
 * {@link JedisSentinelPool} (what Spring Data Redis' {@code JedisConnectionFactory} holds; each call
 * borrows a {@code Jedis} and gives it back). For {@link #connect} it opens a pooled client of its
 * own: a {@code RedisClient} on Jedis 7+, a {@code JedisPooled} on Jedis 6. Found through
 * {@link java.util.ServiceLoader} under the name {@code "jedis"}.
 *
 * <p>Each executor owns one pub/sub connection (taken from the client's own connection provider,
 * or borrowed from the pool, while anything is subscribed), one daemon reader thread {@code relock-jedis-pubsub} and a small
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
        return nativeClient instanceof UnifiedJedis || nativeClient instanceof JedisPool
                || nativeClient instanceof JedisSentinelPool;
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        Objects.requireNonNull(options, "options must not be null");
        if (nativeClient instanceof UnifiedJedis jedis) {
            return new JedisCommandExecutor(JedisAccess.of(jedis), false, jedis.getClass().getSimpleName(), options);
        }
        if (nativeClient instanceof JedisPool pool) {
            return new JedisCommandExecutor(JedisAccess.of(pool), false, "JedisPool", options);
        }
        if (nativeClient instanceof JedisSentinelPool pool) {
            return new JedisCommandExecutor(JedisAccess.of(pool), false, "JedisSentinelPool", options);
        }
        throw new IllegalArgumentException("the jedis driver (Jedis " + JedisVersions.VERSION + ") accepts a "
                + "redis.clients.jedis.UnifiedJedis (RedisClient, RedisClusterClient, RedisSentinelClient, JedisCluster, "
                + "JedisPooled, JedisSentineled), a redis.clients.jedis.JedisPool or a redis.clients.jedis.JedisSentinelPool, not "
                + (nativeClient == null ? "null" : nativeClient.getClass().getName()));
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
        UnifiedJedis client = JedisVersions.openPooled(new HostAndPort(t.host(), t.port()), cfg.build());
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
        return new JedisCommandExecutor(JedisAccess.of(client), true, t.redacted(), options);
    }

    @Override
    public String toString() {
        return "JedisDriverProvider[jedis, spi " + SPI_VERSION + "]";
    }
}
