package io.github.relock.core.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * Design: local hand-off, one round trip from one holder to the next when the next is a thread of
 * this same client (LockOptions.localHandoff).
 *
 * Without it a contended hand-off costs three trips: the release (which publishes), the waiter's
 * wake-up message, the waiter's acquire. With it, a blocked waiter posts an Offer on its lock's
 * Line once its subscription is confirmed; a thread releasing the last hold of that lock claims
 * the oldest armed offer and sends the release script with the offer's owner field and TTL. If the
 * release empties the hash, the script writes the new owner's field and TTL in the same step,
 * publishes nothing (the lock never became free, so no other client has anything to race for) and
 * answers TRANSFERRED (plus the chosen candidate's index); the releaser registers the new hold for the waiter and wakes it in memory.
 * Redis holds Redisson's hash and fields throughout, so Redisson and inspect see the true owner.
 *
 * Offer states. ARMED: claimable; the waiter is parked or about to park. BUSY: the waiter is
 * sending its own attempt (a transfer landing beside an acquisition by the same field would count
 * the hold twice). CLAIMED: a releaser's script is in flight. GRANTED: the waiter owns the lock.
 * GONE: the waiter left. Only the waiter moves ARMED<->BUSY and ARMED|BUSY->GONE; only a releaser
 * moves ARMED->CLAIMED and CLAIMED->GRANTED|ARMED. A waiter that must attempt or leave while its
 * offer is CLAIMED waits for the outcome (one script, bounded by the command timeout) and, if
 * granted, owns the lock. If the releaser never answers within twice the command timeout, the
 * waiter moves CLAIMED->GONE itself; a transfer that lands after that finds its CAS refused and the
 * releaser gives the lock back, so no hold is ever registered for a waiter that left.
 *
 * Fairness. A transfer keeps the lock from other clients' waiters, so the reentrant lock bounds a
 * run of consecutive transfers by count and by time; the release that ends a run is an ordinary one
 * that publishes, and other clients' waiters compete for the lock as they would without hand-off.
 * The release that ends a run asks the script whether more than one subscriber heard its message
 * (on one server: this client's own subscription is one); if so, another client waits, and this
 * client's waiters hold back their attempts for about two round trips of that release, so the
 * other waiter, a message further away, finds the lock free instead of retaken.
 * The fair lock needs no bound: its script transfers only to the head of the queue in Redis. This
 * client cannot know which of its waiters heads that queue; it offers its oldest armed waiter,
 * which is the head whenever the head is this client's (its waiters queue in the order they post
 * offers, give or take a subscription's latency); otherwise the release is ordinary and wakes the
 * head on its own channel. (Offering every armed waiter and letting the script pick the head was
 * tried: kit rule 9.2, 200 callers, went from under 1 s to 25 s, every release blocking every
 * waiter's own attempts for a round trip.)
 *
 * Local queueing. While a lock is held through a transfer (the line remembers the new holder until
 * its last release claims) and that hold is valid in the registry, a thread of this client that
 * asks for the lock skips its first attempt, which could only fail, and queues for the next
 * transfer at once (reentrant locks; a fair waiter must join the queue in Redis).
 *
 * Cost when no thread of this client waits for the lock: one map lookup per release, one per
 * blocking acquire.
 */
final class Handoff {
    private static final int ARMED = 0;
    private static final int BUSY = 1;
    private static final int CLAIMED = 2;
    private static final int GRANTED = 3;
    private static final int GONE = 4;

    /** One blocked waiter's standing offer to take its lock straight from the releaser. */
    static final class Offer {
        final String lockName;
        final long ownerId;
        final String field;
        /** The TTL the waiter asked for ({@link Args#TTL_WATCHDOG} for the watchdog). */
        final long ttlMs;
        private final AtomicInteger state = new AtomicInteger(BUSY);
        private final Semaphore signal = new Semaphore(0);
        /** Queued on the channel's {@link Waiters.Entry} while the waiter parks, so pub/sub wakes it too. */
        final Runnable wake = signal::release;

        private Offer(String lockName, long ownerId, String field, long ttlMs) {
            this.lockName = lockName;
            this.ownerId = ownerId;
            this.field = field;
            this.ttlMs = ttlMs;
        }

        /** Forgets wake-ups that arrived while the waiter was not parked. */
        void drain() {
            signal.drainPermits();
        }

        /**
         * Parks until woken (a grant, an unclaim, a pub/sub message) or {@code nanos} pass.
         *
         * @throws InterruptedException if interrupted while parked
         */
        void park(long nanos) throws InterruptedException {
            signal.tryAcquire(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public String toString() {
            return "Offer[" + lockName + ", " + field + ", state " + state.get() + "]";
        }
    }

    /** The offers of one lock name, oldest first, and the current run of transfers. */
    private static final class Line {
        final ConcurrentLinkedQueue<Offer> offers = new ConcurrentLinkedQueue<>();
        // Touched by releasers only; one holder releases at a time, so races are rare and harmless
        // (a run one transfer longer or shorter than the bound).
        volatile int run;
        volatile long runStartNanos;
        /** The owner a transfer made the holder, until its last release claims; null when not known. */
        volatile String heldBy;
        /** Until when (System.nanoTime) this client's waiters leave the lock to another client's waiter. */
        volatile long yieldUntilNanos;
    }

    /** {@link #claimOne}'s answer when this release ends a run: release ordinarily, and ask who heard it. */
    static final List<Offer> RUN_ENDED = List.of();
    private static final long MIN_YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    private static final long MAX_YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final Map<String, Line> lines = new ConcurrentHashMap<>();
    private final int maxConsecutive;
    private final long maxRunNanos;
    private final long settleNanos;

    /**
     * @param maxConsecutive the longest run of transfers of one reentrant lock; 0 turns hand-off off
     * @param maxRunNanos the longest time one run may last
     * @param commandTimeoutNanos the command timeout: a claimed offer is settled within twice that
     */
    Handoff(int maxConsecutive, long maxRunNanos, long commandTimeoutNanos) {
        this.maxConsecutive = maxConsecutive;
        this.maxRunNanos = maxRunNanos;
        this.settleNanos = 2 * commandTimeoutNanos;
    }

    boolean enabled() {
        return maxConsecutive > 0;
    }

    // ---------------------------------------------------------------- the waiter's side

    /**
     * Posts an offer for a waiter; it starts BUSY (the waiter attempts first), so {@link #arm}
     * it before parking. Pair with {@link #leave}.
     */
    Offer post(String lockName, long ownerId, String field, long ttlMs) {
        Offer offer = new Offer(lockName, ownerId, field, ttlMs);
        lines.compute(lockName, (k, line) -> {
            Line l = line == null ? new Line() : line;
            l.offers.add(offer);
            return l;
        });
        return offer;
    }

    /**
     * The waiter is about to send its own attempt.
     *
     * @return true if it may (the offer is now BUSY); false if the offer was claimed: then
     *     {@link #settle} says whether the lock was granted
     */
    boolean busy(Offer offer) {
        return offer.state.compareAndSet(ARMED, BUSY) || offer.state.get() == BUSY;
    }

    /** The waiter's own attempt failed and it is about to park: its offer may be claimed again. */
    void arm(Offer offer) {
        offer.state.compareAndSet(BUSY, ARMED);
    }

    /**
     * Waits (not interruptibly; one script at most) until a claim on the offer is decided.
     *
     * @return true if the lock was granted to the waiter; false if the claim was withdrawn (the
     *     offer is ARMED again) or the offer is gone
     */
    boolean settle(Offer offer) {
        long deadline = System.nanoTime() + settleNanos;
        boolean interrupted = false;
        try {
            while (true) {
                int s = offer.state.get();
                if (s != CLAIMED) {
                    return s == GRANTED;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    // The releaser never answered: leave; a transfer landing later is given back by it.
                    if (offer.state.compareAndSet(CLAIMED, GONE)) {
                        return false;
                    }
                    continue;
                }
                try {
                    offer.signal.tryAcquire(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The waiter leaves: its offer can no longer be claimed, and is removed. Idempotent.
     *
     * @return true if the lock was granted to the waiter before it could leave: it owns the lock
     */
    boolean leave(Offer offer) {
        boolean granted;
        while (true) {
            int s = offer.state.get();
            if (s == ARMED || s == BUSY) {
                if (offer.state.compareAndSet(s, GONE)) {
                    granted = false;
                    break;
                }
            } else if (s == CLAIMED) {
                if (settle(offer)) {
                    granted = true;
                    break;
                }
            } else {
                granted = s == GRANTED;
                break;
            }
        }
        lines.computeIfPresent(offer.lockName, (k, line) -> {
            line.offers.remove(offer);
            return line.offers.isEmpty() ? null : line;
        });
        return granted;
    }

    // ---------------------------------------------------------------- the releaser's side

    /**
     * Claims the oldest armed offer on lock {@code lockName}, if a transfer may happen now.
     *
     * @param bounded whether the run bound applies: any waiter may take the lock (reentrant
     *     locks), so a run could keep other clients out; not for the fair lock, whose script hands
     *     off only to the head of its queue
     * @return the claimed offer (a list of one); {@link #RUN_ENDED}: this release ends a run; or
     *     null: release ordinarily
     */
    List<Offer> claimOne(String lockName, boolean bounded) {
        Line line = lines.get(lockName);
        if (line == null) {
            return null;
        }
        line.heldBy = null; // its holder is releasing it
        if (bounded && line.run > 0
                && (line.run >= maxConsecutive || System.nanoTime() - line.runStartNanos > maxRunNanos)) {
            line.run = 0; // this release ends the run: ordinary, so other clients' waiters get their chance
            return RUN_ENDED;
        }
        for (Offer o : line.offers) {
            if (o.state.compareAndSet(ARMED, CLAIMED)) {
                if (line.run++ == 0) {
                    line.runStartNanos = System.nanoTime();
                }
                return List.of(o);
            }
        }
        line.run = 0;
        return null;
    }

    /**
     * A release that ended a run was heard by another client's waiter: for about two round trips
     * of that release ({@code rttNanos}; 0.2 to 5 ms, and at most half the run time) this client's
     * waiters do not attempt, so that waiter's attempt, sent when the message reaches it, finds
     * the lock free rather than retaken by a thread of this client that is a message closer.
     */
    void yieldAfterRun(String lockName, long rttNanos) {
        Line line = lines.get(lockName);
        if (line != null) {
            long yield = Math.max(MIN_YIELD_NANOS, Math.min(2 * rttNanos, Math.min(MAX_YIELD_NANOS, maxRunNanos / 2)));
            line.yieldUntilNanos = System.nanoTime() + yield;
        }
    }

    /** @return how long this client's waiters still leave lock {@code lockName} to another client, in ns (0: not) */
    long yieldNanos(String lockName) {
        Line line = lines.get(lockName);
        if (line == null || line.yieldUntilNanos == 0) {
            return 0;
        }
        long left = line.yieldUntilNanos - System.nanoTime();
        return left > 0 ? left : 0;
    }

    /**
     * @return the owner of this client a transfer made the holder of lock {@code lockName}, while
     *     it holds it and other threads of this client wait for it; else null
     */
    String heldLocally(String lockName) {
        Line line = lines.get(lockName);
        return line == null ? null : line.heldBy;
    }

    /**
     * The transfer landed and the new hold is registered: wake the waiter as the owner.
     *
     * @return false if the waiter had already left (settle gave up): the caller must give the lock back
     */
    boolean grant(Offer offer) {
        boolean granted = offer.state.compareAndSet(CLAIMED, GRANTED);
        if (granted) {
            Line line = lines.get(offer.lockName);
            if (line != null) {
                line.heldBy = offer.field;
            }
        }
        offer.signal.release();
        return granted;
    }

    /**
     * The claims that did not become the transfer: re-armed.
     *
     * @param claimed the claimed offers, or null for none
     * @param except the offer that was granted, or null
     * @param wake whether to wake their waiters: yes when the lock left this client (free, or
     *     published to another client's waiter heading the fair queue) or the outcome is unknown;
     *     no when it stayed with this client (still held, or handed to another of its waiters)
     */
    void unclaim(List<Offer> claimed, Offer except, boolean wake) {
        if (claimed == null) {
            return;
        }
        for (Offer offer : claimed) {
            if (offer != except && offer.state.compareAndSet(CLAIMED, ARMED) && wake) {
                offer.signal.release();
            }
        }
    }

    /** @return the lock names with offers posted (for tests and leak checks) */
    int activeLines() {
        return lines.size();
    }
}
