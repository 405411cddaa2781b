package io.github.relock.core.internal.lock;

import io.github.relock.api.LockListener;
import io.github.relock.core.internal.protocol.LockState;
import io.github.relock.core.internal.wait.Channel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/*
 * Design: lock listeners (DistributedLock.addListener), built on the lock's own channel and its TTL
 * rather than on keyspace notifications, so they need no server configuration and work on a
 * cluster (the channel is routed as waiters' channels are).
 *
 * One Watch per listener. It observes the lock's channel (sharing the client's subscription with
 * its waiters). A release that frees the lock, or a force unlock, publishes there: that is a
 * deletion, reported at once. On a cluster relock's scripts publish each release twice, classic
 * and sharded, and the client listens both ways, so a message heard one way within PAIR_NANOS of
 * an unpaired one heard the other way is the same release; two releases are never merged, however
 * close (Redisson 3 publishes classic only and Redisson 4 sharded only: theirs pair with nothing).
 * The watch also keeps an expectation, the moment the lock's TTL as last read runs out, and checks
 * then: the lock's state is read (one script). Found gone while last seen held: at or after the
 * expected moment the key expired, reported at once; before it, it was deleted, and the release's
 * message (which a read's reply may overtake) reports it, or, if no message comes within a
 * second, the read does. Each is reported once per time the lock was seen held. Found held: the new TTL sets the next check (a
 * renewed lock is checked again at its new TTL); a read sent before a release was heard is stale
 * and does not count as seeing it held. Found free: checked again a third of a watchdog timeout
 * later, to learn of a new holder's TTL. The fair lock's release publishes only on its queue
 * head's own channel, and the spin lock's nowhere, so their watches subscribe nothing and read the
 * state every POLL_NANOS, held or free, to tell a release from an expiry (a hold shorter than
 * that, by another client, may go unheard); the listening client's own releases of these are
 * reported at once (freed); a poll that finds one gone while a release of this client is in
 * flight (ownRelease) leaves the report to that release's outcome: freed reports it, and a release
 * that freed nothing hands the finding to the grace period, so one release is one event however
 * late its reply. So a listened lock costs one state read per TTL period (every 20-30 s
 * under the watchdog; every second for fair and spin locks), one per release message, and one per
 * 10 s while it is free. The listening client's own acquisitions are read at once (taken), so
 * its short leases are heard expiring; another client's lease shorter than the idle check, taken
 * and run out while the watch waits, may go unheard.
 *
 * addListener returns once the channel's subscription is in place (at most the subscription
 * timeout), so every release after it returns is heard.
 *
 * Events are delivered on the client's timer thread, never a driver's pub/sub thread.
 *
 * Thread-safety: safe for use by several threads; a watch's checks run one at a time.
 */
final class LockWatches {
    private static final System.Logger LOG = System.getLogger(LockWatches.class.getName());
    /** Gone this close to the expected expiry (or later) counts as expired, not deleted. */
    private static final long EXPIRY_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final AtomicInteger IDS = new AtomicInteger();
    /**
     * A message heard one way (classic or sharded) within this long of an unpaired one heard the
     * other way is the same release: on a cluster relock's scripts publish both, and the client
     * listens to both.
     */
    private static final long PAIR_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long a deletion found by a read waits for its release's message before it is reported without it. */
    private static final long MESSAGE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How often a watch reads a held lock whose release publishes nothing on its channel. */
    private static final long POLL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<Integer, Watch> watches = new ConcurrentHashMap<>();

    /**
     * This client freed lock {@code name} (a release, or a force unlock): its own listeners of
     * that name hear it at once if the lock type publishes no release they could hear (fair and
     * spin locks); the others hear the release's message, as every other client's listeners do.
     */
    void freed(String name) {
        for (Watch w : watches.values()) {
            if (w.quietReleases && w.lock.name.equals(name)) {
                w.released();
            }
        }
    }

    /**
     * This client is about to send a release (or force unlock) of lock {@code name}: until the
     * returned action runs, after the outcome is applied, a poll of a lock that publishes no
     * release and finds it gone leaves the report to that outcome (freed, or else the grace
     * period), so one release is never reported twice.
     *
     * @return what to run once the release's outcome is applied, whatever it was
     */
    Runnable ownRelease(String name) {
        if (watches.isEmpty()) {
            return () -> { };
        }
        List<Watch> quiet = new ArrayList<>();
        for (Watch w : watches.values()) {
            if (w.quietReleases && w.lock.name.equals(name)) {
                w.ownReleaseStarted();
                quiet.add(w);
            }
        }
        if (quiet.isEmpty()) {
            return () -> { };
        }
        return () -> quiet.forEach(Watch::ownReleaseSettled);
    }

    /**
     * This client acquired lock {@code name}: its own listeners of that name read the new hold's
     * TTL now, so even a lease shorter than their idle check is heard expiring.
     */
    void taken(String name) {
        if (watches.isEmpty()) {
            return;
        }
        for (Watch w : watches.values()) {
            if (w.lock.name.equals(name)) {
                w.check();
            }
        }
    }

    int add(RedisLock lock, LockListener listener) {
        lock.services.ensureOpen();
        Watch w = new Watch(lock, listener);
        int id = IDS.incrementAndGet();
        watches.put(id, w);
        w.start();
        return id;
    }

    /**
     * {@link #add} without blocking: completes with the id once the channel's subscription is in
     * place (or its timeout ran out, as {@link #add} returns then too); a closed client fails it.
     */
    CompletableFuture<Integer> addAsync(RedisLock lock, LockListener listener) {
        try {
            lock.services.ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        Watch w = new Watch(lock, listener);
        int id = IDS.incrementAndGet();
        watches.put(id, w);
        return w.startAsync().thenApply(v -> id);
    }

    void remove(int id) {
        Watch w = watches.remove(id);
        if (w != null) {
            w.stop();
        }
    }

    /** One listener's watch over one lock. */
    private static final class Watch {
        final RedisLock lock;
        final LockListener listener;
        final Channel.Observer onMessage = this::heard;
        final boolean quietReleases;
        final AtomicInteger checks = new AtomicInteger();
        volatile Channel channel;
        volatile boolean stopped;
        volatile ScheduledFuture<?> next;
        // touched by one check at a time
        volatile boolean seenHeld;
        volatile long expectedGoneNanos;

        Watch(RedisLock lock, LockListener listener) {
            this.lock = lock;
            this.listener = listener;
            this.quietReleases = lock.protocol.handsOffToQueueHead() || lock.protocol.waitChannel(lock.field(0)) == null;
        }

        /** @return the channel every release of this lock publishes on, or null (fair and spin locks have none) */
        String releaseChannel() {
            return quietReleases ? null : lock.protocol.waitChannel(lock.field(0));
        }

        /** Releases heard so far: a state read sent before the latest one is stale. */
        private final AtomicLong releases = new AtomicLong();
        /** This client's releases of the lock in flight (counted for quiet locks only). */
        private final AtomicInteger ownReleases = new AtomicInteger();
        /** Releases heard when a poll found a quiet lock gone, not yet reported; -1 for none. */
        private final AtomicLong goneUnreported = new AtomicLong(-1);
        private final ReentrantLock pairing = new ReentrantLock();
        private final ArrayDeque<Long> unpairedClassic = new ArrayDeque<>(); // guarded by pairing
        private final ArrayDeque<Long> unpairedSharded = new ArrayDeque<>(); // guarded by pairing

        /** A message on the lock's channel: a release or force unlock, unless it is a copy of one heard the other way. */
        void heard(String payload, boolean sharded) {
            if (firstCopy(sharded, System.nanoTime())) {
                released();
            }
        }

        /** @return false if the message pairs with an unpaired one heard the other way (one release, published twice) */
        private boolean firstCopy(boolean sharded, long now) {
            pairing.lock();
            try {
                ArrayDeque<Long> other = sharded ? unpairedClassic : unpairedSharded;
                ArrayDeque<Long> mine = sharded ? unpairedSharded : unpairedClassic;
                drop(other, now);
                drop(mine, now);
                if (!other.isEmpty()) {
                    other.pollFirst();
                    return false;
                }
                mine.addLast(now);
                return true;
            } finally {
                pairing.unlock();
            }
        }

        private static void drop(ArrayDeque<Long> heard, long now) {
            while (!heard.isEmpty() && now - heard.peekFirst() > PAIR_NANOS) {
                heard.pollFirst();
            }
        }

        /** A release or force unlock published on the lock's channel, or made by this client: it was deleted. */
        void released() {
            releases.incrementAndGet();
            deliver(false);
            check(); // and learn who holds it next
        }

        /**
         * Observes the lock's channel and returns once the subscription is in place (or has failed,
         * or the subscription timeout ran out), so a release after addListener returns is heard.
         */
        void start() {
            String ch = releaseChannel();
            if (ch != null) {
                Channel c = lock.services.waiters().observe(ch, onMessage);
                channel = c;
                awaitSubscribed(c);
            }
            check();
        }

        /**
         * {@link #start} without blocking. The subscription may settle on a driver's pub/sub
         * thread, where no call may be sent (a driver may run it on that thread and wait for a
         * reply only that thread can read): the first read, and the caller's future, run on the
         * client's timer.
         */
        CompletableFuture<Void> startAsync() {
            CompletableFuture<Void> started = new CompletableFuture<>();
            Runnable begin = () -> {
                check();
                started.complete(null);
            };
            String ch = releaseChannel();
            if (ch == null) {
                lock.services.schedule(begin, 0, () -> started.complete(null));
                return started;
            }
            Channel c = lock.services.waiters().observe(ch, onMessage);
            channel = c;
            long timeoutNanos = lock.services.options().subscriptionTimeout().toNanos();
            // a copy: the channel's own future is shared with its waiters and must not time out
            c.subscribed().copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).whenComplete((s, e) -> {
                if (e != null) {
                    notSubscribed(c, e instanceof TimeoutException || e.getCause() instanceof TimeoutException
                            ? "timed out" : e.getCause() != null ? e.getCause() : e);
                }
                lock.services.schedule(begin, 0, () -> started.complete(null));
            });
            return started;
        }

        private void notSubscribed(Channel c, Object why) {
            LOG.log(System.Logger.Level.WARNING, "lock listener of ''{0}'' is not subscribed to {1} ({2});"
                    + " it hears releases by reading the lock until it is", lock.name, c.channel(), why);
        }

        private void awaitSubscribed(Channel c) {
            boolean interrupted = false;
            long end = System.nanoTime() + lock.services.options().subscriptionTimeout().toNanos();
            try {
                while (true) {
                    try {
                        c.subscribed().get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                        return;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    } catch (ExecutionException | TimeoutException e) {
                        // the reads still hear releases, late: say so and go on
                        notSubscribed(c, e instanceof TimeoutException ? "timed out" : e.getCause());
                        return;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        void stop() {
            stopped = true;
            ScheduledFuture<?> f = next;
            if (f != null) {
                f.cancel(false);
            }
            Channel c = channel;
            if (c != null) {
                lock.services.waiters().unobserve(c, onMessage);
            }
        }

        /** Reads the lock's state; checks that arrive while one runs fold into one more after it. */
        void check() {
            if (stopped || checks.getAndIncrement() != 0) {
                return;
            }
            read();
        }

        private void read() {
            if (stopped || lock.services.isClosed()) {
                return;
            }
            long heardBefore = releases.get();
            lock.services.runner().runAsync(lock.protocol.state("")).whenComplete((s, t) -> {
                if (t != null) {
                    LOG.log(System.Logger.Level.DEBUG, "lock listener of ''{0}'' could not read it: {1}", lock.name, t);
                    schedule(TimeUnit.MILLISECONDS.toNanos(lock.services.watchdogMs() / 3));
                } else if (s.locked() && releases.get() != heardBefore) {
                    // held as read before a release was heard: stale; that release's check() folded
                    // into this read, so the fold below reads again
                    LOG.log(System.Logger.Level.TRACE, "lock listener of ''{0}'': stale read ignored", lock.name);
                } else {
                    seen(s, heardBefore);
                }
                if (checks.getAndSet(0) > 1) {
                    check(); // something happened while we read: look again
                }
            });
        }

        /**
         * @param heardBefore the releases heard when the read was sent: a deletion it finds is
         *     reported only if no release was heard since (compare-and-set on that count), so a
         *     release whose report runs on another thread while this read's answer is handled is
         *     never reported a second time
         */
        private void seen(LockState s, long heardBefore) {
            long now = System.nanoTime();
            if (s.locked()) {
                seenHeld = true;
                long ttl = s.pttl() > 0 ? TimeUnit.MILLISECONDS.toNanos(s.pttl()) : -1;
                expectedGoneNanos = ttl > 0 ? now + ttl : 0;
                long next = ttl > 0 ? ttl + TimeUnit.MILLISECONDS.toNanos(5)
                        : TimeUnit.MILLISECONDS.toNanos(lock.services.watchdogMs() / 3);
                schedule(quietReleases ? Math.min(next, POLL_NANOS) : next);
                return;
            }
            if (seenHeld) {
                seenHeld = false;
                boolean expired = expectedGoneNanos != 0 && now - (expectedGoneNanos - EXPIRY_SLACK_NANOS) >= 0;
                if (expired) {
                    deliver(true);
                } else if (quietReleases) {
                    goneWhileQuiet(heardBefore);
                } else {
                    awaitReleaseMessage(heardBefore);
                }
            }
            long idle = TimeUnit.MILLISECONDS.toNanos(lock.services.watchdogMs() / 3);
            schedule(quietReleases ? Math.min(idle, POLL_NANOS) : idle);
        }

        /**
         * A lock that publishes no release found gone: reported now, unless a release of this
         * client is in flight, whose outcome then decides (see ownReleaseSettled).
         */
        private void goneWhileQuiet(long heardBefore) {
            goneUnreported.set(heardBefore);
            if (ownReleases.get() == 0) {
                reportDeferredGone(false);
            }
        }

        /** This client's release of the lock is about to be sent. */
        void ownReleaseStarted() {
            ownReleases.incrementAndGet();
        }

        /** This client's release of the lock has its outcome, and freed() has run if it freed the lock. */
        void ownReleaseSettled() {
            if (ownReleases.decrementAndGet() == 0) {
                reportDeferredGone(true);
            }
        }

        /** Reports a deletion a poll found, unless a release reported since covers it. */
        private void reportDeferredGone(boolean afterOwnRelease) {
            long heard = goneUnreported.getAndSet(-1);
            if (heard < 0) {
                return;
            }
            if (!afterOwnRelease) {
                if (releases.compareAndSet(heard, heard + 1)) {
                    deliver(false);
                }
                return;
            }
            awaitReleaseMessage(heard); // not freed by ours: another client's release, or expiry
        }

        /**
         * Found deleted before its release's message arrived (a reply can overtake a pub/sub
         * message): the message reports it; if none comes within MESSAGE_GRACE_NANOS (a message
         * lost to a reconnect), the deletion is reported then.
         */
        private void awaitReleaseMessage(long heard) {
            lock.services.schedule(() -> {
                if (!stopped && releases.compareAndSet(heard, heard + 1)) {
                    deliver(false);
                }
            }, MESSAGE_GRACE_NANOS, () -> { });
        }

        private void schedule(long delayNanos) {
            if (!stopped) {
                next = lock.services.schedule(this::check, delayNanos, () -> { });
            }
        }

        private void deliver(boolean expired) {
            if (!expired) {
                seenHeld = false; // reported: a check that finds it gone reports nothing more
            }
            lock.services.schedule(() -> {
                if (stopped) {
                    return;
                }
                try {
                    if (expired && listener instanceof LockListener.Expired e) {
                        e.onExpired(lock.name);
                    } else if (!expired && listener instanceof LockListener.Deleted d) {
                        d.onDeleted(lock.name);
                    }
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "lock listener of '" + lock.name + "' threw; ignored", e);
                }
            }, 0, () -> { });
        }
    }
}
