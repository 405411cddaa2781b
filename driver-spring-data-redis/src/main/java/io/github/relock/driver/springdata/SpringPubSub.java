package io.github.relock.driver.springdata;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;

/**
 * The executor's one pub/sub connection, taken from the application's factory while anything is
 * subscribed.
 *
 * <p>Design. A <em>session</em> ({@link PubSubSession}: one connection) reads for its whole life
 * on Jedis and returns at once on Lettuce, so it is started on a short-lived reader thread
 * {@code relock-sdr-pubsub-reader}; further channels join it. On Lettuce it goes through Spring's
 * subscription API ({@link SpringSession}); on Jedis through Jedis' own loop on a connection the
 * session owns and destroys at its end (now core's SessionPubSub over {@link JedisPubSubTransport}), so a pooled connection never
 * carries a pub/sub reply to another borrower. Every subscribe and unsubscribe runs in order on one control
 * thread {@code relock-sdr-pubsub}, which waits for Redis's confirmation (delivered to this object
 * as Spring's {@link SubscriptionListener}) before the next: futures complete on the confirmation,
 * on the thread that also delivers the channel's messages, so no message follows a completed
 * unsubscribe. When the last channel leaves, Redis ends the session (Jedis' reading loop stops at
 * zero channels) and the next subscribe opens a new one; no keep-alive channel is left behind.
 *
 * <p>Breaks. Lettuce reconnects and resubscribes by itself; Jedis' reading loop throws, and this
 * class opens a new session with every live channel (retrying with a growing delay). Either way
 * Redis confirms channels this class already had; once every live channel is confirmed again the
 * {@link ConnectionListener} is told. A subscribe whose confirmation the break swallowed fails
 * with {@link RedisUnavailableException} and is not resubscribed. On Jedis the control thread waits
 * for a subscribe's confirmation at most the command timeout; a subscribe not confirmed by then on
 * a connection still up (a network dropping packets for a while) stays pending, as in the Jedis
 * driver, until Redis confirms it or its connection breaks or ends.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class SpringPubSub implements org.springframework.data.redis.connection.MessageListener, SubscriptionListener {

    private static final System.Logger LOG = System.getLogger(SpringPubSub.class.getName());
    private static final long MAX_RETRY_MS = 1_000;

    private final PubSubSession.Opener sessions;
    private final Duration timeout;
    private final boolean blockingSubscribe;
    private final ScheduledThreadPoolExecutor control;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final ReentrantLock resubscribeLock = new ReentrantLock();
    private final Set<String> awaitingResubscribe = new HashSet<>();
    private volatile ConnectionListener connectionListener;
    private volatile boolean closed;

    // written on the control thread only; read by the reader to tell whether its session is current
    private volatile PubSubSession session;
    private volatile Thread reader;
    /** Channels Redis counts on the current session, from its last (un)subscribe confirmation. */
    private volatile long sessionCount;
    /** Completes at the current session's first confirmation, or when it ends. */
    private volatile CompletableFuture<Void> sessionReady = CompletableFuture.completedFuture(null);
    private long retryMs = 50;

    /**
     * @param blockingSubscribe whether the factory's {@code subscribe} holds the calling thread for the
     *     session's life (Jedis) rather than returning at once (Lettuce)
     */
    SpringPubSub(RedisConnectionFactory factory, Duration timeout, boolean blockingSubscribe) {
        // Jedis' classes are loaded only when a Jedis-backed factory opens its first session
        if (blockingSubscribe) {
            throw new IllegalArgumentException("Jedis-backed factories run on core's SessionPubSub");
        }
        this.sessions = sink -> new SpringSession(factory.getConnection(), sink);
        this.timeout = timeout;
        this.blockingSubscribe = blockingSubscribe;
        this.control = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "relock-sdr-pubsub");
            t.setDaemon(true);
            return t;
        });
        this.control.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    void setConnectionListener(ConnectionListener listener) {
        this.connectionListener = listener;
    }

    CompletableFuture<Subscription> subscribe(String name, MessageListener listener) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the executor is closed"));
        }
        Channel ch = new Channel(name, listener);
        Channel prior = channels.putIfAbsent(name, ch);
        if (prior != null) {
            if (prior.leaving) {
                // core unsubscribed it a moment ago: subscribe again once Redis confirmed that
                return prior.unsubscribed.thenCompose(v -> subscribe(name, listener));
            }
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "channel " + name + " is already subscribed on this executor"));
        }
        if (!submit(() -> doSubscribe(ch))) {
            channels.remove(name, ch);
            ch.subscribed.completeExceptionally(new IllegalStateException("the executor is closed"));
        }
        return ch.subscribed;
    }

    private CompletableFuture<Void> unsubscribe(Channel ch) {
        if (channels.get(ch.name) != ch || closed) {
            return CompletableFuture.completedFuture(null);
        }
        if (!ch.leaving) {
            ch.leaving = true;
            if (!submit(() -> doUnsubscribe(ch))) {
                gone(ch);
            }
        }
        return ch.unsubscribed.thenApply(v -> v);
    }

    private boolean submit(Runnable task) {
        try {
            control.execute(task);
            return true;
        } catch (RejectedExecutionException closedMeanwhile) {
            return false;
        }
    }

    // ------------------------------------------------------------------ control thread

    private void doSubscribe(Channel ch) {
        if (closed) {
            fail(ch, new IllegalStateException("the executor is closed"));
            return;
        }
        try {
            PubSubSession s = session;
            if (!usable(s)) {
                startSession(List.of(ch));
            } else {
                try {
                    ch.sentOn = s;
                    s.join(ch.raw);
                } catch (RuntimeException broken) {
                    if (!blockingSubscribe) {
                        throw broken;
                    }
                    // Jedis: the connection died and its reader has not said so yet. End the session
                    // (its reader then stays quiet) and take this channel along with the live ones.
                    endSession(s, List.of(ch));
                    resubscribe(ch);
                }
                if (!blockingSubscribe) {
                    // Lettuce's synchronous SUBSCRIBE returned, so Redis confirmed it
                    sessionCount = Math.max(sessionCount, 1);
                    ch.subscribed.complete(ch);
                }
            }
        } catch (RuntimeException e) {
            fail(ch, SpringErrors.translate(e, "SUBSCRIBE " + ch.name));
            return;
        }
        if (!awaitDone(ch.subscribed)) {
            Thread r = reader;
            if (blockingSubscribe && session != null && r != null && r.isAlive()) {
                // Jedis: the connection is up as far as anyone knows (a network that drops packets
                // for a while). As the Jedis driver does, the subscribe completes on Redis's
                // confirmation, or fails when the connection breaks or is replaced; meanwhile the
                // control thread goes on.
                LOG.log(System.Logger.Level.DEBUG, "SUBSCRIBE {0}: no confirmation within {1}; still waiting for it",
                        ch.name, timeout);
                return;
            }
            fail(ch, new RedisUnavailableException("SUBSCRIBE " + ch.name + ": Redis did not confirm within " + timeout));
        }
    }

    private void doUnsubscribe(Channel ch) {
        PubSubSession s = session;
        if (ch.unsubscribed.isDone()) {
            return;
        }
        if (!usable(s)) {
            gone(ch); // no connection, so nothing is subscribed
            return;
        }
        try {
            s.leave(ch.raw); // the last channel ends the session: nothing is sent on it after that
        } catch (RuntimeException e) {
            gone(ch);
            return;
        }
        if (!blockingSubscribe) {
            // Lettuce's synchronous UNSUBSCRIBE returns on Redis's confirmation, after the event
            // loop handed out the channel's earlier messages
            gone(ch);
            return;
        }
        if (!awaitDone(ch.unsubscribed)) {
            LOG.log(System.Logger.Level.WARNING, "UNSUBSCRIBE {0}: Redis did not confirm within {1}; "
                    + "treating the pub/sub connection as broken", ch.name, timeout);
            gone(ch);
            endSession(s, List.of());
            resubscribeAll(); // the other channels of that connection, if any, on a new one
        }
    }

    /** Opens a connection and subscribes {@code first} on a reader thread (Jedis blocks there). */
    private void startSession(List<Channel> first) {
        if (session != null) {
            endSession(session, first);
        }
        PubSubSession s = sessions.open(this);
        first.forEach(ch -> ch.sentOn = s);
        session = s;
        sessionCount = 0;
        sessionReady = new CompletableFuture<>();
        Thread t = new Thread(() -> read(s, first), "relock-sdr-pubsub-reader");
        t.setDaemon(true);
        reader = t;
        t.start();
    }

    private void read(PubSubSession s, List<Channel> first) {
        byte[][] raws = new byte[first.size()][];
        for (int i = 0; i < raws.length; i++) {
            raws[i] = first.get(i).raw;
        }
        RuntimeException failure = null;
        try {
            s.start(raws);
            if (!blockingSubscribe) {
                // Lettuce's synchronous SUBSCRIBE returned, so Redis confirmed them
                sessionCount = Math.max(sessionCount, first.size());
                sessionReady.complete(null);
                first.forEach(ch -> ch.subscribed.complete(ch));
                return; // Lettuce: its event loop delivers, and resubscribes after a break, from now on
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        if (closed || s != session || s.ended()) {
            return; // closed, replaced by a newer session, or ended on purpose: nothing here is current
        }
        if (failure != null) {
            sessionEnded(s, failure);
        } else {
            // Redis counted zero channels: the loop ended as it should; end the session (its connection goes)
            submit(() -> {
                if (session == s && !usable(s)) {
                    endSession(s, List.of());
                }
            });
        }
    }

    /** Reader thread: the session's connection stopped (a break, or Redis counted zero channels). */
    private void sessionEnded(PubSubSession s, RuntimeException failure) {
        sessionReady.complete(null);
        RedisUnavailableException lost = new RedisUnavailableException(
                "the pub/sub connection broke before Redis confirmed: " + (failure == null ? "session ended" : failure.getMessage()), failure);
        boolean live = false;
        for (Channel ch : channels.values()) {
            if (!ch.subscribed.isDone()) {
                fail(ch, lost);
            } else if (ch.leaving) {
                gone(ch);
            } else {
                live = true;
            }
        }
        boolean reconnect = live;
        submit(() -> {
            if (session == s) {
                endSession(s, List.of());
            }
            if (reconnect) {
                if (failure != null) {
                    LOG.log(System.Logger.Level.INFO, "pub/sub connection lost ({0}); resubscribing", failure.getMessage());
                }
                resubscribeAll();
            }
        });
    }

    private void resubscribeAll() {
        resubscribe(null);
    }

    /**
     * Opens a new session with every live channel and, unless null, {@code joining}: a subscribe
     * whose join found the session's connection dead. Retried with a growing delay while it fails;
     * the failure is also thrown when {@code joining} came along, so that its subscribe fails.
     */
    private void resubscribe(Channel joining) {
        if (closed || (joining == null && usable(session))) {
            return;
        }
        List<Channel> live = new ArrayList<>();
        for (Channel ch : channels.values()) {
            if (ch.subscribed.isDone() && !ch.subscribed.isCompletedExceptionally() && !ch.leaving) {
                live.add(ch);
            }
        }
        if (!live.isEmpty()) {
            resubscribeLock.lock();
            try {
                awaitingResubscribe.clear();
                live.forEach(ch -> awaitingResubscribe.add(ch.name));
            } finally {
                resubscribeLock.unlock();
            }
        } else if (joining == null) {
            return;
        }
        List<Channel> first = new ArrayList<>(live);
        if (joining != null) {
            first.add(joining);
        }
        try {
            startSession(first);
            if (joining == null) {
                awaitDone(sessionReady); // later subscribes join this session, not replace it
            }
            retryMs = 50;
        } catch (RuntimeException e) {
            if (!live.isEmpty()) {
                long delay = retryMs;
                retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
                LOG.log(System.Logger.Level.DEBUG, "resubscribe failed, retrying in {0} ms: {1}", delay, e.getMessage());
                try {
                    control.schedule(this::resubscribeAll, delay, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException closedMeanwhile) {
                    // closed: nothing to resubscribe
                }
            }
            if (joining != null) {
                throw e;
            }
        }
    }

    /**
     * Ends {@code s}; a subscribe still waiting for its confirmation there (except those in
     * {@code moving}, which go to the next session) will not get one, and fails.
     */
    private void endSession(PubSubSession s, List<Channel> moving) {
        s.end(); // on Jedis this also ends a reader still reading
        if (session == s) {
            for (Channel c : channels.values()) {
                if (c.sentOn == s && !c.subscribed.isDone() && !moving.contains(c)) {
                    fail(c, new RedisUnavailableException("SUBSCRIBE " + c.name
                            + ": the pub/sub connection ended before Redis confirmed"));
                }
            }
        }
        Thread r = reader;
        if (r != null && r != Thread.currentThread()) {
            try {
                r.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (session == s) {
            session = null;
            reader = null;
        }
    }

    /**
     * Whether more channels can join {@code s}: the session still has it subscribed, Redis counts a
     * channel on it (at zero Jedis' reading loop stops, and a SUBSCRIBE sent then would never be
     * read), and on Jedis its reader still runs.
     */
    private boolean usable(PubSubSession s) {
        if (s == null || s != session || !s.isSubscribed() || sessionCount <= 0) {
            return false;
        }
        Thread r = reader;
        return !blockingSubscribe || (r != null && r.isAlive());
    }

    private boolean awaitDone(CompletableFuture<?> f) {
        try {
            f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return f.isDone();
        }
    }

    private void fail(Channel ch, Throwable why) {
        channels.remove(ch.name, ch);
        ch.subscribed.completeExceptionally(why);
    }

    private void gone(Channel ch) {
        channels.remove(ch.name, ch);
        resubscribed(ch.name);
        ch.unsubscribed.complete(null);
    }

    // ------------------------------------------------------------------ reader / event-loop thread

    @Override
    public void onMessage(Message message, byte[] pattern) {
        String name = new String(message.getChannel(), StandardCharsets.UTF_8);
        Channel ch = channels.get(name);
        if (ch != null && !ch.unsubscribed.isDone()) {
            ch.listener.onMessage(name, new String(message.getBody(), StandardCharsets.UTF_8));
        }
    }

    @Override
    public void onChannelSubscribed(byte[] raw, long count) {
        sessionCount = count;
        sessionReady.complete(null);
        String name = new String(raw, StandardCharsets.UTF_8);
        Channel ch = channels.get(name);
        if (ch == null) {
            // confirmed after its subscribe had timed out: nobody listens, so take it back
            submit(() -> {
                PubSubSession s = session;
                if (!channels.containsKey(name) && usable(s)) {
                    s.leave(raw);
                }
            });
            return;
        }
        if (ch.heard.getAndIncrement() == 0) {
            // its first confirmation (on Lettuce the synchronous SUBSCRIBE may have returned first)
            ch.subscribed.complete(ch);
            return;
        }
        // a channel confirmed again: the client (Lettuce) or this class (Jedis) resubscribed after a break
        resubscribeLock.lock();
        try {
            if (awaitingResubscribe.isEmpty()) {
                for (Channel c : channels.values()) {
                    if (c.subscribed.isDone() && !c.leaving) {
                        awaitingResubscribe.add(c.name);
                    }
                }
            }
        } finally {
            resubscribeLock.unlock();
        }
        resubscribed(name);
    }

    @Override
    public void onChannelUnsubscribed(byte[] raw, long count) {
        sessionCount = count;
        if (raw == null) {
            return; // an UNSUBSCRIBE of everything on a connection with nothing subscribed
        }
        String name = new String(raw, StandardCharsets.UTF_8);
        Channel ch = channels.get(name);
        if (ch != null && ch.leaving) {
            gone(ch);
        }
    }

    private void resubscribed(String name) {
        boolean all;
        resubscribeLock.lock();
        try {
            all = awaitingResubscribe.remove(name) && awaitingResubscribe.isEmpty();
        } finally {
            resubscribeLock.unlock();
        }
        ConnectionListener l = connectionListener;
        if (all && l != null && !closed) {
            l.onReconnect();
        }
    }

    // ------------------------------------------------------------------ close

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        CompletableFuture<Void> ended = new CompletableFuture<>();
        if (submit(() -> {
            PubSubSession s = session;
            if (s != null) {
                endSession(s, List.of());
            }
            ended.complete(null);
        })) {
            awaitDone(ended);
        }
        control.shutdownNow();
        IllegalStateException closedNow = new IllegalStateException("the executor is closed");
        for (Channel ch : channels.values()) {
            ch.subscribed.completeExceptionally(closedNow);
            gone(ch);
        }
    }

    /** One channel this executor subscribes; also the {@link Subscription} handed to core. */
    private final class Channel extends ChannelSubscription {
        final CompletableFuture<Subscription> subscribed = new CompletableFuture<>();
        final CompletableFuture<Void> unsubscribed = new CompletableFuture<>();
        /** Confirmations Redis sent for it; a second one means a resubscription after a break. */
        final java.util.concurrent.atomic.AtomicInteger heard = new java.util.concurrent.atomic.AtomicInteger();
        volatile boolean leaving;
        /** The session its SUBSCRIBE went out on; written on the control thread. */
        volatile PubSubSession sentOn;

        Channel(String name, MessageListener listener) {
            super(name, listener);
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return SpringPubSub.this.unsubscribe(this);
        }

        @Override
        public String toString() {
            return "Subscription[" + name + "]";
        }
    }
}
