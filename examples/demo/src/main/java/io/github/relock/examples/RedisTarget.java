package io.github.relock.examples;

import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One Redis server, given as {@code redis://[user:password@]host[:port][/db]} (or {@code rediss://}),
 * and the three kinds of client the demo opens on it.
 *
 * <p>Thread-safety: immutable.
 */
final class RedisTarget {
    static final String FORMAT = "redis://[user:password@]host[:port][/db] or rediss://...";

    private final URI uri;
    private final String host;
    private final int port;
    private final int database;
    private final String user;
    private final String password;

    private RedisTarget(URI uri, String host, int port, int database, String user, String password) {
        this.uri = uri;
        this.host = host;
        this.port = port;
        this.database = database;
        this.user = user;
        this.password = password;
    }

    /**
     * @param text a Redis URL
     * @return the target
     * @throws CliException (usage) naming what is wrong with it
     */
    static RedisTarget parse(String text) {
        String t = text == null ? "" : text.trim();
        URI u;
        try {
            u = new URI(t);
        } catch (URISyntaxException e) {
            throw bad(text, e.getReason());
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw bad(text, "the scheme must be redis or rediss");
        }
        if (u.getHost() == null || u.getHost().isBlank()) {
            throw bad(text, "no host");
        }
        int port = u.getPort() < 0 ? 6379 : u.getPort();
        if (port < 1 || port > 65535) {
            throw bad(text, "port out of range");
        }
        int db = 0;
        String path = u.getPath() == null ? "" : u.getPath();
        if (!path.isEmpty() && !path.equals("/")) {
            try {
                db = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw bad(text, "the path must be a database number, was '" + path + "'");
            }
            if (db < 0) {
                throw bad(text, "the database number must be >= 0");
            }
        }
        String user = null;
        String password = null;
        if (u.getUserInfo() != null) {
            String info = u.getUserInfo();
            int colon = info.indexOf(':');
            if (colon < 0) {
                password = info; // redis://secret@host: a password alone, as Jedis and Lettuce read it
            } else {
                user = colon == 0 ? null : info.substring(0, colon);
                password = info.substring(colon + 1);
            }
        }
        return new RedisTarget(u, u.getHost(), port, db, user, password);
    }

    /** @return a target for the embedded server */
    static RedisTarget local(String host, int port) {
        return parse("redis://" + host + ":" + port);
    }

    private static CliException bad(String text, String why) {
        return CliException.usage("bad Redis URL '" + text + "': " + why + " (expected " + FORMAT + ")");
    }

    /** @return the URL with any password replaced by {@code ***} */
    String redacted() {
        if (uri.getRawUserInfo() == null) {
            return uri.toString();
        }
        return uri.toString().replace(uri.getRawUserInfo() + "@", (user == null ? "" : user + ":") + "***@");
    }

    boolean tls() {
        return uri.getScheme().equalsIgnoreCase("rediss");
    }

    @Override
    public String toString() {
        return redacted();
    }

    /** @return a pooled Jedis client (thread-safe) */
    RedisClient jedis() {
        return RedisClient.create(uri);
    }

    /** @return a Lettuce client; connections are opened by its users */
    io.lettuce.core.RedisClient lettuce() {
        RedisURI r = RedisURI.create(uri);
        r.setTimeout(Duration.ofSeconds(5));
        return io.lettuce.core.RedisClient.create(r);
    }

    /** @return a connected Redisson client */
    RedissonClient redisson() {
        Config config = new Config();
        config.setThreads(4).setNettyThreads(8);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        SingleServerConfig single = config.useSingleServer()
                .setAddress((tls() ? "rediss://" : "redis://") + hostForUri() + ":" + port)
                .setDatabase(database)
                .setConnectionMinimumIdleSize(2).setConnectionPoolSize(16)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(4);
        single.setConnectTimeout(3000);
        return Redisson.create(config);
    }

    /** Shuts a Redisson client down without Redisson's default two-second quiet period. */
    static void shutdown(RedissonClient redisson) {
        redisson.shutdown(0, 5, TimeUnit.SECONDS);
    }

    private String hostForUri() {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /**
     * Checks that the server answers, so that a wrong URL ends in one clear line.
     *
     * @param redis a client on this target
     * @throws CliException (exit 3) when it does not answer or refuses the credentials
     */
    void requireReachable(RedisClient redis) {
        try {
            redis.ping();
        } catch (JedisAccessControlException e) {
            throw new CliException(Main.EXIT_UNREACHABLE, "Redis at " + redacted() + " refused the credentials: "
                    + e.getMessage(), e);
        } catch (JedisConnectionException e) {
            throw new CliException(Main.EXIT_UNREACHABLE, "cannot reach Redis at " + redacted() + ": "
                    + rootMessage(e) + " (is it running? set --url or REDIS_URL)", e);
        } catch (JedisException e) {
            throw new CliException(Main.EXIT_UNREACHABLE, "Redis at " + redacted() + " did not answer PING: "
                    + rootMessage(e), e);
        }
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
