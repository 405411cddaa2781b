package io.github.relock.core.internal.lock;

import io.github.relock.api.LockListener;
import io.github.relock.core.internal.protocol.LockState;
import io.github.relock.core.internal.wait.Channel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/*
 * Design: lock listeners (DistributedLock.addListener), built on the lock's own channel and its TTL
 * rather than on keyspace notifications, so they need no server configuration and work on a
 * cluster (the channel is routed as waiters' channels are).
 *
 * One Watch per listener. It observes the lock's channel (sharing the client's subscription with
 * its waiters). A release that frees the lock, or a force unlock, publishes there: that is a
 * deletion, reported at once (messages less than 50 ms apart are one release heard twice: on a
 * cluster relock's scripts publish classic and sharded, and the client hears both). It also keeps an expectation, the moment the lock's TTL as last read
 * runs out, and checks then: the lock's state is read (one script). Found gone while last seen
 * held (and no message came): before the expected moment it was deleted, at or after it the key
 * expired; each is reported once per time the lock was seen held. Found held: the new TTL sets the
 * next check (a renewed lock is checked again at its new TTL). Found free: checked again a third of
 * a watchdog timeout later, to learn of a new holder's TTL. The fair lock's release publishes only
 * on its queue head's own channel, and the spin lock's nowhere, so their watches subscribe nothing
 * and read the state every POLL_NANOS, held or free, to tell a release from an expiry (a hold
 * shorter than that, by another client, may go unheard). A release or force unlock by the
 * listening client itself is heard at once for every lock type (freed). So a listened lock costs
 * one state read per TTL period (every 20-30 s under the watchdog; every second for fair and spin
 * locks), one per release message, and one per 10 s while it is free.
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
     * A release message within this long of the last one is the same release heard twice: on a
     * cluster relock's scripts publish both classic and sharded, and the client listens to both.
     */
    private static final long SAME_RELEASE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How often a watch reads a held lock whose release publishes nothing on its channel. */
    private static final long POLL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<Integer, Watch> watches = new ConcurrentHashMap<>();

    /**
     * This client freed lock {@code name} (a release, or a force unlock): its own listeners of that
     * name hear it at once, whatever the lock type publishes.
     */
    void freed(String name) {
        for (Watch w : watches.values()) {
            if (w.lock.name.equals(name)) {
                w.released();
            }
        }
    }

    int add(RedisLock lock, LockListener listener) {
        lock.engine.ensureOpen();
        Watch w = new Watch(lock, listener);
        int id = IDS.incrementAndGet();
        watches.put(id, w);
        w.start();
        return id;
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
        final Consumer<String> onMessage = m -> released();
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

        private final AtomicLong lastRelease = new AtomicLong();

        /** A release or force unlock published on the lock's channel, or made by this client: it was deleted. */
        void released() {
            long now = System.nanoTime();
            long last = lastRelease.getAndSet(now);
            if (last == 0 || now - last > SAME_RELEASE_NANOS) {
                deliver(false);
            }
            check(); // and learn who holds it next
        }

        void start() {
            String ch = releaseChannel();
            if (ch != null) {
                channel = lock.engine.waiters().observe(ch, onMessage);
            }
            check();
        }

        void stop() {
            stopped = true;
            ScheduledFuture<?> f = next;
            if (f != null) {
                f.cancel(false);
            }
            Channel c = channel;
            if (c != null) {
                lock.engine.waiters().unobserve(c, onMessage);
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
            if (stopped || lock.engine.isClosed()) {
                return;
            }
            lock.engine.runner().runAsync(lock.protocol.state("")).whenComplete((s, t) -> {
                if (t != null) {
                    LOG.log(System.Logger.Level.DEBUG, "lock listener of ''{0}'' could not read it: {1}", lock.name, t);
                    schedule(TimeUnit.MILLISECONDS.toNanos(lock.engine.watchdogMs() / 3));
                } else {
                    seen(s);
                }
                if (checks.getAndSet(0) > 1) {
                    check(); // something happened while we read: look again
                }
            });
        }

        private void seen(LockState s) {
            long now = System.nanoTime();
            if (s.locked()) {
                seenHeld = true;
                long ttl = s.pttl() > 0 ? TimeUnit.MILLISECONDS.toNanos(s.pttl()) : -1;
                expectedGoneNanos = ttl > 0 ? now + ttl : 0;
                long next = ttl > 0 ? ttl + TimeUnit.MILLISECONDS.toNanos(5)
                        : TimeUnit.MILLISECONDS.toNanos(lock.engine.watchdogMs() / 3);
                schedule(quietReleases ? Math.min(next, POLL_NANOS) : next);
                return;
            }
            if (seenHeld) {
                seenHeld = false;
                boolean expired = expectedGoneNanos != 0 && now - (expectedGoneNanos - EXPIRY_SLACK_NANOS) >= 0;
                deliver(expired);
            }
            long idle = TimeUnit.MILLISECONDS.toNanos(lock.engine.watchdogMs() / 3);
            schedule(quietReleases ? Math.min(idle, POLL_NANOS) : idle);
        }

        private void schedule(long delayNanos) {
            if (!stopped) {
                next = lock.engine.schedule(this::check, delayNanos, () -> { });
            }
        }

        private void deliver(boolean expired) {
            if (!expired) {
                seenHeld = false; // reported: a check that finds it gone reports nothing more
            }
            lock.engine.schedule(() -> {
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
