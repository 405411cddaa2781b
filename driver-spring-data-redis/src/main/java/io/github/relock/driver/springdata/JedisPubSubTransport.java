package io.github.relock.driver.springdata;

import io.github.relock.spi.pubsub.SessionPubSub;
import io.github.relock.spi.pubsub.SessionTransport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The raw pub/sub of a Jedis-backed factory, run by core's {@link SessionPubSub}: a session is a
 * {@link JedisPubSub} reading, on core's reader thread, a connection the session owns, which is
 * destroyed when the session ends and never goes back to a pool.
 *
 * <p>Design. Jedis' reading loop stops as soon as Redis counts zero channels; a command sent on
 * the connection after that is never read, and a pooled connection handed back then gives its
 * reply to the next borrower's command (an "unread reply": a lock script answered with
 * {@code [unsubscribe, nil, 0]}). Core sends nothing once the last channel's {@code UNSUBSCRIBE}
 * is out; this class makes sure the connection itself never serves anyone else. Spring's
 * subscription API on a Jedis factory borrows and returns that connection inside the client, out
 * of reach. So the session takes the connection itself from what the factory's client pools (the
 * pooled {@code Jedis} of a classic factory, the pool of the factory's {@code RedisClient}, any
 * node's pool of its {@code JedisCluster}, as classic pub/sub reaches every client of a cluster
 * from any node): it was opened by the client's own pool factory, so {@code AUTH}, {@code SELECT}
 * of the database and the client name are as the application configured them, and a new session
 * gets a new such connection. A Sentinel factory's {@code RedisSentinelClient} shows no pool, so
 * there the session opens a connection of its own to the primary the client follows, configured
 * as the factory configures its client (user, password, database, client name, timeouts, TLS, and
 * the application's config customizer). At the end the connection is marked broken and
 * disconnected, so a pool destroys it.
 *
 * <p>Any other client (a factory subclass's own {@code UnifiedJedis}) is read through the client's
 * {@code subscribe}, which borrows and gives back the connection itself; there only core's rule of
 * sending nothing after the last channel guards it.
 *
 * <p>The only class besides {@link JedisClusterScripts} that touches Jedis; loaded only for a
 * {@code JedisConnectionFactory}.
 *
 * <p>Thread-safety: stateless and shared; each link belongs to one session as
 * {@link SessionTransport} says.
 */
final class JedisPubSubTransport implements SessionTransport {

    private final RedisConnectionFactory factory;

    JedisPubSubTransport(RedisConnectionFactory factory) {
        this.factory = factory;
    }

    @Override
    public Link open(Events events) {
        return new Session(events);
    }

    /** One session: Jedis' reading loop, handing Redis's confirmations and messages to core. */
    private final class Session extends JedisPubSub implements Link {
        private final Events events;

        Session(Events events) {
            this.events = events;
        }

        @Override
        public void run(List<String> initial) {
            try {
                read(this, initial.toArray(new String[0]));
            } catch (RuntimeException e) {
                throw SpringErrors.translate(e, "SUBSCRIBE " + initial); // a refusal stays a Redis error
            }
        }

        @Override
        public void subscribe(List<String> channels) {
            subscribe(channels.toArray(new String[0]));
        }

        @Override
        public void unsubscribe(List<String> channels) {
            unsubscribe(channels.toArray(new String[0]));
        }

        @Override
        public void unsubscribeAll() {
            unsubscribe();
        }

        @Override
        public void onSubscribe(String channel, int count) {
            events.subscribed(channel);
        }

        @Override
        public void onUnsubscribe(String channel, int count) {
            events.unsubscribed(channel);
        }

        @Override
        public void onMessage(String channel, String message) {
            events.message(channel, message);
        }
    }

    /**
     * Reads one session on a connection of its own until Redis counts zero channels (returns) or
     * the connection breaks (throws); the connection is destroyed at the end.
     */
    private void read(JedisPubSub pubsub, String[] first) {
        RedisConnection spring = factory.getConnection();
        try {
            Object client = spring.getNativeConnection();
            Connection own = ownConnection(client);
            if (own == null) {
                ((UnifiedJedis) client).subscribe(pubsub, first);
                return;
            }
            try {
                pubsub.proceed(own, first);
            } finally {
                try {
                    own.forceDisconnect(); // broken: a pool destroys it instead of keeping it
                } catch (java.io.IOException | RuntimeException ignored) {
                    // closed already
                }
                close(own);
            }
        } finally {
            close(spring);
        }
    }

    /**
     * @return a connection of the session's own from what the factory's client pools, or null for
     *     another {@link UnifiedJedis}, which lends one itself
     */
    private Connection ownConnection(Object client) {
        if (client instanceof Jedis jedis) {
            return jedis.getConnection(); // a classic pool's Jedis
        }
        if (client instanceof RedisClient redisClient) {
            return redisClient.getPool().getResource();
        }
        if (client instanceof JedisCluster cluster) {
            return anyNode(cluster);
        }
        if (client instanceof RedisSentinelClient sentinel && factory instanceof JedisConnectionFactory jedisFactory) {
            return toPrimary(jedisFactory, sentinel);
        }
        if (client instanceof UnifiedJedis) {
            return null;
        }
        throw new IllegalStateException("the Jedis-backed factory " + factory.getClass().getName()
                + " handed out a connection over a " + (client == null ? "null" : client.getClass().getName())
                + " client; the driver subscribes over a Jedis, RedisClient, JedisCluster, RedisSentinelClient"
                + " or UnifiedJedis");
    }

    /** Non-sharded pub/sub reaches every client of a cluster from any node. */
    private static Connection anyNode(JedisCluster cluster) {
        List<ConnectionPool> nodes = new ArrayList<>(cluster.getClusterNodes().values());
        Collections.shuffle(nodes);
        RuntimeException last = null;
        for (ConnectionPool node : nodes) {
            try {
                return node.getResource();
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw last != null ? last : new IllegalStateException("the cluster client knows no node");
    }

    /** A connection to the Sentinel client's current primary, set up as the factory sets up its client's. */
    private static Connection toPrimary(JedisConnectionFactory factory, RedisSentinelClient sentinel) {
        JedisClientConfiguration options = factory.getClientConfiguration();
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(Math.toIntExact(options.getConnectTimeout().toMillis()))
                .socketTimeoutMillis(Math.toIntExact(options.getReadTimeout().toMillis()))
                .database(factory.getDatabase());
        options.getClientName().ifPresent(config::clientName);
        RedisSentinelConfiguration where = factory.getSentinelConfiguration();
        String user = where == null ? null : where.getUsername();
        if (user != null && !user.isEmpty()) {
            config.user(user);
        }
        if (factory.getPassword() != null) {
            config.password(factory.getPassword());
        }
        if (options.isUseSsl()) {
            config.ssl(true);
            options.getSslSocketFactory().ifPresent(config::sslSocketFactory);
            options.getHostnameVerifier().ifPresent(config::hostnameVerifier);
            options.getSslParameters().ifPresent(config::sslParameters);
        }
        options.getClientConfigCustomizer().ifPresent(customizer -> customizer.customize(config));
        return new Connection(sentinel.getCurrentMaster(), config.build()); // connects, AUTH, SELECT
    }

    private static void close(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // gone already
        }
    }
}
