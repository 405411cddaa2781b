package io.github.relock.driver.springdata;

import io.github.relock.spi.pubsub.SessionPubSub;
import io.github.relock.spi.pubsub.SessionTransport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The raw pub/sub of a Jedis-backed factory, run by core's {@link SessionPubSub}: a session is a
 * {@link JedisPubSub} reading, on core's reader thread, a connection of its own.
 *
 * <p>Design. Jedis' reading loop stops when Redis counts zero channels, and a command sent after
 * that is never read: a pooled connection handed back then would give its reply to the next
 * borrower (a lock script answered with {@code [unsubscribe, nil, 0]}), and Spring's subscription
 * API hands it back inside the client, out of reach. So a session takes a connection from what
 * the factory's client pools (a classic pool's {@code Jedis}, its {@code RedisClient}'s pool, any
 * node of its {@code JedisCluster} or {@code RedisClusterClient}, which Spring Data 4 makes: classic
 * pub/sub reaches every client from any node), with the
 * application's {@code AUTH}, {@code SELECT} and client name, and marks it broken at the end, so
 * the pool destroys it. A {@code RedisSentinelClient} shows no pool: the session connects to its
 * current primary as the factory configures its client. Another {@code UnifiedJedis} (a factory
 * subclass's) subscribes itself; there only core's sending nothing after the last channel guards.
 *
 * <p>With {@link JedisClusterScripts}, the only classes that touch Jedis; loaded only for a
 * {@code JedisConnectionFactory}.
 *
 * <p>Thread-safety: stateless and shared; a link belongs to one session as {@link SessionTransport} says.
 */
final class JedisPubSubTransport implements SessionTransport {

    private final RedisConnectionFactory factory;

    JedisPubSubTransport(RedisConnectionFactory factory) {
        this.factory = factory;
    }

    @Override
    public Link open(Events events) {
        Session session = new Session(events);
        return new Link() {
            @Override
            public void run(List<String> initial) {
                session.run(initial);
            }

            @Override
            public void subscribe(List<String> channels) {
                session.subscribe(channels.toArray(new String[0]));
            }

            @Override
            public void unsubscribe(List<String> channels) {
                session.unsubscribe(channels.toArray(new String[0]));
            }

            @Override
            public void unsubscribeAll() {
                session.unsubscribe();
            }

            @Override
            public boolean ping() {
                return session.probe();
            }

            @Override
            public void abort() {
                session.abort();
            }
        };
    }

    /** One session: Jedis' reading loop, handing Redis's confirmations and messages to core. */
    private final class Session extends JedisPubSub {
        private final Events events;
        /** The connection this session reads, while the driver holds one (not a {@code UnifiedJedis}'s own). */
        private volatile Connection held;

        Session(Events events) {
            this.events = events;
        }

        void run(List<String> initial) {
            String[] first = initial.toArray(new String[0]);
            RedisConnection spring = null;
            Connection own = null;
            try {
                spring = factory.getConnection();
                Object client = spring.getNativeConnection();
                own = client instanceof Jedis jedis ? jedis.getConnection() // a classic pool's Jedis
                        : client instanceof RedisClient redis ? redis.getPool().getResource()
                        : client instanceof JedisCluster cluster ? anyNode(cluster.getClusterNodes())
                        : client instanceof RedisClusterClient cluster ? anyNode(cluster.getClusterNodes())
                        : client instanceof RedisSentinelClient sentinel && factory instanceof JedisConnectionFactory f
                        ? toPrimary(f, sentinel) : null;
                if (own != null) {
                    held = own;
                    proceed(own, first);
                } else if (client instanceof UnifiedJedis other) {
                    other.subscribe(this, first); // lends and takes back a connection itself
                } else {
                    throw new Misconfigured("the driver subscribes over a Jedis or UnifiedJedis, not a "
                            + (client == null ? "null" : client.getClass().getName()) + " from " + factory.getClass().getName());
                }
            } catch (RuntimeException e) {
                throw SpringErrors.translate(e, "SUBSCRIBE " + initial); // a refusal stays a Redis error
            } finally {
                held = null;
                if (own != null) {
                    own.setBroken(); // a pool destroys it instead of lending it again
                }
                close(own);
                close(spring);
            }
        }

        /** @return false when the session reads a connection the driver does not hold, which it cannot break */
        boolean probe() {
            if (held == null) {
                return false;
            }
            ping();
            return true;
        }

        /** Closes the held connection's socket (it is broken, so no pool lends it again): {@link #run} throws. */
        void abort() {
            Connection c = held;
            if (c != null) {
                c.setBroken();
                c.disconnect();
            }
        }

        @Override
        public void onPong(String pattern) {
            events.pong();
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

    /** Non-sharded pub/sub reaches every client of a cluster from any node; one that is down is skipped. */
    private static Connection anyNode(Map<String, ConnectionPool> pools) {
        List<ConnectionPool> nodes = new ArrayList<>(pools.values());
        Collections.shuffle(nodes);
        RuntimeException last = new IllegalStateException("the cluster client knows no node");
        for (ConnectionPool node : nodes) {
            try {
                return node.getResource();
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw last;
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
        if (where != null && where.getUsername() != null && !where.getUsername().isEmpty()) {
            config.user(where.getUsername());
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
            if (c != null) {
                c.close();
            }
        } catch (Exception ignored) {
            // gone already
        }
    }
}
