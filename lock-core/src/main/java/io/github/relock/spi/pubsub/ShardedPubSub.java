package io.github.relock.spi.pubsub;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Slots;
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

/**
 * Sharded pub/sub ({@code SSUBSCRIBE}) of one executor on a Redis Cluster: one
 * {@link SessionPubSub} per master node, each over the driver's {@link SessionTransport} to that
 * node (one connection and one reader thread {@code <threadPrefix><node>} per node that ever
 * carried a channel, every command carrying the channels of one hash slot), and this router on
 * top. The driver supplies only {@link Nodes}: which node serves a slot, how to make the client
 * reload its slot map, and a transport per node.
 *
 * <h2>Routing</h2>
 * A sharded channel lives on the master owning its slot. {@link #subscribe} asks
 * {@link Nodes#ownerOf} for that master and subscribes a <em>leg</em> on the node's multiplexer;
 * the caller's {@link Subscription} is this router's {@link Entry}, which outlives legs. A leg Redis
 * answers with a redirection ({@code MOVED}, {@code ASK}, {@code CLUSTERDOWN}, {@code TRYAGAIN}) is
 * routed again after a refresh, a few times; any other failure of a first subscribe fails its future
 * as the SPI says.
 *
 * <h2>Migration and failover</h2>
 * A node multiplexer hands back the confirmed channels the server dropped (a {@code sunsubscribe}
 * push when the slot moved, or the connection breaking) instead of reopening the node. The router
 * then, on its own daemon thread ({@code <threadPrefix>router}), refreshes the client's slot map
 * ({@link Nodes#refresh}), subscribes a new leg on the current owner and retries with a backoff (0,
 * 50, 100 ms ... to 2 s) for as long as the channel is wanted. When every lost channel is confirmed
 * again it calls {@link ConnectionListener#onReconnect()} once. Each routing attempt carries a
 * generation number, so a leg confirmed after its entry moved on (or was unsubscribed) is
 * unsubscribed, not used.
 *
 * <p>Thread-safety: safe for use by several threads; state is guarded by one
 * {@link java.util.concurrent.locks.ReentrantLock}, and no future is completed and no multiplexer is
 * called while it is held.
 *
 * @param <N> the driver's node token (e.g. host and port), with value equality
 */
public final class ShardedPubSub<N> implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ShardedPubSub.class.getName());
    private static final int MAX_FIRST_ATTEMPTS = 5;

    /**
     * What the router needs of the driver's cluster client.
     *
     * <p>Thread-safety: called from several threads (callers of subscribe, the router thread).
     *
     * @param <N> the node token, with value equality
     */
    public interface Nodes<N> {
        /**
         * @param slot a hash slot, 0 to 16383
         * @return the master serving {@code slot} now, from the client's slot map; never null
         * @throws RuntimeException when no node can be named ({@link RedisUnavailableException}
         *     preferred)
         */
        N ownerOf(int slot);

        /**
         * Makes the client reload its slot map for {@code channel}'s slot (e.g. a keyed read that
         * Redis redirects), before the router routes a channel again. By default nothing; a
         * failure is logged and ignored.
         */
        default void refresh(String channel) {
        }

        /** @return the transport whose links connect to {@code node} with the client's settings */
        SessionTransport transportTo(N node);
    }

    private final Nodes<N> nodeMap;
    private final String threadPrefix;
    private final String description;
    private final Duration stopTimeout;
    private final ScheduledThreadPoolExecutor router;
    private final DeferringLock lock = new DeferringLock();
    private volatile ConnectionListener connectionListener;

    // guarded by lock
    private final Map<String, Entry> wanted = new HashMap<>();
    private final Map<N, SessionPubSub> nodes = new HashMap<>();
    private final Set<String> lost = new HashSet<>();
    private boolean reconnecting;
    private boolean closed;

    /**
     * Starts no thread until a channel is subscribed.
     *
     * @param nodes the driver's view of the cluster
     * @param threadPrefix names the daemon threads: {@code <prefix><node>} per node reader,
     *     {@code <prefix>router} for the router
     * @param description the client, for messages (no password)
     * @param stopTimeout how long {@link #close()} waits for each thread
     */
    public ShardedPubSub(Nodes<N> nodes, String threadPrefix, String description, Duration stopTimeout) {
        this.nodeMap = Objects.requireNonNull(nodes, "nodes");
        this.threadPrefix = Objects.requireNonNull(threadPrefix, "threadPrefix");
        this.description = Objects.requireNonNull(description, "description");
        this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
        this.router = PubSubs.timer(threadPrefix + "router");
    }

    /** See {@link io.github.relock.spi.CommandExecutor#setConnectionListener}. */
    public void setConnectionListener(ConnectionListener listener) {
        this.connectionListener = listener;
    }

    /**
     * {@code SSUBSCRIBE channel} on its slot's master, as
     * {@link io.github.relock.spi.CommandExecutor#subscribe} describes.
     *
     * @param channel the channel
     * @param listener gets the channel's messages on a node's reader thread
     * @return completes when Redis confirmed; fails with {@link IllegalStateException} when closed
     *     or when the channel is subscribed already
     */
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        Objects.requireNonNull(channel, "channel must not be null");
        Objects.requireNonNull(listener, "listener must not be null");
        Entry e = new Entry(channel, listener);
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "cannot subscribe '" + channel + "': the executor for " + description + " is closed"));
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

    /** Subscribes a leg of {@code e} on the owner of its slot (refreshing the slot map first if asked). */
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
        N node;
        try {
            node = ownerOf(e.channel, refresh);
        } catch (RuntimeException ex) {
            legDone(e, gen, null, null, PubSubs.typed(ex, "finding the node of sharded channel '" + e.channel
                    + "' on " + description));
            return;
        }
        SessionPubSub mux;
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
        mux.subscribe(e.channel, (c, m) -> e.deliver(m)).whenComplete((s, err) -> {
            if (err != null) {
                leg.completeExceptionally(err);
            } else {
                leg.complete(s);
            }
        });
        leg.whenComplete((s, err) -> legDone(e, gen, node, s, err));
    }

    private SessionPubSub newNode(N node) {
        return new SessionPubSub(nodeMap.transportTo(node), threadPrefix + node,
                description + " (sharded pub/sub on " + node + ")", stopTimeout, Duration.ZERO, Duration.ZERO, true,
                channels -> lostOn(node, channels));
    }

    private N ownerOf(String channel, boolean refresh) {
        if (refresh) {
            try {
                nodeMap.refresh(channel);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "refreshing the slot of '" + channel + "' on " + description + ": " + e);
            }
        }
        N node = nodeMap.ownerOf(Slots.slot(channel));
        if (node == null) {
            throw new RedisUnavailableException("no node serves the slot of '" + channel + "' on " + description);
        }
        return node;
    }

    /** A leg's subscribe completed (any thread). */
    private void legDone(Entry e, int gen, N node, Subscription leg, Throwable err) {
        Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        boolean stale = false;
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
                    lock.defer(() -> e.subscribed.complete(e));
                }
                backLocked(e.channel);
            } else {
                e.pendingLeg = null;
                e.node = null;
                boolean retry = !closed && (e.confirmed
                        || (e.attempts < MAX_FIRST_ATTEMPTS && (redirected(cause) || cause instanceof IllegalStateException)));
                if (retry) {
                    retryDelay = PubSubs.backoffMs(e.attempts);
                    e.attempts++;
                } else {
                    wanted.remove(e.channel, e);
                    RuntimeException failure = PubSubs.typed(cause, "subscribing '" + e.channel + "'");
                    lock.defer(() -> e.subscribed.completeExceptionally(failure));
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
        if (retryDelay >= 0) {
            LOG.log(Level.DEBUG, "sharded channel '" + e.channel + "' on " + (node == null ? "?" : node)
                    + " not subscribed (" + cause + "); routing again in " + retryDelay + " ms");
            schedule(e, retryDelay);
        }
    }

    /** Under the lock: {@code channel} is back (or no longer wanted); tells core when it was the last one. */
    private void backLocked(String channel) {
        if (lost.remove(channel) && lost.isEmpty() && reconnecting) {
            reconnecting = false;
            ConnectionListener l = connectionListener;
            lock.defer(() -> PubSubs.tellReconnect(l, "sharded pub/sub of relock on " + description
                    + " is back; every channel is subscribed again"));
        }
    }

    private static boolean redirected(Throwable t) {
        String m = t instanceof RedisErrorException ? String.valueOf(t.getMessage()) : "";
        return m.contains("MOVED") || m.contains("ASK") || m.contains("CLUSTERDOWN") || m.contains("TRYAGAIN");
    }

    /** A node multiplexer dropped these confirmed channels (its reader thread, no lock held). */
    private void lostOn(N node, List<String> channels) {
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
                    "the executor for " + description + " is closed"));
        }
    }

    private CompletableFuture<Void> unsubscribe(Entry e) {
        Subscription leg;
        CompletableFuture<Subscription> pending;
        lock.lock();
        try {
            if (!e.requestUnsubscribe()) {
                return e.unsubscribed;
            }
            wanted.remove(e.channel, e);
            e.gen++;
            leg = e.leg;
            pending = e.pendingLeg;
            e.leg = null;
            e.pendingLeg = null;
            backLocked(e.channel); // the rest is back: waiters of other channels poll once
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
        done.whenComplete((v, x) -> e.finished());
        return e.unsubscribed;
    }

    /**
     * Unsubscribes everything, ends the router and every node's reader. Subscribes not confirmed
     * yet fail with {@link RedisUnavailableException}. Idempotent.
     */
    @Override
    public void close() {
        List<SessionPubSub> muxes;
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
        for (SessionPubSub m : muxes) {
            m.close();
        }
        for (Entry e : entries) {
            e.subscribed.completeExceptionally(new RedisUnavailableException(
                    "the executor for " + description + " was closed before Redis confirmed the subscription"));
        }
        try {
            if (!router.awaitTermination(stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(Level.WARNING, threadPrefix + "router for " + description + " did not end within " + stopTimeout);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "ShardedPubSub[" + description + "]";
    }

    /** One sharded channel as core sees it; its legs come and go with slot moves. */
    private final class Entry extends ChannelSubscription {
        // guarded by lock
        int gen;
        int attempts;
        boolean confirmed;
        N node;
        Subscription leg;
        CompletableFuture<Subscription> pendingLeg;

        Entry(String channel, MessageListener listener) {
            super(channel, listener);
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return ShardedPubSub.this.unsubscribe(this);
        }
    }
}
