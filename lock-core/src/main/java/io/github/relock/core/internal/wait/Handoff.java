package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * Design: local hand-off, one round trip from one holder to the next when the next is a waiter of
 * this same client (LockOptions.localHandoff).
 *
 * Without it a contended hand-off costs three trips: the release (which publishes), the waiter's
 * wake-up message, the waiter's acquire. With it, a waiting owner (a blocked thread, an
 * asynchronous wait, a multi-lock's member wait: every Wait) posts an Offer on its lock's Line once
 * its subscription is confirmed; a thread releasing the last hold of that lock claims the oldest
 * armed offer and sends the release script with the offer's owner field and TTL. If the release
 * empties the hash and no other client's waiter listens on the lock's channel, the script writes
 * the new owner's field and TTL in the same step and publishes nothing (the lock never became
 * free); the releaser registers the new hold for the waiter and wakes it. Redis holds Redisson's
 * hash and fields throughout, so Redisson and inspect see the true owner.
 *
 * Lines. A Line is keyed by the lock's name and its protocol family: a reentrant release hands off
 * only to a reentrant waiter, a fair release only to a fair waiter of the same name, so the fair
 * queue never keeps an entry for a waiter that got the lock behind its back.
 *
 * Offer states. ARMED: claimable; the waiter is parked or about to park. BUSY: the waiter is
 * sending its own attempt (a transfer landing beside an acquisition by the same field would count
 * the hold twice). CLAIMED: a releaser's script is in flight. GRANTED: the waiter owns the lock.
 * GONE: the waiter left. Only the waiter moves ARMED<->BUSY, ARMED|BUSY->GONE and, when the
 * releaser never answered within twice the command timeout, CLAIMED->GONE; only a releaser moves
 * ARMED->CLAIMED and CLAIMED->GRANTED|ARMED. Every move a releaser makes wakes the waiter. A waiter
 * that finds its offer CLAIMED parks until the claim is decided (one script, bounded by the
 * command timeout); a transfer that lands after the waiter gave up on it finds its grant refused
 * and the releaser gives the lock back, so no hold is ever registered for a waiter that left.
 *
 * Lost replies. A transfer whose reply is lost may or may not have landed: the releaser re-arms
 * the offer with `resolve` set and wakes the waiter, whose next attempts run in resolve mode (a
 * field already there is its grant, kept rather than counted again). So the lock is held once,
 * and is free as soon as the waiter's one unlock returns.
 *
 * Fairness. A transfer keeps the lock from other clients' waiters, so the release script hands off
 * only while no other client's waiter listens on the lock's channel (it counts the channel's
 * subscribers besides this client's own); otherwise the release is ordinary, publishes, and that
 * waiter competes as it would without hand-off. A node of a cluster counts only its own classic
 * subscribers, so as a backstop the reentrant lock also bounds a run of consecutive transfers by
 * count and by time; the release that ends a run is ordinary. The fair lock needs neither: its
 * script transfers only to the head of the queue in Redis.
 *
 * Local queueing. While a lock is held through a transfer (the line remembers the new holder until
 * its last release claims) and that hold is valid, a waiter of this client that asks for the lock
 * skips its first attempt, which could only fail, and queues for the next transfer at once
 * (reentrant locks; a fair waiter must join the queue in Redis).
 *
 * Cost when no waiter of this client waits for the lock: one map lookup per release, one per
 * acquire that waits.
 *
 * Thread-safety: safe for use by several threads.
 */
public final class Handoff {
    static final int ARMED = 0;
    static final int BUSY = 1;
    static final int CLAIMED = 2;
    static final int GRANTED = 3;
    static final int GONE = 4;

    /** One waiting owner's standing offer to take its lock straight from a releaser of this client. */
    public static final class Offer {
        final String line;
        private final long ownerId;
        private final String field;
        private final long ttlMs;
        final AtomicInteger state = new AtomicInteger(BUSY);
        /** Set with a claim whose transfer may have landed unseen: the waiter's attempts then resolve it. */
        volatile boolean resolve;
        /** The waiter waits for a claim on this offer to be decided: whatever the decision, wake it. */
        volatile boolean settling;
        private final Runnable wake;

        Offer(String line, long ownerId, String field, long ttlMs, Runnable wake) {
            this.line = line;
            this.ownerId = ownerId;
            this.field = field;
            this.ttlMs = ttlMs;
            this.wake = wake;
        }

        /** @return the waiting owner's id */
        public long ownerId() {
            return ownerId;
        }

        /** @return the waiting owner's field */
        public String field() {
            return field;
        }

        /** @return the TTL its hold asks for ({@code Args.TTL_WATCHDOG} for the watchdog) */
        public long ttlMs() {
            return ttlMs;
        }

        int state() {
            return state.get();
        }

        @Override
        public String toString() {
            return "Offer[" + line + ", " + field + ", state " + state.get() + "]";
        }
    }

    /** How a claim ended without a grant. */
    public enum Unclaim {
        /** Its waiter need not be woken here: the lock stayed with this client, or the release's message reaches it. */
        SLEEP_ON,
        /** Its waiter must attempt now: the lock may be free and nothing else will tell it. */
        WAKE,
        /** The release's reply was lost: the transfer may have landed; the waiter resolves it. */
        UNKNOWN
    }

    /** The offers of one line, oldest first, and the current run of transfers. */
    private static final class Line {
        final ConcurrentLinkedQueue<Offer> offers = new ConcurrentLinkedQueue<>();
        // Touched by releasers only; one holder releases at a time, so races are rare and harmless
        // (a run one transfer longer or shorter than the bound).
        volatile int run;
        volatile long runStartNanos;
        /** The owner a transfer made the holder, until its last release claims; null when not known. */
        volatile String heldBy;
    }

    private final Map<String, Line> lines = new ConcurrentHashMap<>();
    private final int maxConsecutive;
    private final long maxRunNanos;

    /**
     * @param maxConsecutive the longest run of transfers of one reentrant lock; 0 turns hand-off off
     * @param maxRunNanos the longest time one run may last
     */
    public Handoff(int maxConsecutive, long maxRunNanos) {
        this.maxConsecutive = maxConsecutive;
        this.maxRunNanos = maxRunNanos;
    }

    /** @return whether hand-off is on */
    public boolean enabled() {
        return maxConsecutive > 0;
    }

    /** @return the line of lock {@code name} for protocol family {@code family} */
    public static String line(String family, String name) {
        return family + '\0' + name;
    }

    // ---------------------------------------------------------------- the waiter's side

    /** Posts an offer; it starts BUSY (the waiter attempts first), so {@link #arm} it before parking. */
    Offer post(String line, long ownerId, String field, long ttlMs, Runnable wake) {
        Offer offer = new Offer(line, ownerId, field, ttlMs, wake);
        lines.compute(line, (k, l) -> {
            Line x = l == null ? new Line() : l;
            x.offers.add(offer);
            return x;
        });
        return offer;
    }

    /**
     * The waiter is about to send its own attempt.
     *
     * @return true if it may (the offer is now BUSY); false if a releaser claimed or granted it,
     *     or it is gone: see {@link Offer#state()}
     */
    boolean busy(Offer offer) {
        return offer.state.compareAndSet(ARMED, BUSY) || offer.state.get() == BUSY;
    }

    /** The waiter's own attempt failed and it is about to park: the offer may be claimed again. */
    void arm(Offer offer) {
        offer.state.compareAndSet(BUSY, ARMED);
    }

    /** The waiter gave up on a claim its releaser never decided: a transfer landing later is refused. */
    boolean abandon(Offer offer) {
        return offer.state.compareAndSet(CLAIMED, GONE);
    }

    /**
     * The waiter leaves: unless its offer is claimed, it can no longer be claimed, and is removed.
     *
     * @return the offer's final state: GRANTED (the waiter owns the lock), GONE, or CLAIMED (a claim
     *     is in flight: the waiter must wait for it to be decided and leave again)
     */
    int leave(Offer offer) {
        while (true) {
            int s = offer.state.get();
            if (s == CLAIMED) {
                return CLAIMED;
            }
            if ((s == ARMED || s == BUSY) && !offer.state.compareAndSet(s, GONE)) {
                continue;
            }
            lines.computeIfPresent(offer.line, (k, l) -> {
                l.offers.remove(offer);
                return l.offers.isEmpty() && l.heldBy == null ? null : l;
            });
            return s == GRANTED ? GRANTED : GONE;
        }
    }

    // ---------------------------------------------------------------- the releaser's side

    /**
     * Claims the oldest armed offer on {@code line}, if a transfer may happen now.
     *
     * @param bounded whether the run bound applies (reentrant locks, whose script takes any
     *     waiter; not the fair lock, whose script hands off only to the head of its queue)
     * @return the claimed offer, or null: release ordinarily
     */
    public Offer claim(String line, boolean bounded) {
        Line l = lines.get(line);
        if (l == null) {
            return null;
        }
        l.heldBy = null; // its holder is releasing it
        if (bounded && l.run > 0
                && (l.run >= maxConsecutive || System.nanoTime() - l.runStartNanos > maxRunNanos)) {
            l.run = 0; // this release ends the run: ordinary, so other clients' waiters get their chance
            return null;
        }
        for (Offer o : l.offers) {
            if (o.state.compareAndSet(ARMED, CLAIMED)) {
                if (l.run++ == 0) {
                    l.runStartNanos = System.nanoTime();
                }
                return o;
            }
        }
        l.run = 0;
        lines.computeIfPresent(line, (k, x) -> x.offers.isEmpty() && x.heldBy == null ? null : x);
        return null;
    }

    /**
     * The transfer landed and the new hold is registered: wake the waiter as the owner.
     *
     * @return false if the waiter had already left: the caller must give the lock back
     */
    public boolean grant(Offer offer) {
        boolean granted = offer.state.compareAndSet(CLAIMED, GRANTED);
        if (granted) {
            Line l = lines.get(offer.line);
            if (l != null) {
                l.heldBy = offer.field;
            }
        }
        offer.wake.run();
        return granted;
    }

    /** The claim did not become a transfer: re-armed, and its waiter woken unless told to sleep on. */
    public void unclaim(Offer offer, Unclaim how) {
        if (offer == null) {
            return;
        }
        if (how == Unclaim.UNKNOWN) {
            offer.resolve = true;
        }
        if (offer.state.compareAndSet(CLAIMED, ARMED) && (how != Unclaim.SLEEP_ON || offer.settling)) {
            offer.wake.run();
        }
    }

    /**
     * The waiter found its offer CLAIMED and will park until the claim is decided. Pair with
     * {@link #settled}. Marked before the state is read again (Dekker-style against the releaser,
     * which moves the state, then reads the mark), so a decision is never missed.
     *
     * @return true if the offer is still CLAIMED: park; false if the claim was decided meanwhile
     */
    boolean settling(Offer offer) {
        offer.settling = true;
        if (offer.state.get() == CLAIMED) {
            return true;
        }
        offer.settling = false;
        return false;
    }

    /** The waiter stopped waiting for the claim's decision. */
    void settled(Offer offer) {
        offer.settling = false;
    }

    /**
     * A release of {@code name} by one family freed the lock: a waiter of this client on the same
     * name under another family (a fair waiter behind a reentrant holder of one client), which no
     * message of that release reaches, is woken to attempt through its own protocol.
     */
    public void wakeOtherFamilies(String name, String releasingFamily, java.util.List<String> families) {
        for (String family : families) {
            if (family.equals(releasingFamily)) {
                continue;
            }
            Line l = lines.get(line(family, name));
            if (l == null) {
                continue;
            }
            for (Offer o : l.offers) {
                if (o.state.get() == ARMED) {
                    o.wake.run();
                    break;
                }
            }
        }
    }

    /**
     * @return the owner of this client a transfer made the holder of {@code line}, while it holds
     *     it and other waiters of this client wait for it; else null
     */
    String heldLocally(String line) {
        Line l = lines.get(line);
        return l == null ? null : l.heldBy;
    }

    /** @return the lines with offers posted or a local holder remembered (for tests and leak checks) */
    public int activeLines() {
        return lines.size();
    }
}
