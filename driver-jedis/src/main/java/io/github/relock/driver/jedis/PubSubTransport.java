package io.github.relock.driver.jedis;

import io.github.relock.api.RedisErrorException;
import io.github.relock.spi.pubsub.SessionPubSub;
import io.github.relock.spi.pubsub.SessionTransport;
import io.github.relock.spi.pubsub.ShardedPubSub;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.JedisShardedPubSub;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The Jedis half of relock's pub/sub; the bookkeeping (which channels are wanted, which command a
 * confirmation answers, reconnects with back-off, {@code onReconnect}, failing exactly the affected
 * futures, one hash slot per sharded command, routing by slot) is core's
 * {@link SessionPubSub} and {@link ShardedPubSub}. What is left here:
 * <ul>
 *   <li>{@link #classic}: a session is a {@link JedisPubSub} blocked in {@code SUBSCRIBE} on a
 *       connection of the client (its own connection provider, or one borrowed from a classic
 *       pool), given back when the last channel is gone and destroyed when the session ends in an
 *       error ({@link JedisAccess#subscribe}): a refused {@code SUBSCRIBE} leaves the connection
 *       subscribed to the other channels.</li>
 *   <li>{@link #sharded}: a session is a {@link ShardedLink} (or, where the driver cannot flush a
 *       connection itself, a {@link JedisShardedPubSub}) on a connection borrowed from the cluster
 *       client's pool for one node, marked broken when the session ends, so the pool never lends a
 *       connection that may still be in subscribed mode. A {@link ShardedLink} reads on after an
 *       error reply (one {@code SSUBSCRIBE} answered {@code MOVED}), failing only that command's
 *       channels; Jedis' own loop ends the whole session there.</li>
 *   <li>{@link #nodes}: the cluster client's slot owner (the {@code host:port} its slot cache maps
 *       the slot to, or else of the connection Jedis lends for the slot), a slot-cache refresh,
 *       and a sharded transport per node.</li>
 * </ul>
 * A session reports a Redis error reply ({@link JedisDataException}, e.g. an ACL refusing a
 * channel) as {@link RedisErrorException}; anything else Jedis throws passes unchanged and is taken
 * by core as the connection being unusable.
 *
 * <p>Thread-safety: stateless; the transports and node map it makes are immutable and shared, and
 * each link belongs to one session as {@link SessionTransport} says.
 */
final class PubSubTransport {
    /** The classic pub/sub reader thread. */
    static final String THREAD_NAME = "relock-jedis-pubsub";
    /** Sharded pub/sub threads: {@code <prefix><host:port>} per node reader, and {@link #ROUTER_THREAD}. */
    static final String SHARDED_THREAD_PREFIX = "relock-jedis-spubsub-";
    static final String ROUTER_THREAD = SHARDED_THREAD_PREFIX + "router";

    private PubSubTransport() {
    }

    /**
     * Classic pub/sub through the client's own connection provider, or a connection borrowed from
     * its pool. The link pings ({@code PING} in subscribed mode, answered by a pong) and is aborted
     * by closing its connection's socket, after marking it broken, where the driver holds that
     * connection ({@link JedisAccess#subscribe}).
     */
    static SessionTransport classic(JedisAccess client) {
        return events -> {
            JedisPubSub pubsub = new JedisPubSub() {
                @Override
                public void onSubscribe(String channel, int subscribedChannels) {
                    events.subscribed(channel);
                }

                @Override
                public void onUnsubscribe(String channel, int subscribedChannels) {
                    events.unsubscribed(channel);
                }

                @Override
                public void onMessage(String channel, String message) {
                    events.message(channel, message);
                }

                @Override
                public void onPong(String pattern) {
                    events.pong();
                }
            };
            HeldConnection conn = new HeldConnection();
            return link(initial -> client.subscribe(pubsub, initial, conn::hold),
                    channels -> conn.send(() -> pubsub.subscribe(channels)),
                    channels -> conn.send(() -> pubsub.unsubscribe(channels)),
                    () -> conn.send(() -> pubsub.unsubscribe()), () -> conn.ping(pubsub::ping), conn::abort);
        };
    }

    /**
     * The connection a classic session holds, and the guard on what is sent over it. A Jedis
     * {@code Connection} whose socket was closed opens a new one on the next send, without the
     * client's configuration: no {@code AUTH} (so as the {@code default} user, past an ACL that
     * refuses the channel), no name, and owned by nobody, so it stays subscribed after every client
     * is closed. So once the session broke its connection (a probe unanswered) or ended (the
     * connection went back or was discarded), a send fails as on a lost connection, and the reader
     * reconnects through the client. Thread-safety: its methods are atomic with each other.
     */
    private static final class HeldConnection {
        // a lock, not synchronized: a send writes to a socket, and a virtual thread that subscribes
        // must not pin its carrier while it does (JDK 21 to 23)
        private final ReentrantLock lock = new ReentrantLock();
        private Connection held; // guarded by lock
        private boolean ended; // guarded by lock

        void hold(Connection c) {
            lock.lock();
            try {
                if (c == null) {
                    ended = true; // the session ended: the connection is given back next
                }
                held = c;
            } finally {
                lock.unlock();
            }
        }

        void send(Runnable command) {
            lock.lock();
            try {
                if (ended || (held != null && held.isBroken())) {
                    throw new JedisConnectionException("the pub/sub connection is closed; the session is ending");
                }
                command.run();
            } finally {
                lock.unlock();
            }
        }

        /** @return false when the session reads a connection the driver does not hold, which it cannot break */
        boolean ping(Runnable ping) {
            lock.lock();
            try {
                if (held == null) {
                    return false;
                }
                send(ping);
                return true;
            } finally {
                lock.unlock();
            }
        }

        void abort() {
            lock.lock();
            try {
                breakConnection(held);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Marks {@code c} broken (a pool destroys it) and closes its socket, so that its reader throws. */
    static void breakConnection(Connection c) {
        if (c != null) {
            c.setBroken();
            c.disconnect();
        }
    }

    /**
     * Sharded pub/sub on one cluster node. Core sends the channels of one hash slot per command
     * (a cluster refuses mixed slots with {@code CROSSSLOT}), so the link passes them on as they come.
     *
     * @param node the node
     * @param borrow lends a connection to {@code node} from the client's pool
     */
    static SessionTransport sharded(HostAndPort node, Function<HostAndPort, Connection> borrow) {
        if (JedisVersions.flushes()) {
            return events -> new ShardedLink(node, borrow, events); // reads on after an error reply
        }
        return events -> {
            JedisShardedPubSub pubsub = new JedisShardedPubSub() {
                @Override
                public void onSSubscribe(String channel, int subscribedChannels) {
                    events.subscribed(channel);
                }

                @Override
                public void onSUnsubscribe(String channel, int subscribedChannels) {
                    events.unsubscribed(channel);
                }

                @Override
                public void onSMessage(String channel, String message) {
                    events.message(channel, message);
                }
            };
            return link(initial -> {
                Connection c = borrow.apply(node);
                try {
                    pubsub.proceed(c, initial);
                } finally {
                    c.setBroken(); // never back into the pool: it may still be subscribed
                    c.close();
                }
            }, pubsub::ssubscribe, pubsub::sunsubscribe, () -> pubsub.sunsubscribe(), () -> false, () -> { });
        };
    }

    /**
     * The cluster as {@link ShardedPubSub} sees it.
     *
     * @param cluster the cluster client (routes the slot-cache refresh)
     * @param slotNode a slot's master from the client's slot cache, without a borrow (null
     *     when the driver cannot read the cache)
     * @param slotConnection lends a connection to a slot's master from the client's pool: asked
     *     only when {@code slotNode} does not know the slot (the borrow renews the cache)
     * @param pools the client's connection pools by {@code host:port}
     * @param description the client, for messages
     */
    static ShardedPubSub.Nodes<HostAndPort> nodes(UnifiedJedis cluster, IntFunction<HostAndPort> slotNode,
                                                  IntFunction<Connection> slotConnection,
                                                  Supplier<Map<String, ConnectionPool>> pools, String description) {
        return new ShardedPubSub.Nodes<>() {
            @Override
            public HostAndPort ownerOf(int slot) {
                try {
                    HostAndPort cached = slotNode == null ? null : slotNode.apply(slot);
                    return cached != null ? cached : masterOf(slotConnection, slot);
                } catch (RuntimeException e) {
                    throw Errors.translate(e, "finding the master of slot " + slot + " on " + description);
                }
            }

            @Override
            public void refresh(String channel) {
                // A read routed by the channel's slot: a redirection or a dead node makes Jedis
                // reload its slot cache. EXISTS creates nothing.
                cluster.sendCommand(channel, Protocol.Command.EXISTS, channel);
            }

            @Override
            public SessionTransport transportTo(HostAndPort node) {
                return sharded(node, n -> {
                    ConnectionPool pool = pools.get().get(n.toString());
                    if (pool == null) {
                        throw new JedisConnectionException("the jedis cluster client does not know node " + n);
                    }
                    return pool.getResource();
                });
            }
        };
    }

    /**
     * @return the master serving {@code slot}, from Jedis' slot cache (a pooled connection of that
     *     node is borrowed and given back at once), or null when no node serves it
     */
    static HostAndPort masterOf(IntFunction<Connection> slotConnection, int slot) {
        try (Connection c = slotConnection.apply(slot)) {
            return c == null ? null : JedisVersions.hostAndPort(c);
        }
    }

    /**
     * A session's link over one Jedis pub/sub object. {@code run} blocks until the session ends; a
     * Redis error reply it throws becomes {@link RedisErrorException}, the rest passes.
     */
    private static SessionTransport.Link link(Consumer<String[]> run, Consumer<String[]> subscribe,
                                              Consumer<String[]> unsubscribe, Runnable unsubscribeAll,
                                              BooleanSupplier ping, Runnable abort) {
        return new SessionTransport.Link() {
            @Override
            public boolean ping() {
                return ping.getAsBoolean();
            }

            @Override
            public void abort() {
                abort.run();
            }

            @Override
            public void run(List<String> initial) {
                try {
                    run.accept(array(initial));
                } catch (JedisDataException e) {
                    throw new RedisErrorException(e.getMessage(), e);
                }
            }

            @Override
            public void subscribe(List<String> channels) {
                subscribe.accept(array(channels));
            }

            @Override
            public void unsubscribe(List<String> channels) {
                unsubscribe.accept(array(channels));
            }

            @Override
            public void unsubscribeAll() {
                unsubscribeAll.run();
            }
        };
    }

    private static String[] array(List<String> channels) {
        return channels.toArray(new String[0]);
    }
}
