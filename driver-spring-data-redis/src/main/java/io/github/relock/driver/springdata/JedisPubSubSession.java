package io.github.relock.driver.springdata;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.data.redis.connection.DefaultMessage;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * A pub/sub session on a Jedis-backed factory, read by Jedis' own loop on a connection the
 * session owns, which is destroyed when the session ends and never goes back to a pool.
 *
 * <p>Design. Jedis' reading loop stops as soon as Redis counts zero channels; a command sent on
 * the connection after that (a late {@code UNSUBSCRIBE}, a {@code SUBSCRIBE} racing the last
 * unsubscribe) is never read, and a pooled connection handed back then gives its reply to the next
 * borrower's command (an "unread reply": a lock script answered with {@code [unsubscribe, nil, 0]}).
 * Spring's subscription API on a Jedis factory borrows and returns that connection inside the
 * client, out of reach. So the session takes the connection itself from what the factory's client
 * pools (the pooled {@code Jedis} of a classic factory, the pool of the factory's
 * {@code RedisClient}, a node pool of its {@code JedisCluster}): it was opened by the client's
 * own pool factory, so {@code AUTH}, {@code SELECT} of the database and the client name are as the
 * application configured them, and a new session gets a new such connection. A Sentinel factory's
 * {@code RedisSentinelClient} shows no pool, so there the session opens a connection of its own
 * to the primary the client follows, configured as the factory configures its client (user,
 * password, database, client name, timeouts, TLS, and the application's config customizer). At
 * the end the connection is marked broken and disconnected, so a pool destroys it. Besides, the session
 * sends nothing once its last channel left (it tracks the channels it asked for, which Redis
 * counts in the same order), so the loop never stops while a command is still on its way.
 *
 * <p>Any other client (a factory subclass's own {@code UnifiedJedis}) is read through the client's
 * {@code subscribe}, which borrows and gives back the connection itself; there only the rule of
 * sending nothing after the last channel guards it.
 *
 * <p>The only class besides {@link JedisClusterScripts} that touches Jedis; loaded only for a
 * {@code JedisConnectionFactory}.
 *
 * <p>Thread-safety: as {@link PubSubSession} says; {@link #end} may also run while the reader reads.
 */
final class JedisPubSubSession implements PubSubSession {

    /** Spring's connection the session came from; closed at the end. */
    private final RedisConnection spring;
    /** The connection the session owns, or null when {@link #shared} borrows one per session. */
    private final Connection own;
    private final UnifiedJedis shared;
    private final Reader reader;
    /** The channels Redis will count once it has read everything the session sent. */
    private final Set<ByteBuffer> asked = ConcurrentHashMap.newKeySet();
    /** The last channel left: nothing more is sent. */
    private volatile boolean finished;
    private volatile boolean ended;

    private JedisPubSubSession(RedisConnection spring, Connection own, UnifiedJedis shared, SpringPubSub sink) {
        this.spring = spring;
        this.own = own;
        this.shared = shared;
        this.reader = new Reader(sink);
    }

    /**
     * @return a session on a connection of its own from what the factory's client pools
     * @throws RuntimeException what the factory or client threw when no connection could be had
     */
    static PubSubSession open(RedisConnectionFactory factory, SpringPubSub sink) {
        RedisConnection spring = factory.getConnection();
        try {
            Object client = spring.getNativeConnection();
            if (client instanceof Jedis jedis) {
                return new JedisPubSubSession(spring, jedis.getConnection(), null, sink); // a classic pool's Jedis
            }
            if (client instanceof RedisClient redisClient) {
                return new JedisPubSubSession(spring, redisClient.getPool().getResource(), null, sink);
            }
            if (client instanceof JedisCluster cluster) {
                return new JedisPubSubSession(spring, anyNode(cluster), null, sink);
            }
            if (client instanceof RedisSentinelClient sentinel && factory instanceof JedisConnectionFactory jedisFactory) {
                return new JedisPubSubSession(spring, toPrimary(jedisFactory, sentinel), null, sink);
            }
            if (client instanceof UnifiedJedis unified) {
                return new JedisPubSubSession(spring, null, unified, sink);
            }
            throw new IllegalStateException("the Jedis-backed factory " + factory.getClass().getName()
                    + " handed out a connection over a " + (client == null ? "null" : client.getClass().getName())
                    + " client; the driver subscribes over a Jedis, RedisClient, JedisCluster, RedisSentinelClient"
                    + " or UnifiedJedis");
        } catch (RuntimeException e) {
            close(spring);
            throw e;
        }
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

    @Override
    public void start(byte[][] first) {
        for (byte[] channel : first) {
            asked.add(ByteBuffer.wrap(channel));
        }
        if (own != null) {
            reader.proceed(own, first);
        } else {
            shared.subscribe(reader, first);
        }
    }

    @Override
    public boolean isSubscribed() {
        return !finished && !ended;
    }

    @Override
    public void join(byte[] channel) {
        if (!isSubscribed()) {
            throw new IllegalStateException("the pub/sub session ended; a new one takes further channels");
        }
        asked.add(ByteBuffer.wrap(channel));
        reader.subscribe(channel);
    }

    @Override
    public void leave(byte[] channel) {
        if (!isSubscribed()) {
            return; // Redis counts nothing here any more, or the connection is gone
        }
        asked.remove(ByteBuffer.wrap(channel));
        if (asked.isEmpty()) {
            finished = true;
        }
        reader.unsubscribe(channel);
    }

    @Override
    public void end() {
        boolean wasSubscribed = isSubscribed();
        ended = true;
        if (own != null) {
            // broken first: the pool then destroys the connection instead of keeping it; closing the
            // socket also ends a reader still blocked on it
            try {
                own.forceDisconnect();
            } catch (java.io.IOException | RuntimeException ignored) {
                // closed already
            }
            close(own);
        } else if (wasSubscribed && !asked.isEmpty()) {
            // the client gives its connection back itself: end the loop with Redis counting zero
            // and send nothing after that
            finished = true;
            try {
                reader.unsubscribe();
            } catch (RuntimeException ignored) {
                // the connection broke; the client destroys a broken connection
            }
        }
        close(spring);
    }

    @Override
    public boolean ended() {
        return ended;
    }

    private static void close(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // gone already
        }
    }

    /** Jedis' reading loop for the session; hands Redis's confirmations and messages to {@link SpringPubSub}. */
    private static final class Reader extends BinaryJedisPubSub {
        private final SpringPubSub sink;

        Reader(SpringPubSub sink) {
            this.sink = sink;
        }

        @Override
        public void onMessage(byte[] channel, byte[] message) {
            sink.onMessage(new DefaultMessage(channel, message), null);
        }

        @Override
        public void onSubscribe(byte[] channel, int subscribedChannels) {
            if (channel != null) {
                sink.onChannelSubscribed(channel, subscribedChannels);
            }
        }

        @Override
        public void onUnsubscribe(byte[] channel, int subscribedChannels) {
            if (channel != null) {
                sink.onChannelUnsubscribed(channel, subscribedChannels);
            }
        }
    }
}
