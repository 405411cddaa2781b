package io.github.relock.driver.jedis;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ConnectionProvider;
import redis.clients.jedis.util.Pool;

/**
 * How an executor reaches Redis: through a {@link UnifiedJedis} (pooled, cluster, sentinel
 * clients), or by borrowing a {@link Jedis} per call from a classic {@code JedisPool} /
 * {@code JedisSentinelPool} (what Spring Data Redis' {@code JedisConnectionFactory} holds). The
 * executor and the pub/sub state machine are the same for both.
 *
 * <p>Thread-safety: safe for use by several threads, as the client or pool underneath is.
 */
interface JedisAccess {

    Object evalsha(String sha1, List<String> keys, List<String> args);

    Object eval(String script, List<String> keys, List<String> args);

    /** Runs {@code body} on a new pipeline (on one borrowed connection) and closes it. */
    <T> T pipelined(Function<AbstractPipeline, T> body);

    /**
     * Blocks in {@code SUBSCRIBE} on one connection until {@code pubsub} has no channel left. When
     * it ends in an exception (an error reply such as an ACL's {@code NOPERM} for one channel, a
     * broken socket) the connection may still be subscribed to the other channels, so it is marked
     * broken and the pool destroys it rather than lend it to the application, whose commands would
     * read pub/sub frames as their replies. A session that ends because no channel is left gives
     * its connection back, unsubscribed.
     *
     * @param held told the connection before the session starts (so that a silent one can be
     *     broken from another thread), and null when it ends; never told where this Jedis does not
     *     let the driver hold the connection
     */
    void subscribe(JedisPubSub pubsub, String[] channels, Consumer<Connection> held);

    /** @return {@code INFO <section>} from the node serving {@code key} (the pipelines' node for it) */
    String info(String key, String section);

    /** Closes the client or pool. */
    void close();

    /** @return the client when it is a cluster client ({@link JedisVersions#isCluster}), else null */
    UnifiedJedis cluster();

    /**
     * @return the node the running {@link #subscribe} session's connection goes to; null when no
     *     session runs; {@link #UNKNOWN_NODE} when this Jedis does not show it
     */
    default Object subscribedNode() {
        return UNKNOWN_NODE;
    }

    /** {@link #subscribedNode()} when the driver cannot tell. */
    Object UNKNOWN_NODE = new Object();

    static JedisAccess of(UnifiedJedis client) {
        UnifiedJedis cluster = JedisVersions.isCluster(client) ? client : null;
        return new JedisAccess() {
            /** Where the running subscribe session's connection goes (see subscribedNode). */
            private volatile Object subscribedNode;

            @Override
            public Object evalsha(String sha1, List<String> keys, List<String> args) {
                return client.evalsha(sha1, keys, args);
            }

            @Override
            public Object eval(String script, List<String> keys, List<String> args) {
                return client.eval(script, keys, args);
            }

            @Override
            public <T> T pipelined(Function<AbstractPipeline, T> body) {
                try (AbstractPipeline p = JedisVersions.pipelined(client)) {
                    return body.apply(p);
                }
            }

            @Override
            public void subscribe(JedisPubSub pubsub, String[] channels, Consumer<Connection> held) {
                ConnectionProvider provider = JedisVersions.provider(client);
                if (provider == null) { // this Jedis does not let us hold the connection
                    subscribedNode = UNKNOWN_NODE;
                    try {
                        client.subscribe(pubsub, channels);
                    } finally {
                        subscribedNode = null;
                    }
                    return;
                }
                Connection c = provider.getConnection();
                HostAndPort node = JedisVersions.hostAndPort(c);
                subscribedNode = node != null ? node : UNKNOWN_NODE;
                held.accept(c);
                try {
                    pubsub.proceed(c, channels);
                } catch (RuntimeException | Error e) {
                    c.setBroken();
                    throw e;
                } finally {
                    subscribedNode = null;
                    held.accept(null);
                    c.close();
                }
            }

            @Override
            public Object subscribedNode() {
                return subscribedNode;
            }

            @Override
            public String info(String key, String section) {
                if (cluster == null) {
                    return client.info(section);
                }
                Object reply = client.sendCommand(key, Protocol.Command.INFO, section); // routed by key, not sent
                return reply instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8)
                        : String.valueOf(reply);
            }

            @Override
            public void close() {
                client.close();
            }

            @Override
            public UnifiedJedis cluster() {
                return cluster;
            }
        };
    }

    /** Each call borrows a {@link Jedis} and gives it back (a broken one is discarded by the pool). */
    static JedisAccess of(Pool<Jedis> pool) {
        return new JedisAccess() {
            @Override
            public Object evalsha(String sha1, List<String> keys, List<String> args) {
                try (Jedis j = pool.getResource()) {
                    return j.evalsha(sha1, keys, args);
                }
            }

            @Override
            public Object eval(String script, List<String> keys, List<String> args) {
                try (Jedis j = pool.getResource()) {
                    return j.eval(script, keys, args);
                }
            }

            @Override
            public <T> T pipelined(Function<AbstractPipeline, T> body) {
                try (Jedis j = pool.getResource(); Pipeline p = j.pipelined()) {
                    return body.apply(p);
                }
            }

            @Override
            public String info(String key, String section) {
                try (Jedis j = pool.getResource()) {
                    return j.info(section);
                }
            }

            @Override
            public void subscribe(JedisPubSub pubsub, String[] channels, Consumer<Connection> held) {
                try (Jedis j = pool.getResource()) {
                    held.accept(j.getConnection());
                    try {
                        j.subscribe(pubsub, channels);
                    } catch (RuntimeException | Error e) {
                        j.getConnection().setBroken(); // close() then hands it back as broken: destroyed
                        throw e;
                    } finally {
                        held.accept(null);
                    }
                }
            }

            @Override
            public void close() {
                pool.close();
            }

            @Override
            public UnifiedJedis cluster() {
                return null;
            }
        };
    }
}
