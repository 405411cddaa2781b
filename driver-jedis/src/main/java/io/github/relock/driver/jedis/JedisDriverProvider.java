package io.github.relock.driver.jedis;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
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
        Target t = Target.parse(uri);
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, options.commandTimeout().toMillis()));
        DefaultJedisClientConfig.Builder cfg = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMs)
                .socketTimeoutMillis(timeoutMs)
                .database(t.database)
                .ssl(t.ssl)
                .clientName(options.clientName());
        if (t.user != null) {
            cfg.user(t.user);
        }
        if (t.password != null) {
            cfg.password(t.password);
        }
        RedisClient client = RedisClient.builder().hostAndPort(t.host, t.port).clientConfig(cfg.build()).build();
        try {
            client.ping(); // fail here, not on the first lock call, when the server is not there
        } catch (RuntimeException e) {
            client.close();
            RuntimeException mapped = Replies.translate(e, "PING " + t.redacted);
            if (mapped instanceof RedisUnavailableException) {
                throw mapped;
            }
            // e.g. WRONGPASS / NOAUTH: the server is there but will not serve us
            throw new RedisUnavailableException("cannot use " + t.redacted + ": " + e.getMessage(), e);
        }
        return new JedisCommandExecutor(client, true, t.redacted, options);
    }

    @Override
    public String toString() {
        return "JedisDriverProvider[jedis, spi " + SPI_VERSION + "]";
    }

    /** A parsed {@code redis://} / {@code rediss://} URI. */
    static final class Target {
        final String host;
        final int port;
        final String user;
        final String password;
        final int database;
        final boolean ssl;
        /** The URI without its password, for messages. */
        final String redacted;

        private Target(String host, int port, String user, String password, int database, boolean ssl, String redacted) {
            this.host = host;
            this.port = port;
            this.user = user;
            this.password = password;
            this.database = database;
            this.ssl = ssl;
            this.redacted = redacted;
        }

        static Target parse(URI uri) {
            String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
            String userInfo = uri.getRawUserInfo();
            String redacted = redact(uri);
            String allowed = "; expected redis://[user:password@]host[:port][/db] or rediss://...";
            if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
                throw new IllegalArgumentException("the jedis driver cannot use URI '" + redacted
                        + "': scheme must be redis or rediss, was " + (scheme == null ? "none" : "'" + scheme + "'") + allowed);
            }
            String host = uri.getHost();
            if (host == null || host.isEmpty()) {
                throw new IllegalArgumentException("the jedis driver cannot use URI '" + redacted + "': no host" + allowed);
            }
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1); // IPv6 literal
            }
            int port = uri.getPort() < 0 ? 6379 : uri.getPort();
            String user = null;
            String password = null;
            if (userInfo != null && !userInfo.isEmpty()) {
                int colon = userInfo.indexOf(':');
                if (colon < 0) {
                    password = decode(userInfo); // redis://secret@host: a password alone, as redis-cli reads it
                } else {
                    String u = userInfo.substring(0, colon);
                    user = u.isEmpty() ? null : decode(u);
                    password = decode(userInfo.substring(colon + 1));
                }
            }
            int db = 0;
            String path = uri.getPath();
            if (path != null && !path.isEmpty() && !path.equals("/")) {
                String d = path.substring(1);
                try {
                    db = Integer.parseInt(d);
                } catch (NumberFormatException e) {
                    db = -1;
                }
                if (db < 0) {
                    throw new IllegalArgumentException("the jedis driver cannot use URI '" + redacted
                            + "': the path must be a database number >= 0, was '/" + d + "'" + allowed);
                }
            }
            if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
                throw new IllegalArgumentException("the jedis driver cannot use URI '" + redacted
                        + "': query parameters and fragments are not supported" + allowed);
            }
            return new Target(host, port, user, password, db, "rediss".equals(scheme), redacted);
        }

        private static String decode(String s) {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        }

        private static String redact(URI uri) {
            if (uri.getRawUserInfo() == null) {
                return uri.toString();
            }
            String info = uri.getRawUserInfo();
            int colon = info.indexOf(':');
            String shown = colon < 0 ? "***" : info.substring(0, colon) + ":***";
            return uri.toString().replace(info + "@", shown + "@");
        }
    }
}
