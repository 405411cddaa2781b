package io.github.relock.core.internal;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/*
 * Design: how waiters are woken.
 *
 * One Entry per channel per client, shared by every waiter of this client on that channel (sync
 * threads and async continuations alike), reference-counted. The first waiter subscribes the
 * channel on the driver's single pub/sub connection; the last one out unsubscribes it. Waiters
 * subscribe only after a failed attempt and attempt once more after the subscription is
 * confirmed, so an unlock between the first attempt and SUBSCRIBE is never missed.
 *
 * Wake-up: "0" (UNLOCK) runs one queued async listener if there is one, else releases one permit
 * of the entry's semaphore (waking one blocked thread, or banking the permit for the next waiter).
 * "1" (READ_UNLOCK) and a pub/sub reconnect wake everyone: all listeners run and as many permits
 * are released as threads are queued, plus one for a thread about to block.
 *
 * Safety net: nothing guarantees delivery (reconnects, other clients' pub/sub modes, expiry), so
 * every wait is bounded by the TTL the last attempt returned; a lost message costs at most that.
 * An async waiter adds its listener and then checks for a banked permit, closing the window in
 * which a message arrived after its failed attempt but before its listener was queued.
 *
 * Cluster: Redisson 3.x publishes with PUBLISH, 4.x with SPUBLISH, and relock's scripts with both;
 * when the driver declares SHARDED_PUBSUB on a cluster each channel is subscribed both ways (one
 * entry, two subscriptions), so any of them wakes relock's waiters. A relock unlock then arrives
 * twice; the second "0" costs at most one extra attempt.
 *
 * Counting (LockClient.stats): every join is one waiting call until its leave, and a spin lock's
 * waiter, which joins nothing, counts itself between spinWaitStarted and spinWaitEnded; so the
 * count is touched only by calls that found the lock busy, never on the uncontended path.
 *
 * Ordering: subscribe and unsubscribe of one channel are serialised by a striped ReentrantLock
 * (no synchronized: virtual threads must not pin), and a subscribe that follows an unsubscribe
 * still in flight is chained after it, so the driver always sees them in order.
 */
final class Waiters implements MessageListener, ConnectionListener {
    private static final System.Logger LOG = System.getLogger(Waiters.class.getName());
    private static final int STRIPES = 64;

    /** The shared wait state of one channel. */
    static final class Entry {
        final String channel;
        final Semaphore latch = new Semaphore(0);
        final ConcurrentLinkedQueue<Runnable> listeners = new ConcurrentLinkedQueue<>();
        final CompletableFuture<Subscription> subscribed;
        int refs; // guarded by the channel's stripe lock

        Entry(String channel, CompletableFuture<Subscription> subscribed) {
            this.channel = channel;
            this.subscribed = subscribed;
        }

        /**
         * Serialises "run a queued listener, else bank a permit" (a wake-up) against "take a banked
         * permit, else queue a listener" (a waiter about to wait), so a wake-up can never fall
         * between a waiter's check and its queueing and be banked where that waiter never looks.
         * A ReentrantLock, not synchronized: a virtual thread must not pin here.
         */
        private final ReentrantLock handshake = new ReentrantLock();

        void wakeOne() {
            Runnable r;
            handshake.lock();
            try {
                r = listeners.poll();
                if (r == null) {
                    latch.release();
                }
            } finally {
                handshake.unlock();
            }
            if (r != null) {
                r.run();
            }
        }

        /**
         * A waiter about to wait: takes a wake-up banked before it got here, or else queues
         * {@code listener} so the next wake-up runs it, in one step against {@link #wakeOne}.
         *
         * @return true if a banked wake-up was taken (nothing was queued)
         */
        boolean takeBankedOrQueue(Runnable listener) {
            handshake.lock();
            try {
                if (latch.tryAcquire()) {
                    return true;
                }
                listeners.add(listener);
                return false;
            } finally {
                handshake.unlock();
            }
        }

        void wakeAll() {
            java.util.List<Runnable> woken = new java.util.ArrayList<>();
            handshake.lock();
            try {
                // Bounded: a listener that re-queues itself while running is woken by the next message.
                for (Runnable r; (r = listeners.poll()) != null; ) {
                    woken.add(r);
                }
                latch.release(latch.getQueueLength() + 1);
            } finally {
                handshake.unlock();
            }
            woken.forEach(Runnable::run);
        }
    }

    private final CommandExecutor executor;
    /** Cluster with sharded pub/sub: listen on both kinds (Redisson 3.x publishes classic, 4.x sharded). */
    private final boolean alsoSharded;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> unsubscribing = new ConcurrentHashMap<>();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    /** Calls now waiting: joined entries plus spin waiters. */
    private final AtomicInteger waiting = new AtomicInteger();

    Waiters(CommandExecutor executor, boolean alsoSharded) {
        this.executor = executor;
        this.alsoSharded = alsoSharded;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    /** Joins (or creates and subscribes) the channel's entry; pair with {@link #leave(Entry)}. */
    Entry join(String channel) {
        ReentrantLock lock = stripe(channel);
        lock.lock();
        try {
            Entry e = entries.get(channel);
            if (e == null) {
                CompletableFuture<Void> pending = unsubscribing.get(channel);
                CompletableFuture<Subscription> sub = pending == null
                        ? subscribe(channel)
                        : pending.handle((v, t) -> null).thenCompose(x -> subscribe(channel));
                e = new Entry(channel, sub);
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
            sharded = executor.subscribe(channel, true, this);
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
                LOG.log(System.Logger.Level.DEBUG, "sharded subscription to {0} failed; waiting on the classic one: {1}",
                        channel, st);
                return c;
            }
            if (s != null) {
                s.unsubscribe();
            }
            throw ct instanceof java.util.concurrent.CompletionException ce ? ce
                    : new java.util.concurrent.CompletionException(ct);
        })).thenCompose(f -> f);
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

    /** Leaves the entry; the last one out unsubscribes the channel. */
    void leave(Entry e) {
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
    Entry subscribedEntry(String channel) {
        Entry e = channel == null ? null : entries.get(channel); // null: a lock type without pub/sub
        return e != null && e.subscribed.isDone() && !e.subscribed.isCompletedExceptionally() ? e : null;
    }

    /** @return the number of channels with waiters (for tests and leak checks) */
    int activeChannels() {
        return entries.size();
    }

    /** @return the calls now waiting for a lock: joined on a channel, or spinning */
    int waiting() {
        return waiting.get();
    }

    /** A waiter without a channel (spin lock) starts waiting; pair with {@link #spinWaitEnded()}. */
    void spinWaitStarted() {
        waiting.incrementAndGet();
    }

    /** A waiter without a channel stops waiting. */
    void spinWaitEnded() {
        waiting.decrementAndGet();
    }

    /** Wakes every waiter (used on close, so they observe the closed client). */
    void wakeEveryone() {
        entries.values().forEach(Entry::wakeAll);
    }

    /** @return a future completing when every unsubscribe in flight has completed */
    CompletableFuture<Void> quiesced() {
        return CompletableFuture.allOf(unsubscribing.values().toArray(CompletableFuture[]::new));
    }

    @Override
    public void onMessage(String channel, String message) {
        Entry e = entries.get(channel);
        if (e == null) {
            return;
        }
        switch (message) {
            case "0" -> e.wakeOne();
            case "1" -> e.wakeAll();
            default -> LOG.log(System.Logger.Level.DEBUG, "ignoring message ''{0}'' on {1}", message, channel);
        }
    }

    @Override
    public void onReconnect() {
        LOG.log(System.Logger.Level.INFO, "pub/sub reconnected: {0} waiting channel(s) poll again", entries.size());
        wakeEveryone();
    }

    private ReentrantLock stripe(String channel) {
        return stripes[(channel.hashCode() & 0x7fffffff) % STRIPES];
    }
}
