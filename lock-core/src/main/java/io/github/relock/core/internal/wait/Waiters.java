package io.github.relock.core.internal.wait;

import io.github.relock.api.ServerFallback;
import io.github.relock.core.internal.protocol.MessageWakes;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/*
 * Design: how waiters are woken.
 *
 * One Channel per channel per client, shared by every waiter of this client on that channel (blocked
 * threads and asynchronous waits alike), reference-counted. The first waiter subscribes the
 * channel on the driver's single pub/sub connection; the last one out unsubscribes it. Waiters
 * subscribe only after a failed attempt and attempt once more after the subscription is
 * confirmed, so an unlock between the first attempt and SUBSCRIBE is never missed.
 *
 * Wake-up: "0" (UNLOCK) wakes one parked waiter, or, when none is parked, banks the wake-up for the
 * next waiter about to park, which then attempts at once instead. "1" (READ_UNLOCK) and a pub/sub
 * reconnect wake every parked waiter and advance the entry's epoch: a waiter whose last attempt
 * was sent before that epoch does not park at all. "Poll a parked waiter, else bank" and "take a
 * banked wake-up (or see a newer epoch), else park" run under one per-entry lock, so a wake-up can
 * never fall between a waiter's check and its parking (the lost wake-up behind the 30-second
 * fair-lock stall of 7fcae35). A waiter that took a message and leaves without attempting passes
 * it on (Wait.finish).
 *
 * Safety net: nothing guarantees delivery (reconnects, other clients' pub/sub modes, expiry), so
 * every park is bounded by the TTL the last attempt returned; a lost message costs at most that.
 *
 * Cluster: Redisson 3.x publishes with PUBLISH, 4.x with SPUBLISH, and relock's scripts with both;
 * when the driver declares SHARDED_PUBSUB on a cluster each channel is subscribed both ways (one
 * entry, two subscriptions), so any of them wakes relock's waiters. A relock unlock then arrives
 * twice, and the two copies are one wake-up (Channel.heardOne): the first wakes the longest-parked
 * waiter; a copy heard the other way within a second is its twin and wakes no second waiter, so the
 * waiters of one client are still served in the order they parked. The pairing cannot tell a twin
 * from another release heard the other way (a Redisson 3 and a Redisson 4 unlock in quick
 * succession), so a twin is never dropped unless it is provably covered: the waiter the first copy
 * woke has not attempted yet (its attempt comes after the twin), or the first copy's banked wake-up
 * is still untaken; otherwise the twin goes to that same waiter (woken again if it parked, or owed
 * to its next park; once it has left, with the lock or without, the next waiter's: a lone copy's
 * waiter may have taken the lock and let it go, and the "twin" be a Redisson 4 unlock that only
 * this copy brings, kit rule 10.25). A copy that comes alone (the other
 * subscription is down, or a Redisson client published it) wakes as any message does.
 *
 * Counting (LockClient.stats): every join is one waiting call until its leave, and a spin lock's
 * waiter, which joins nothing, counts itself between spinWaitStarted and spinWaitEnded; so the
 * count is touched only by calls that found the lock busy, never on the uncontended path.
 *
 * Closing: every wait that may queue (all but a single try, whose attempt never queues) is in
 * `active` from before its first attempt until it has finished (queue left, offer settled), which
 * is what close() waits for. Counting from the first attempt, not from the first busy reply,
 * matters for the fair lock: that attempt queues the owner in Redis, so a wait whose attempt was
 * on its way when the client closed must still be there to send its give-up before the driver
 * closes. A wait adds itself, then checks the closed flag; close() sets the flag, then waits for
 * `active`: either close() sees the wait, or the wait sees the flag and sends nothing.
 *
 * Ordering: subscribe and unsubscribe of one channel are serialised by a striped ReentrantLock
 * (no synchronized: virtual threads must not pin), and a subscribe that follows an unsubscribe
 * still in flight is chained after it, so the driver always sees them in order.
 *
 * Thread-safety: safe for use by several threads.
 */
public final class Waiters implements MessageListener, ConnectionListener {
    private static final System.Logger LOG = System.getLogger(Waiters.class.getName());
    private static final int STRIPES = 64;

    private final CommandExecutor executor;
    /**
     * Cluster with sharded pub/sub: listen on both kinds (Redisson 3.x publishes classic, 4.x
     * sharded). Cleared for good once the server answers that it has no SSUBSCRIBE (Redis 6.2).
     */
    private volatile boolean alsoSharded;
    /** Told once per fallback (the client's events report each once): a server lacking a feature. */
    private final BiConsumer<ServerFallback, String> fallbacks;
    private final Map<String, Channel> entries = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> unsubscribing = new ConcurrentHashMap<>();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    /** Hears the sharded copies, so lock listeners can pair a release heard both ways. */
    private final MessageListener shardedEar = (channel, message) -> deliver(channel, message, true);
    /** Calls now waiting: joined entries plus spin waiters. */
    private final AtomicInteger waiting = new AtomicInteger();
    /** Every wait that may queue, from before its first attempt to its finish: what close() wakes and waits for. */
    private final Set<Wait> active = ConcurrentHashMap.newKeySet();
    /**
     * Lock waits whose caller left while they still ran, by lock and owner field, until they and
     * the give-backs they sent are over: that owner's next call on that lock starts after them.
     */
    private final Map<String, CompletableFuture<Void>> leaving = new ConcurrentHashMap<>();

    /**
     * @param executor the driver, for subscriptions
     * @param alsoSharded whether to subscribe every channel sharded too (a cluster with sharded pub/sub)
     */
    public Waiters(CommandExecutor executor, boolean alsoSharded) {
        this(executor, alsoSharded, (fallback, cause) -> { });
    }

    /**
     * @param executor the driver, for subscriptions
     * @param alsoSharded whether to subscribe every channel sharded too (a cluster with sharded pub/sub)
     * @param fallbacks told when the server lacks sharded pub/sub or refuses a subscription (the
     *     client reports each kind once)
     */
    public Waiters(CommandExecutor executor, boolean alsoSharded, BiConsumer<ServerFallback, String> fallbacks) {
        this.fallbacks = fallbacks;
        this.executor = executor;
        this.alsoSharded = alsoSharded;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    /** Joins (or creates and subscribes) a lock channel's entry; pair with {@link #leave(Channel)}. */
    Channel join(String channel) {
        return join(channel, MessageWakes.LOCK);
    }

    /**
     * Joins (or creates and subscribes) the channel's entry, whose messages wake waiters as
     * {@code wakes} says (the first joiner's; one channel serves one kind of synchronizer).
     */
    Channel join(String channel, MessageWakes wakes) {
        ReentrantLock lock = stripe(channel);
        lock.lock();
        try {
            Channel e = entries.get(channel);
            if (e == null) {
                CompletableFuture<Void> pending = unsubscribing.get(channel);
                CompletableFuture<Subscription> sub = pending == null
                        ? subscribe(channel)
                        : pending.handle((v, t) -> null).thenCompose(x -> subscribe(channel));
                e = new Channel(channel, sub, wakes);
                entries.put(channel, e);
            }
            e.refs++;
            waiting.incrementAndGet();
            return e;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Subscribes the channel classic, and on a cluster with sharded pub/sub also sharded; the
     * result unsubscribes both. If the classic one fails, the sharded one is undone and the result
     * fails; if only the sharded one fails, the waiters wait on the classic one.
     */
    private CompletableFuture<Subscription> subscribe(String channel) {
        CompletableFuture<Subscription> classic = executor.subscribe(channel, false, this);
        if (!alsoSharded) {
            return classic;
        }
        CompletableFuture<Subscription> sharded;
        try {
            sharded = executor.subscribe(channel, true, shardedEar);
        } catch (RuntimeException e) {
            sharded = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Subscription> shard = sharded;
        return classic.handle((c, ct) -> shard.handle((s, st) -> {
            if (ct == null && st == null) {
                return (Subscription) new Both(c, s);
            }
            if (ct == null) {
                // The classic ear works: relock's unlocks and Redisson 3's arrive on it; a Redisson 4
                // unlock missed meanwhile costs at most the TTL the waiter last saw.
                String missing = unknownCommand(st);
                if (missing != null) { // Redis 6.2: no SSUBSCRIBE at all; stop asking
                    alsoSharded = false;
                    fallbacks.accept(ServerFallback.CLASSIC_PUBSUB, missing);
                }
                LOG.log(System.Logger.Level.DEBUG, "sharded subscription to {0} failed; waiting on the classic one: {1}",
                        channel, st);
                return c;
            }
            if (s != null) {
                s.unsubscribe();
            }
            throw ct instanceof CompletionException ce ? ce : new CompletionException(ct);
        })).thenCompose(f -> f);
    }

    /**
     * @return the server's words when {@code failure} says it does not know the command (a server
     *     without the feature), else null
     */
    static String unknownCommand(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.toLowerCase(java.util.Locale.ROOT).contains("unknown command")) {
                return m;
            }
        }
        return null;
    }

    /**
     * A wait's subscription was refused (a permission error, a server or proxy without pub/sub):
     * the wait polls instead; reported once per client.
     *
     * @param channel the channel refused
     * @param cause the refusal
     */
    void subscriptionRefused(String channel, Throwable cause) {
        fallbacks.accept(ServerFallback.TTL_POLLING, "SUBSCRIBE " + channel + ": " + cause.getMessage());
    }

    /** A channel subscribed both ways. */
    private record Both(Subscription classic, Subscription sharded) implements Subscription {
        @Override
        public String channel() {
            return classic.channel();
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return CompletableFuture.allOf(classic.unsubscribe(), sharded.unsubscribe());
        }
    }

    /**
     * Listens to the channel's messages without waiting (a lock listener): shares the channel's
     * entry and subscription with its waiters, counts as no waiter. Pair with {@link #unobserve}.
     *
     * @return the entry observed
     */
    public Channel observe(String channel, Channel.Observer observer) {
        Channel e = join(channel);
        waiting.decrementAndGet();
        e.observers.add(observer);
        return e;
    }

    /** Stops observing; the last one out of the entry unsubscribes the channel. */
    public void unobserve(Channel e, Channel.Observer observer) {
        e.observers.remove(observer);
        waiting.incrementAndGet();
        leave(e);
    }

    /** Leaves the entry; the last one out unsubscribes the channel. */
    void leave(Channel e) {
        ReentrantLock lock = stripe(e.channel);
        lock.lock();
        try {
            waiting.decrementAndGet();
            if (--e.refs > 0) {
                return;
            }
            entries.remove(e.channel, e);
            CompletableFuture<Void> done = e.subscribed
                    .thenCompose(Subscription::unsubscribe)
                    .exceptionally(t -> null); // a failed subscribe has nothing to undo
            unsubscribing.put(e.channel, done);
            done.whenComplete((v, t) -> unsubscribing.remove(e.channel, done));
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return the channel's entry if it exists and its subscription is confirmed, else null; an
     *     entry, once removed, is never reused, so finding the same one after a later
     *     {@link #join} proves the subscription lived throughout
     */
    Channel subscribedChannel(String channel) {
        Channel e = channel == null ? null : entries.get(channel); // null: a lock type without pub/sub
        return e != null && e.subscribed.isDone() && !e.subscribed.isCompletedExceptionally() ? e : null;
    }

    /**
     * @return the entry of {@code channel} if this client has waiters on it, else null (a releaser
     *     that found nobody heard its release wakes one of them itself)
     */
    public Channel entry(String channel) {
        return channel == null ? null : entries.get(channel);
    }

    /** @return the number of channels with waiters (for stats, tests and leak checks) */
    public int activeChannels() {
        return entries.size();
    }

    /** @return the calls now waiting for a lock: joined on a channel, or spinning */
    public int waiting() {
        return waiting.get();
    }

    void spinWaitStarted() {
        waiting.incrementAndGet();
    }

    void spinWaitEnded() {
        waiting.decrementAndGet();
    }

    /** A wait that may queue is about to send its first attempt: close() waits for it from now on. */
    /** @return whether any wait whose caller left is not over (the common answer, no: nothing to look up) */
    boolean anyLeaving() {
        return !leaving.isEmpty();
    }

    /** @return the wait of owner-and-lock {@code key} whose caller left and that is not over, or null */
    CompletableFuture<Void> leavingWait(String key) {
        return leaving.get(key);
    }

    /** A wait of {@code key} whose caller left runs on until {@code over} completes. */
    void leaving(String key, CompletableFuture<Void> over) {
        leaving.put(key, over);
        if (over.isDone()) {
            leaving.remove(key, over);
        }
    }

    /** That wait and its give-backs are over: the owner's next call may go. */
    void over(String key, CompletableFuture<Void> over) {
        over.complete(null);
        leaving.remove(key, over);
    }

    void started(Wait w) {
        active.add(w);
    }

    /** The wait is over (its queue left, its offer settled): pairs with {@link #started}, once. */
    void finished(Wait w) {
        active.remove(w);
    }

    /**
     * Wakes every wait so it sees its client closed, then waits until each has finished: had the
     * reply to an attempt already sent, left its offer, its channel and, for a fair lock, its
     * queue (bounded by {@code timeoutNanos}).
     *
     * @return whether every wait finished in time
     */
    public boolean closeAll(long timeoutNanos) {
        active.forEach(Wait::wake);
        entries.values().forEach(Channel::wakeAll);
        long deadline = System.nanoTime() + timeoutNanos;
        while (!active.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                LOG.log(System.Logger.Level.WARNING, "{0} wait(s) had not finished when close() stopped waiting",
                        active.size());
                return false;
            }
            active.forEach(Wait::wake); // one that started meanwhile sees the client closed, too
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    /** @return a future completing when every unsubscribe in flight has completed */
    public CompletableFuture<Void> quiesced() {
        return CompletableFuture.allOf(unsubscribing.values().toArray(CompletableFuture[]::new));
    }

    @Override
    public void onMessage(String channel, String message) {
        deliver(channel, message, false);
    }

    private void deliver(String channel, String message, boolean sharded) {
        Channel e = entries.get(channel);
        if (e == null) {
            return;
        }
        int n = Math.min(e.wakes.wakes(message), e.refs); // never bank more wake-ups than it has waiters
        if (n == MessageWakes.ALL) {
            e.wakeAll();
        } else if (n == 0) {
            LOG.log(System.Logger.Level.DEBUG, "no waiter to wake for message ''{0}'' on {1}", message, channel);
        } else if (n == 1 && alsoSharded) {
            e.heardOne(message, sharded); // heard twice, classic and sharded: one wake-up
        } else {
            for (int i = 0; i < n; i++) {
                e.wakeOne();
            }
        }
        for (Channel.Observer o : e.observers) {
            o.message(message, sharded);
        }
    }

    @Override
    public void onReconnect() {
        LOG.log(System.Logger.Level.INFO, "pub/sub reconnected: {0} waiting channel(s) poll again", entries.size());
        entries.values().forEach(Channel::wakeAll);
    }

    private ReentrantLock stripe(String channel) {
        return stripes[(channel.hashCode() & 0x7fffffff) % STRIPES];
    }
}
