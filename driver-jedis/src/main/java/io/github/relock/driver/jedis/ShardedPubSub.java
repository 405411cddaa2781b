package io.github.relock.driver.jedis;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.IntFunction;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Sharded pub/sub ({@code SSUBSCRIBE}) of one executor on a Redis Cluster: one
 * {@link PubSubMultiplexer} per master node, each with a sharded {@link PubSubTransport} (one
 * connection and one reader thread {@code relock-jedis-spubsub-<port>} per node that ever carried
 * a channel), and this router on top.
 *
 * <h2>Routing</h2>
 * A sharded channel lives on the master owning its slot. {@link #subscribe} asks the client's slot
 * cache for that master and subscribes a <em>leg</em> on the node's multiplexer; the caller's
 * {@link Subscription} is this router's {@link Entry}, which outlives legs. A leg Redis answers
 * with a redirection ({@code MOVED}, {@code CLUSTERDOWN}, ...) is routed again after a refresh, a
 * few times; any other failure of a first subscribe fails its future as the SPI says.
 *
 * <h2>Migration and failover</h2>
 * A node multiplexer hands back the confirmed channels the server dropped (a {@code sunsubscribe}
 * push when the slot moved, or the connection breaking) instead of reopening the node. The router
 * then, on its own daemon thread ({@value #ROUTER_THREAD}), refreshes the client's slot cache (a
 * keyed read that Redis redirects or that fails makes Jedis reload it), subscribes a new leg on the
 * current owner and retries with a backoff (0, 50, 100 ms ... to 2 s) for as long as the channel is
 * wanted. When every lost channel is confirmed again it calls
 * {@link ConnectionListener#onReconnect()} once. Each routing attempt carries a generation number,
 * so a leg confirmed after its entry moved on (or was unsubscribed) is unsubscribed, not used.
 *
 * <p>Thread-safety: safe for use by several threads; state is guarded by one
 * {@link ReentrantLock}, and no future is completed and no multiplexer is called while it is held.
 */
final class ShardedPubSub implements AutoCloseable {
    static final String THREAD_PREFIX = "relock-jedis-spubsub-";
    static final String ROUTER_THREAD = THREAD_PREFIX + "router";
    private static final System.Logger LOG = System.getLogger(ShardedPubSub.class.getName());
    private static final int MAX_FIRST_ATTEMPTS = 5;
    private static final long MAX_BACKOFF_MS = 2000;

    private final UnifiedJedis client;
    private final IntFunction<Connection> connectionForSlot;
    private final Function<HostAndPort, Connection> connectionForNode;
    private final String description;
    private final Duration stopTimeout;
    private final ScheduledThreadPoolExecutor router;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile ConnectionListener connectionListener;

    // guarded by lock
    private final Map<String, Entry> wanted = new HashMap<>();
    private final Map<HostAndPort, PubSubMultiplexer> nodes = new HashMap<>();
    private final Set<String> lost = new HashSet<>();
    private boolean reconnecting;
    private boolean closed;

    /**
     * @param client the cluster client (routes the slot-cache refresh)
     * @param connectionForSlot borrows a connection to the slot's master from the client's pool
     * @param connectionForNode borrows a connection to one node from the client's pool
     * @param description the client, for messages
     * @param stopTimeout how long {@link #close()} waits for each thread
     */
    ShardedPubSub(UnifiedJedis client, IntFunction<Connection> connectionForSlot,
                  Function<HostAndPort, Connection> connectionForNode, String description, Duration stopTimeout) {
        this.client = client;
        this.connectionForSlot = connectionForSlot;
        this.connectionForNode = connectionForNode;
        this.description = description;
        this.stopTimeout = stopTimeout;
        this.router = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, ROUTER_THREAD);
            t.setDaemon(true);
            return t;
        });
        this.router.setRemoveOnCancelPolicy(true);
    }

    void setConnectionListener(ConnectionListener listener) {
        this.connectionListener = listener;
    }

    /** {@code SSUBSCRIBE channel} on its slot's master; see {@link io.github.relock.spi.CommandExecutor#subscribe}. */
    CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        Objects.requireNonNull(channel, "channel must not be null");
        Objects.requireNonNull(listener, "listener must not be null");
        Entry e = new Entry(channel, listener);
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "cannot subscribe '" + channel + "': the jedis executor for " + description + " is closed"));
            }
            if (wanted.containsKey(channel)) {
                return CompletableFuture.failedFuture(new IllegalStateException("sharded channel '" + channel
                        + "' is already subscribed by this executor; unsubscribe it first (core subscribes a channel at most once)"));
            }
            wanted.put(channel, e);
        } finally {
            lock.unlock();
        }
        route(e, false);
        return e.subscribed;
    }

    /** Subscribes a leg of {@code e} on the owner of its slot (refreshing the slot cache first if asked). */
    private void route(Entry e, boolean refresh) {
        int gen;
        lock.lock();
        try {
            if (closed || e.unsubscribeRequested) {
                return;
            }
            gen = ++e.gen;
        } finally {
            lock.unlock();
        }
        HostAndPort node;
        try {
            node = ownerOf(e.channel, refresh);
        } catch (RuntimeException ex) {
            legDone(e, gen, null, null, Errors.translate(ex, "finding the node of sharded channel '" + e.channel
                    + "' on " + description));
            return;
        }
        PubSubMultiplexer mux;
        // Published before the SSUBSCRIBE goes out, so an unsubscribe racing with it waits for
        // the answer and removes the leg before it reports done.
        CompletableFuture<Subscription> leg = new CompletableFuture<>();
        lock.lock();
        try {
            if (closed || e.gen != gen) {
                return;
            }
            mux = nodes.computeIfAbsent(node, this::newNode);
            e.node = node;
            e.pendingLeg = leg;
        } finally {
            lock.unlock();
        }
        mux.subscribe(e.channel, (c, m) -> {
            if (!e.unsubscribeRequested) {
                e.listener.onMessage(c, m);
            }
        }).whenComplete((s, err) -> {
            if (err != null) {
                leg.completeExceptionally(err);
            } else {
                leg.complete(s);
            }
        });
        leg.whenComplete((s, err) -> legDone(e, gen, node, s, err));
    }

    private PubSubMultiplexer newNode(HostAndPort node) {
        return new PubSubMultiplexer(PubSubTransport.sharded(node, connectionForNode),
                channels -> lostOn(node, channels), description, stopTimeout);
    }

    private HostAndPort ownerOf(String channel, boolean refresh) {
        if (refresh) {
            try {
                // A read routed by the channel's slot: a redirection or a dead node makes Jedis
                // reload its slot cache. EXISTS creates nothing.
                client.sendCommand(channel, Protocol.Command.EXISTS, channel);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "refreshing the slot of '" + channel + "' on " + description + ": " + e);
            }
        }
        try (Connection c = connectionForSlot.apply(JedisClusterCRC16.getSlot(channel))) {
            if (c == null) {
                throw new JedisConnectionException("no node serves the slot of '" + channel + "'");
            }
            return JedisVersions.hostAndPort(c);
        }
    }

    /** A leg's subscribe completed (any thread). */
    private void legDone(Entry e, int gen, HostAndPort node, Subscription leg, Throwable err) {
        Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        boolean tellReconnect = false;
        boolean confirmNow = false;
        boolean stale = false;
        boolean failNow = false;
        long retryDelay = -1;
        lock.lock();
        try {
            if (e.gen != gen || e.unsubscribeRequested) {
                stale = true;
            } else if (cause == null) {
                e.pendingLeg = null;
                e.leg = leg;
                e.attempts = 0;
                if (!e.confirmed) {
                    e.confirmed = true;
                    confirmNow = true;
                }
                if (lost.remove(e.channel) && lost.isEmpty() && reconnecting) {
                    reconnecting = false;
                    tellReconnect = true;
                }
            } else {
                e.pendingLeg = null;
                e.node = null;
                boolean retry = !closed && (e.confirmed
                        || (e.attempts < MAX_FIRST_ATTEMPTS && (redirected(cause) || cause instanceof IllegalStateException)));
                if (retry) {
                    retryDelay = e.attempts == 0 ? 0 : Math.min(MAX_BACKOFF_MS, 50L << Math.min(e.attempts - 1, 10));
                    e.attempts++;
                } else {
                    wanted.remove(e.channel, e);
                    failNow = true;
                }
            }
        } finally {
            lock.unlock();
        }
        if (stale) {
            if (leg != null) {
                leg.unsubscribe(); // superseded or unsubscribed meanwhile: do not keep it on the server
            }
            return;
        }
        if (confirmNow) {
            e.subscribed.complete(e);
        }
        if (failNow) {
            e.subscribed.completeExceptionally(cause instanceof RuntimeException
                    ? cause : new RedisUnavailableException("subscribing '" + e.channel + "' failed: " + cause, cause));
        }
        if (retryDelay >= 0) {
            LOG.log(Level.DEBUG, "sharded channel '" + e.channel + "' on " + (node == null ? "?" : node)
                    + " not subscribed (" + cause + "); routing again in " + retryDelay + " ms");
            schedule(e, retryDelay);
        }
        if (tellReconnect) {
            tellReconnect();
        }
    }

    private static boolean redirected(Throwable t) {
        String m = t instanceof RedisErrorException ? String.valueOf(t.getMessage()) : "";
        return m.contains("MOVED") || m.contains("ASK") || m.contains("CLUSTERDOWN") || m.contains("TRYAGAIN");
    }

    /** A node multiplexer dropped these confirmed channels (its reader thread, no lock held). */
    private void lostOn(HostAndPort node, List<String> channels) {
        List<Entry> reroute = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            for (String c : channels) {
                Entry e = wanted.get(c);
                if (e == null || e.unsubscribeRequested || !node.equals(e.node)) {
                    continue;
                }
                e.gen++; // a leg still being confirmed for it is stale now
                e.leg = null;
                e.pendingLeg = null;
                e.node = null;
                lost.add(c);
                reconnecting = true;
                reroute.add(e);
            }
        } finally {
            lock.unlock();
        }
        if (!reroute.isEmpty()) {
            LOG.log(Level.WARNING, reroute.size() + " sharded channel(s) of relock on " + description + " dropped by "
                    + node + "; subscribing them on their current master");
        }
        for (Entry e : reroute) {
            schedule(e, 0);
        }
    }

    private void schedule(Entry e, long delayMs) {
        try {
            router.schedule(() -> route(e, true), delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closedMeanwhile) {
            e.subscribed.completeExceptionally(new IllegalStateException(
                    "the jedis executor for " + description + " is closed"));
        }
    }

    private void tellReconnect() {
        LOG.log(Level.INFO, "sharded pub/sub of relock on " + description + " is back; every channel is subscribed again");
        ConnectionListener l = connectionListener;
        if (l != null) {
            try {
                l.onReconnect();
            } catch (RuntimeException ex) {
                LOG.log(Level.WARNING, "ConnectionListener.onReconnect threw", ex);
            }
        }
    }

    private CompletableFuture<Void> unsubscribe(Entry e) {
        Subscription leg;
        CompletableFuture<Subscription> pending;
        boolean tellReconnect = false;
        lock.lock();
        try {
            if (e.unsubscribeRequested) {
                return e.unsubscribed;
            }
            e.unsubscribeRequested = true;
            wanted.remove(e.channel, e);
            e.gen++;
            leg = e.leg;
            pending = e.pendingLeg;
            e.leg = null;
            e.pendingLeg = null;
            if (lost.remove(e.channel) && lost.isEmpty() && reconnecting) {
                reconnecting = false;
                tellReconnect = true; // the rest is back: waiters of other channels poll once
            }
        } finally {
            lock.unlock();
        }
        CompletableFuture<Void> done;
        if (leg != null) {
            done = leg.unsubscribe();
        } else if (pending != null) {
            // a leg on its way: unsubscribe it once Redis answered, so nothing stays behind
            done = pending.handle((s, x) -> s).thenCompose(s -> s == null
                    ? CompletableFuture.<Void>completedFuture(null) : s.unsubscribe());
        } else {
            done = CompletableFuture.completedFuture(null);
        }
        done.whenComplete((v, x) -> {
            e.subscribed.complete(e); // subscribed, then unsubscribed: nothing failed
            e.unsubscribed.complete(null);
        });
        if (tellReconnect) {
            tellReconnect();
        }
        return e.unsubscribed;
    }

    /** Unsubscribes everything, ends the router and every node's reader. */
    @Override
    public void close() {
        List<PubSubMultiplexer> muxes;
        List<Entry> entries;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            muxes = new ArrayList<>(nodes.values());
            entries = new ArrayList<>(wanted.values());
        } finally {
            lock.unlock();
        }
        router.shutdownNow();
        for (PubSubMultiplexer m : muxes) {
            m.close();
        }
        for (Entry e : entries) {
            e.subscribed.completeExceptionally(new RedisUnavailableException(
                    "the jedis executor for " + description + " was closed before Redis confirmed the subscription"));
        }
        try {
            if (!router.awaitTermination(stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(Level.WARNING, ROUTER_THREAD + " for " + description + " did not end within " + stopTimeout);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    /** One sharded channel as core sees it; its legs come and go with slot moves. */
    private final class Entry implements Subscription {
        final String channel;
        final MessageListener listener;
        final CompletableFuture<Subscription> subscribed = new CompletableFuture<>();
        final CompletableFuture<Void> unsubscribed = new CompletableFuture<>();
        volatile boolean unsubscribeRequested; // written under lock
        // guarded by lock
        int gen;
        int attempts;
        boolean confirmed;
        HostAndPort node;
        Subscription leg;
        CompletableFuture<Subscription> pendingLeg;

        Entry(String channel, MessageListener listener) {
            this.channel = channel;
            this.listener = listener;
        }

        @Override
        public String channel() {
            return channel;
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return ShardedPubSub.this.unsubscribe(this);
        }

        @Override
        public String toString() {
            return "ShardedSubscription[" + channel + "]";
        }
    }
}
