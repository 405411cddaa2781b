package io.github.relock.driver.jedis;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * All pub/sub of one executor over <b>one</b> Jedis pub/sub connection, read by one daemon thread.
 * The same state machine serves classic pub/sub ({@link PubSubTransport#classic}, one per
 * executor) and sharded pub/sub on one cluster node ({@link PubSubTransport#sharded}, one per node,
 * owned by {@link ShardedPubSub}); only the transport differs, plus what happens to confirmed
 * channels the server drops (see <em>Failures</em>).
 *
 * <h2>Why it looks like this</h2>
 * Jedis pub/sub blocks the subscribing thread inside {@code UnifiedJedis.subscribe(JedisPubSub,
 * channels...)} (or {@code Jedis.subscribe} on a connection borrowed from a {@code JedisPool}) until
 * the connection has no channel left; it cannot start without a channel, and the connection goes
 * back to the client's pool when the last channel is gone. So the reader
 * thread ({@value #THREAD_NAME}) runs <em>sessions</em>: a session starts with every wanted
 * channel, other threads add and remove channels on the session's {@link JedisPubSub} while it
 * runs, and the session ends when the server's subscription count reaches zero. No private
 * keep-alive channel exists, so {@code PUBSUB CHANNELS} shows only what core subscribed, and an
 * executor with nothing subscribed holds no connection. The connection comes from the client's own
 * connection provider (its pool, its credentials, TLS, cluster node choice) and is never renamed.
 *
 * <h2>State (all guarded by {@link #lock})</h2>
 * <ul>
 *   <li>Per channel: the <em>wanted</em> subscription ({@code current}, or none), whether the
 *       server has it ({@code serverSubscribed}, as far as sent commands go) and a FIFO of commands
 *       sent and not yet confirmed, each carrying the futures its confirmation completes. Redis
 *       confirms each channel's commands in order, so the head of the FIFO is what a confirmation
 *       answers.</li>
 *   <li>The session: {@code IDLE} (no connection), {@code STARTING} (reader is opening it; nobody
 *       may send yet because Jedis has not attached the connection), {@code ACTIVE} (anyone may
 *       send, under the lock), {@code DRAINING} (the last channel's {@code UNSUBSCRIBE} is out; the
 *       session will end, so nothing more is sent on it), {@code CLOSED}.</li>
 * </ul>
 * Every change of what is wanted ends in {@link #reconcileLocked}: when {@code ACTIVE} it sends
 * the difference ({@code SUBSCRIBE} before {@code UNSUBSCRIBE}, so the count only reaches zero
 * when nothing is wanted); otherwise the reader does it when the session becomes {@code ACTIVE}
 * (first confirmation) or starts a new session when the old one ended.
 *
 * <h2>Failures</h2>
 * A broken connection ends the session with an exception. Unsubscribes in flight complete (the
 * connection is gone); subscriptions Redis had not confirmed yet fail with
 * {@link RedisUnavailableException} (or {@link RedisErrorException} when Redis refused them, e.g.
 * an ACL) and are dropped, so nobody waits on a server that is not there. The confirmed ones stay
 * wanted: the reader opens a new session with all of them after a backoff (0, 50, 100 ms ...
 * doubling to 2 s) and, once every one is confirmed again, calls
 * {@link ConnectionListener#onReconnect()}. With an {@code onLost} handler (sharded) the confirmed
 * channels are instead detached and handed to it, as are channels the server unsubscribes on its
 * own (a {@code sunsubscribe} push when a slot moves): their node may no longer own them, so the
 * handler routes them again. A silently dead network is noticed only when the
 * operating system reports the socket broken (Jedis sets no read timeout on pub/sub).
 *
 * <p>Thread-safety: safe for use by several threads. Listeners are called on the reader thread
 * without the lock held; sends from caller threads hold the lock (a {@link ReentrantLock}, so a
 * virtual thread never pins).
 */
final class PubSubMultiplexer implements AutoCloseable {
    static final String THREAD_NAME = "relock-jedis-pubsub";
    private static final System.Logger LOG = System.getLogger(PubSubMultiplexer.class.getName());
    private static final long MAX_BACKOFF_MS = 2000;

    private enum State { IDLE, STARTING, ACTIVE, DRAINING, CLOSED }

    private enum Kind { SUB, UNSUB }

    /** A command sent for one channel, waiting for its confirmation. */
    private static final class Op {
        final Kind kind;
        /** SUB: subscriptions to confirm; UNSUB: subscriptions whose unsubscribe it completes. */
        final List<SubscriptionImpl> subscriptions = new ArrayList<>(1);

        Op(Kind kind) {
            this.kind = kind;
        }
    }

    /** What this executor wants of one channel and what it has told the server. */
    private static final class ChannelState {
        SubscriptionImpl current;
        final List<SubscriptionImpl> retiring = new ArrayList<>(1);
        boolean serverSubscribed;
        final ArrayDeque<Op> inFlight = new ArrayDeque<>(2);

        boolean idle() {
            return current == null && retiring.isEmpty() && inFlight.isEmpty() && !serverSubscribed;
        }
    }

    private final PubSubTransport transport;
    /** Sharded transports: told (after the lock is released) of confirmed channels the server dropped. */
    private final Consumer<List<String>> onLost;
    private final String description;
    private final Duration stopTimeout;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wakeReader = lock.newCondition();
    /** Read without the lock by the reader to dispatch messages. */
    private final Map<String, SubscriptionImpl> listeners = new ConcurrentHashMap<>();
    private volatile ConnectionListener connectionListener;

    // guarded by lock
    private final Map<String, ChannelState> channels = new HashMap<>();
    /** Future completions collected under the lock, run after it is released (see {@link #unlock()}). */
    private final List<Runnable> deferred = new ArrayList<>();
    private State state = State.IDLE;
    private Session session;
    private Thread reader;
    private boolean reconnecting;
    private int failures;
    private long backoffUntilNanos;

    /**
     * @param client where pub/sub connections come from
     * @param description the client for messages
     * @param stopTimeout how long {@link #close()} waits for the reader to end
     */
    PubSubMultiplexer(JedisAccess client, String description, Duration stopTimeout) {
        this(PubSubTransport.classic(client), null, description, stopTimeout);
    }

    /**
     * @param transport classic or sharded pub/sub
     * @param onLost {@code null}: a broken connection is reopened on the same transport and
     *     {@link ConnectionListener#onReconnect()} is called; otherwise confirmed channels the
     *     server dropped (a {@code SUNSUBSCRIBE} push when their slot moved, or a broken
     *     connection) are detached from this multiplexer and handed to it, to subscribe elsewhere
     * @param description the client for messages
     * @param stopTimeout how long {@link #close()} waits for the reader to end
     */
    PubSubMultiplexer(PubSubTransport transport, Consumer<List<String>> onLost, String description, Duration stopTimeout) {
        this.transport = transport;
        this.onLost = onLost;
        this.description = onLost == null ? description : description + " (" + transport.describe() + ")";
        this.stopTimeout = stopTimeout;
    }

    void setConnectionListener(ConnectionListener listener) {
        this.connectionListener = listener;
    }

    /** Subscribes one channel; see {@link io.github.relock.spi.CommandExecutor#subscribe}. */
    CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        Objects.requireNonNull(channel, "channel must not be null");
        Objects.requireNonNull(listener, "listener must not be null");
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "cannot subscribe '" + channel + "': the jedis executor for " + description + " is closed"));
            }
            ChannelState cs = channels.computeIfAbsent(channel, c -> new ChannelState());
            if (cs.current != null) {
                return CompletableFuture.failedFuture(new IllegalStateException("channel '" + channel
                        + "' is already subscribed by this executor; unsubscribe it first (core subscribes a channel at most once)"));
            }
            SubscriptionImpl sub = new SubscriptionImpl(channel, listener);
            cs.current = sub;
            listeners.put(channel, sub);
            startReaderLocked();
            reconcileLocked();
            return sub.subscribed;
        } finally {
            unlock();
        }
    }

    private CompletableFuture<Void> unsubscribe(SubscriptionImpl sub) {
        lock.lock();
        try {
            if (sub.unsubscribeRequested) {
                return sub.unsubscribed;
            }
            sub.unsubscribeRequested = true;
            listeners.remove(sub.channel, sub); // no message reaches it from now on
            ChannelState cs = channels.get(sub.channel);
            if (cs == null || cs.current != sub || state == State.CLOSED) {
                finishUnsubscribe(sub);
                return sub.unsubscribed;
            }
            cs.current = null;
            cs.retiring.add(sub);
            reconcileLocked();
            return sub.unsubscribed;
        } finally {
            unlock();
        }
    }

    /** Sends what differs between wanted and server state, if a session can take commands now. */
    private void reconcileLocked() {
        if (state == State.IDLE) {
            wakeReader.signalAll();
        }
        if (state != State.ACTIVE) {
            // STARTING: no connection attached yet; DRAINING: the session is ending. The reader
            // reconciles when the next session is ACTIVE. Futures that can be settled already are.
            attachFuturesLocked();
            pruneLocked();
            return;
        }
        List<String> toSub = new ArrayList<>();
        List<String> toUnsub = new ArrayList<>();
        int remaining = 0;
        for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
            ChannelState cs = e.getValue();
            boolean wanted = cs.current != null;
            if (wanted && !cs.serverSubscribed) {
                toSub.add(e.getKey());
            } else if (!wanted && cs.serverSubscribed) {
                toUnsub.add(e.getKey());
            }
            if (wanted) {
                remaining++;
            }
        }
        Session s = session;
        try {
            if (!toSub.isEmpty()) {
                s.link.subscribe(toSub.toArray(new String[0]));
                for (String c : toSub) {
                    ChannelState cs = channels.get(c);
                    cs.serverSubscribed = true;
                    cs.inFlight.add(new Op(Kind.SUB));
                }
            }
            if (!toUnsub.isEmpty()) {
                if (remaining == 0) {
                    state = State.DRAINING; // the count will reach zero: Jedis ends the session
                }
                s.link.unsubscribe(toUnsub.toArray(new String[0]));
                for (String c : toUnsub) {
                    ChannelState cs = channels.get(c);
                    cs.serverSubscribed = false;
                    cs.inFlight.add(new Op(Kind.UNSUB));
                }
            }
        } catch (RuntimeException sendFailed) {
            // The connection broke under us; the reader sees it too, ends the session and
            // reconnects. Until then treat the session as ending.
            LOG.log(Level.DEBUG, "pub/sub send failed on " + description + "; the reader will reconnect", sendFailed);
            state = State.DRAINING;
        }
        attachFuturesLocked();
        pruneLocked();
    }

    /** Hangs pending futures on the command whose confirmation they wait for, or completes them. */
    private void attachFuturesLocked() {
        for (ChannelState cs : channels.values()) {
            Op last = cs.inFlight.peekLast();
            if (cs.current != null && !cs.current.confirmed && cs.serverSubscribed) {
                if (last != null && last.kind == Kind.SUB) {
                    if (!last.subscriptions.contains(cs.current)) {
                        last.subscriptions.add(cs.current);
                    }
                } else {
                    confirmSubscribed(cs.current); // the server had it already, confirmed
                }
            }
            if (!cs.retiring.isEmpty()) {
                if (last != null && last.kind == Kind.UNSUB) {
                    last.subscriptions.addAll(cs.retiring);
                } else if (!cs.serverSubscribed || cs.current != null) {
                    // the server keeps the channel for the new subscription, or never had it:
                    // the old listener is detached already, so it is done
                    cs.retiring.forEach(this::finishUnsubscribe);
                } else {
                    continue; // waits for an UNSUBSCRIBE the next ACTIVE session sends
                }
                cs.retiring.clear();
            }
        }
    }

    private void pruneLocked() {
        channels.values().removeIf(ChannelState::idle);
    }

    private void startReaderLocked() {
        if (reader == null) {
            reader = new Thread(this::readerLoop, transport.threadName());
            reader.setDaemon(true);
            reader.start();
        }
    }

    // ---------------------------------------------------------------- reader thread

    private void readerLoop() {
        while (true) {
            Session s;
            String[] initial;
            lock.lock();
            try {
                while (state != State.CLOSED && (wantedCountLocked() == 0 || System.nanoTime() < backoffUntilNanos)) {
                    if (wantedCountLocked() == 0) {
                        reconnecting = false; // nobody waits for channels: nothing to tell core
                        wakeReader.await();
                    } else {
                        wakeReader.awaitNanos(backoffUntilNanos - System.nanoTime());
                    }
                }
                if (state == State.CLOSED) {
                    return;
                }
                s = new Session();
                session = s;
                state = State.STARTING;
                List<String> wanted = new ArrayList<>();
                for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
                    ChannelState cs = e.getValue();
                    if (cs.current != null) {
                        wanted.add(e.getKey());
                        cs.serverSubscribed = true;
                        Op op = new Op(Kind.SUB);
                        cs.inFlight.add(op);
                    }
                }
                if (reconnecting) {
                    s.awaitingResubscribe.addAll(wanted);
                }
                attachFuturesLocked();
                initial = wanted.toArray(new String[0]);
            } catch (InterruptedException e) {
                return; // only close() interrupts, after setting CLOSED
            } finally {
                unlock();
            }

            RuntimeException failure = null;
            try {
                s.link.run(initial); // blocks until the session ends
            } catch (RuntimeException e) {
                failure = e;
            }
            sessionEnded(s, failure);
        }
    }

    private int wantedCountLocked() {
        int n = 0;
        for (ChannelState cs : channels.values()) {
            if (cs.current != null) {
                n++;
            }
        }
        return n;
    }

    private void sessionEnded(Session s, RuntimeException failure) {
        lock.lock();
        try {
            session = null;
            boolean closed = state == State.CLOSED;
            if (!closed) {
                state = State.IDLE;
            }
            if (failure != null && !closed) {
                // Subscriptions Redis never confirmed fail rather than wait for an unknown time:
                // an error reply (e.g. an ACL refusing the channel) or a connection that broke
                // or could not be opened. Confirmed ones are resubscribed after a reconnect.
                RuntimeException err = failure instanceof JedisDataException
                        ? new RedisErrorException(failure.getMessage(), failure)
                        : new RedisUnavailableException("subscribing on " + description + " failed: " + failure, failure);
                for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
                    ChannelState cs = e.getValue();
                    if (cs.current != null && !cs.current.confirmed) {
                        LOG.log(Level.DEBUG, "subscribing '" + e.getKey() + "' on " + description + " failed: " + failure);
                        listeners.remove(e.getKey(), cs.current);
                        failSubscribe(cs.current, err);
                        cs.current = null;
                    }
                }
            }
            // The server dropped every subscription with the connection: settle what was in flight.
            for (ChannelState cs : channels.values()) {
                cs.serverSubscribed = false;
                for (Op op : cs.inFlight) {
                    if (op.kind == Kind.UNSUB) { // its connection is gone, and the subscription with it
                        op.subscriptions.forEach(this::finishUnsubscribe);
                    }
                }
                cs.inFlight.clear(); // SUB futures stay with their subscriptions and are re-attached
                cs.retiring.forEach(this::finishUnsubscribe);
                cs.retiring.clear();
            }
            if (closed) {
                failPendingLocked();
                channels.clear();
                return;
            }
            if (failure != null && onLost != null) {
                // Sharded: the node may no longer own these channels (failover, node gone), so
                // hand them back to be routed again rather than reopening this node.
                List<String> lost = new ArrayList<>();
                for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
                    ChannelState cs = e.getValue();
                    if (cs.current != null) {
                        listeners.remove(e.getKey(), cs.current);
                        cs.current = null;
                        lost.add(e.getKey());
                    }
                }
                if (!lost.isEmpty()) {
                    deferred.add(() -> onLost.accept(lost));
                }
            }
            pruneLocked();
            if (failure == null) {
                failures = 0;
                backoffUntilNanos = 0;
                reconnecting = false; // the count reached zero: no channel is left to re-poll
            } else {
                boolean anyWanted = wantedCountLocked() > 0;
                // once per outage, not once per retry
                LOG.log(anyWanted && failures == 0 ? Level.WARNING : Level.DEBUG, "pub/sub connection of relock on "
                        + description + " lost (" + failure + ")" + (anyWanted ? "; reconnecting" : ""));
                reconnecting = reconnecting || anyWanted;
                long delay = failures == 0 ? 0 : Math.min(MAX_BACKOFF_MS, 50L << Math.min(failures - 1, 10));
                failures++;
                backoffUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
            }
        } finally {
            unlock();
        }
    }

    /** Reader thread, inside a Jedis callback: the server confirmed one SUBSCRIBE. */
    private void onSubscribed(Session s, String channel) {
        boolean tellReconnect = false;
        lock.lock();
        try {
            if (s != session) {
                return;
            }
            ChannelState cs = channels.get(channel);
            Op op = cs == null ? null : cs.inFlight.poll();
            if (op != null) {
                op.subscriptions.forEach(this::confirmSubscribed);
            }
            if (s.awaitingResubscribe.remove(channel) && s.awaitingResubscribe.isEmpty() && reconnecting) {
                reconnecting = false;
                tellReconnect = true;
            }
            if (state == State.STARTING) {
                state = State.ACTIVE; // Jedis has attached the connection: others may send now
                failures = 0;
                reconcileLocked();
            } else if (state == State.CLOSED) {
                s.link.unsubscribeAll();
            } else {
                pruneLocked();
            }
        } finally {
            unlock();
        }
        if (tellReconnect) {
            LOG.log(Level.INFO, "pub/sub connection of relock on " + description + " is back; every channel is subscribed again");
            ConnectionListener l = connectionListener;
            if (l != null) {
                try {
                    l.onReconnect();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "ConnectionListener.onReconnect threw", e);
                }
            }
        }
    }

    /** Reader thread, inside a Jedis callback: the server confirmed one UNSUBSCRIBE. */
    private void onUnsubscribed(Session s, String channel) {
        List<String> lost = null;
        lock.lock();
        try {
            if (s != session || channel == null) {
                return;
            }
            ChannelState cs = channels.get(channel);
            Op head = cs == null ? null : cs.inFlight.peek();
            if (onLost != null && cs != null && (head == null || head.kind != Kind.UNSUB)) {
                // Not an answer to our SUNSUBSCRIBE: the server dropped the channel itself (its
                // slot moved away). Redis answers in order, so no command of ours is lost with it.
                cs.serverSubscribed = false;
                cs.retiring.forEach(this::finishUnsubscribe);
                cs.retiring.clear();
                if (cs.current != null && cs.current.confirmed && head == null) {
                    listeners.remove(channel, cs.current);
                    cs.current = null;
                    lost = List.of(channel);
                }
            } else {
                Op op = cs == null ? null : cs.inFlight.poll();
                if (op != null) {
                    op.subscriptions.forEach(this::finishUnsubscribe);
                }
            }
            pruneLocked();
            if (lost != null) {
                List<String> l = lost;
                deferred.add(() -> onLost.accept(l));
            }
        } finally {
            unlock();
        }
    }

    private void onMessage(String channel, String message) {
        SubscriptionImpl sub = listeners.get(channel);
        if (sub != null) {
            try {
                sub.listener.onMessage(channel, message);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "MessageListener for channel '" + channel + "' threw", e);
            }
        }
    }

    /** Under the lock: completes {@code sub}'s subscribe future once the lock is released. */
    private void confirmSubscribed(SubscriptionImpl sub) {
        sub.confirmed = true;
        deferred.add(() -> sub.subscribed.complete(sub));
    }

    /** Under the lock: completes {@code sub}'s unsubscribe (and a still pending subscribe) after. */
    private void finishUnsubscribe(SubscriptionImpl sub) {
        sub.confirmed = true;
        deferred.add(() -> {
            sub.subscribed.complete(sub); // subscribed, then unsubscribed: nothing failed
            sub.unsubscribed.complete(null);
        });
    }

    private void failSubscribe(SubscriptionImpl sub, RuntimeException e) {
        deferred.add(() -> sub.subscribed.completeExceptionally(e));
    }

    /**
     * Releases the lock, then completes the futures collected under it: their dependants (core's
     * callbacks) may subscribe or unsubscribe again, which must not happen while this class is
     * half-way through a change.
     */
    private void unlock() {
        List<Runnable> run = null;
        if (lock.getHoldCount() == 1 && !deferred.isEmpty()) {
            run = new ArrayList<>(deferred);
            deferred.clear();
        }
        lock.unlock();
        if (run != null) {
            for (Runnable r : run) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "a subscription callback threw", e);
                }
            }
        }
    }

    private void failPendingLocked() {
        for (ChannelState cs : channels.values()) {
            if (cs.current != null && !cs.current.confirmed) {
                failSubscribe(cs.current, new RedisUnavailableException(
                        "the jedis executor for " + description + " was closed before Redis confirmed the subscription"));
            }
            cs.retiring.forEach(this::finishUnsubscribe);
        }
        listeners.clear();
    }

    /** Ends the session (unsubscribing everything) and the reader; waits for the reader to end. */
    @Override
    public void close() {
        Thread t;
        lock.lock();
        try {
            if (state == State.CLOSED) {
                t = reader;
            } else {
                State was = state;
                state = State.CLOSED;
                t = reader;
                if (was == State.ACTIVE && session != null) {
                    try {
                        session.link.unsubscribeAll(); // the session ends cleanly; the connection goes back
                    } catch (RuntimeException e) {
                        LOG.log(Level.DEBUG, "unsubscribe on close failed", e);
                    }
                }
                // STARTING: the first confirmation sees CLOSED and unsubscribes; DRAINING ends by itself
                failPendingLocked();
                if (session == null) {
                    channels.clear();
                }
                wakeReader.signalAll();
            }
        } finally {
            unlock();
        }
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        try {
            t.join(stopTimeout.toMillis());
            if (t.isAlive()) {
                t.interrupt(); // a pool borrow or connect may still be blocking
                t.join(stopTimeout.toMillis());
                if (t.isAlive()) {
                    LOG.log(Level.WARNING, transport.threadName() + " for " + description + " did not end within "
                            + stopTimeout.multipliedBy(2) + "; it is a daemon thread and ends with its connection");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One Jedis pub/sub session; its callbacks are tagged with it so a stale one is ignored. */
    private final class Session {
        final Set<String> awaitingResubscribe = new HashSet<>();
        final PubSubTransport.Link link = transport.newLink(new PubSubTransport.Events() {
            @Override
            public void subscribed(String channel) {
                onSubscribed(Session.this, channel);
            }

            @Override
            public void unsubscribed(String channel) {
                onUnsubscribed(Session.this, channel);
            }

            @Override
            public void message(String channel, String message) {
                PubSubMultiplexer.this.onMessage(channel, message);
            }
        });
    }

    /** A channel subscription handed to core. */
    private final class SubscriptionImpl implements Subscription {
        final String channel;
        final MessageListener listener;
        final CompletableFuture<Subscription> subscribed = new CompletableFuture<>();
        final CompletableFuture<Void> unsubscribed = new CompletableFuture<>();
        boolean unsubscribeRequested; // guarded by lock
        boolean confirmed; // guarded by lock: its subscribe future is (being) completed normally

        SubscriptionImpl(String channel, MessageListener listener) {
            this.channel = channel;
            this.listener = listener;
        }

        @Override
        public String channel() {
            return channel;
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return PubSubMultiplexer.this.unsubscribe(this);
        }

        @Override
        public String toString() {
            return "Subscription[" + channel + "]";
        }
    }
}
