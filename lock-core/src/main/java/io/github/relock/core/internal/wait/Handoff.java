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
 * GONE: the waiter left. A claim its releaser has not decided within twice the command timeout
 * (its script may sit in a stalled driver queue for longer) is given up in one of two ways:
 * ABANDONED: the waiter waits on, its attempts in RESOLVE mode, so a transfer that lands later is
 * taken by its next attempt as its grant (never counted twice); or GONE, when it gives up while
 * leaving. LANDED: the late transfer to an ABANDONED waiter landed, and the waiter was woken to
 * take it. TAKEN: an ABANDONED waiter acquired (a late transfer, if any, was that acquisition).
 * Only the waiter moves ARMED<->BUSY, ARMED|BUSY->GONE, CLAIMED->ABANDONED|GONE and
 * ABANDONED|LANDED->GONE|TAKEN; only a releaser moves ARMED->CLAIMED, CLAIMED->GRANTED|ARMED and
 * ABANDONED->LANDED. Every move a releaser makes wakes the waiter. A waiter that finds its offer
 * CLAIMED parks until the claim is decided (one script, bounded by the command timeout).
 *
 * No transfer is ever given back to an owner that may still take it. A transfer that lands after
 * its waiter gave up on the claim registers no hold (the waiter registers its own when it takes
 * it); it is given back by exactly one side: by the releaser if the offer is GONE (the waiter left
 * first), by the waiter if it leaves finding the offer LANDED (the transfer landed after its last
 * attempt); ABANDONED becomes LANDED or TAKEN, and is then the waiter's. A releaser whose grant is
 * refused because the waiter gave up between its check and its grant undoes only its own
 * registration of the hold, never one the waiter made.
 *
 * Lost replies. A transfer whose reply is lost may or may not have landed: the releaser re-arms
 * the offer with `resolve` set and wakes the waiter, whose next attempts run in resolve mode (a
 * field already there is its grant, kept rather than counted again). So the lock is held once,
 * and is free as soon as the waiter's one unlock returns. A waiter that had ABANDONED the claim
 * already attempts in resolve mode; it is woken all the same.
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
    static final int ABANDONED = 5;
    static final int LANDED = 6;
    static final int TAKEN = 7;

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

    /**
     * The waiter gives up on a claim its releaser never decided, and waits on: a transfer that
     * lands later is its grant, which its next attempt (in RESOLVE mode) takes. The offer stays on
     * its line (no releaser claims it again) until the waiter leaves.
     */
    boolean abandon(Offer offer) {
        return offer.state.compareAndSet(CLAIMED, ABANDONED);
    }

    /**
     * The waiter leaves while a claim its releaser never decided is in flight: a transfer landing
     * later is given back by its releaser.
     */
    boolean leaveClaimed(Offer offer) {
        return offer.state.compareAndSet(CLAIMED, GONE);
    }

    /**
     * @return whether the waiter gave up on a claim of this offer and waits on (or took the lock
     *     since): its attempts resolve a late transfer, and no releaser claims the offer again
     */
    static boolean abandoned(Offer offer) {
        int s = offer.state.get();
        return s == ABANDONED || s == LANDED || s == TAKEN;
    }

    /**
     * The waiter leaves: unless its offer is claimed, it can no longer be claimed, and is removed.
     *
     * @param acquired whether the waiter acquired the lock by its own attempt
     * @return the offer's final state: GRANTED (the waiter owns the lock), GONE, TAKEN (it acquired
     *     after abandoning a claim), LANDED (a late transfer landed after its last attempt and it
     *     did not acquire: the waiter must give its field's one hold back), or CLAIMED (a claim is in
     *     flight: the waiter must wait for it to be decided and leave again)
     */
    int leave(Offer offer, boolean acquired) {
        int s;
        while (true) {
            s = offer.state.get();
            if (s == CLAIMED) {
                return CLAIMED;
            }
            if (s == ARMED || s == BUSY || s == ABANDONED) {
                if (!offer.state.compareAndSet(s, s == ABANDONED && acquired ? TAKEN : GONE)) {
                    continue;
                }
                s = s == ABANDONED && acquired ? TAKEN : GONE;
            } else if (s == LANDED) {
                if (!offer.state.compareAndSet(LANDED, acquired ? TAKEN : GONE)) {
                    continue;
                }
                s = acquired ? TAKEN : LANDED;
            }
            break;
        }
        lines.computeIfPresent(offer.line, (k, l) -> {
            l.offers.remove(offer);
            return l.offers.isEmpty() && l.heldBy == null ? null : l;
        });
        return s;
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
            dropIfEmpty(line);
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
        dropIfEmpty(line);
        return null;
    }

    /**
     * Claims the oldest armed offer on {@code line} for a cohort pass (no Redis call; see
     * lock.Cohort): only if its waiter asks for a watchdog hold, as the passing holder has (an
     * explicit lease would not restart in Redis). The run of transfers is left as it is: a pass
     * is bounded by the cohort's own run, which only a transfer in Redis starts.
     *
     * @return the claimed offer, or null: no armed offer, or the oldest asks for an explicit lease
     */
    public Offer claimForCohort(String line) {
        Line l = lines.get(line);
        if (l == null) {
            return null;
        }
        for (Offer o : l.offers) {
            int s = o.state.get();
            if (s != ARMED) {
                continue;
            }
            if (o.ttlMs != io.github.relock.core.internal.util.Args.TTL_WATCHDOG) {
                return null; // the round-trip transfer sets its own TTL in Redis
            }
            if (o.state.compareAndSet(ARMED, CLAIMED)) {
                l.heldBy = null;
                return o;
            }
        }
        return null;
    }

    /** Forgets a line with no offer and no local holder left (its memory only: it is made again when needed). */
    private void dropIfEmpty(String line) {
        lines.computeIfPresent(line, (k, x) -> x.offers.isEmpty() && x.heldBy == null ? null : x);
    }

    /** @return whether the offer is still claimed: its waiter waits for the claim's decision */
    public boolean claimed(Offer offer) {
        return offer.state.get() == CLAIMED;
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

    /**
     * The transfer landed, but the waiter had given up on the claim before {@link #grant}: no hold
     * is registered for it. A waiter that waits on (ABANDONED) is woken to take the lock with its
     * next attempt; one that acquired meanwhile (TAKEN) took it already.
     *
     * @return false if the waiter left (GONE): the caller must give the lock back
     */
    public boolean landed(Offer offer) {
        while (true) {
            int s = offer.state.get();
            if (s == ABANDONED) {
                if (offer.state.compareAndSet(ABANDONED, LANDED)) {
                    offer.wake.run();
                    return true;
                }
                continue;
            }
            return s == TAKEN || s == LANDED;
        }
    }

    /**
     * The claim did not become a transfer: re-armed, and its waiter woken unless told to sleep on.
     * A waiter that gave up on the claim and waits on is woken all the same unless told to sleep on.
     *
     * @return whether the offer was re-armed (false: the waiter gave up on the claim meanwhile)
     */
    public boolean unclaim(Offer offer, Unclaim how) {
        if (offer == null) {
            return false;
        }
        if (how == Unclaim.UNKNOWN) {
            offer.resolve = true;
        }
        if (offer.state.compareAndSet(CLAIMED, ARMED)) {
            if (how != Unclaim.SLEEP_ON || offer.settling) {
                offer.wake.run();
            }
            return true;
        }
        if (how != Unclaim.SLEEP_ON && offer.state.get() == ABANDONED) {
            offer.wake.run(); // the lock may be free, or a transfer may have landed unseen: attempt now
        }
        return false;
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
                int s = o.state.get();
                if (s == ARMED || s == ABANDONED) {
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
