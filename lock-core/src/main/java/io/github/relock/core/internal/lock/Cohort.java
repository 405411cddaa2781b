package io.github.relock.core.internal.lock;

import io.github.relock.api.LockOptions;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.wait.Handoff;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/*
 * Design: cohort hand-off (LockOptions.cohort; lock cohorting, Dice, Marathe, Shavit, PPoPP 2012):
 * while this client holds a reentrant lock in Redis and another owner of this client waits for it,
 * the holder's last unlock passes the hold to that owner with no Redis call.
 *
 * It builds on the local hand-off (wait.Handoff: same Lines, same Offers). A run starts only with
 * a transfer in Redis (the one-round-trip local hand-off), whose release script hands the lock to
 * a waiter of this client only while no other client's waiter listens on the lock's channel: a
 * transfer that landed is a fresh reading of the outsider signal. The new holder is the run's
 * anchor: Redis holds the lock under its field, count 1, for the whole run. Then, while the run
 * lasts (maxPasses passes and maxRun, LockOptions.cohort), the last unlock of the current holder
 * claims the oldest armed offer on the line (a watchdog one: an explicit lease would not restart
 * in Redis) and moves the hold in the registry (HoldRegistry.pass): the new hold is registered
 * under its owner's own field, renewed under the anchor's (Hold.redisField), keeps the last
 * confirmation, and its losses go to its owner. Past the run the unlock goes to Redis with the
 * anchor's field: a transfer (the signal read again: a new run, anchored at the new owner) or an
 * ordinary release that publishes, so other clients' waiters (relock or Redisson) compete as they
 * would without cohorts. So an outsider that starts waiting during a run waits at most the rest of
 * the run (plus one critical section); the local hand-off's own bound (its maxRun across
 * transfers) is the backstop where the signal is blind (a cluster node counts only its own
 * subscribers).
 *
 * Exactness. Every Redis call made for a cohort hold uses the anchor's field: a reentrant
 * acquisition (the count in Redis is the holder's), an unlock, renewal, expireIn; state reads
 * (isHeldByThread, getHoldCount) answer for the holder by the anchor's count. The anchor's own
 * owner, once it passed the lock on, would find its field in Redis and re-enter: while the run
 * lives its attempts are answered Busy here (lent), with a short poll, and it queues like any
 * local waiter. A run ends when its hold leaves Redis (an unlock in Redis, a loss found by
 * renewal, forceUnlock, close) and is forgotten as soon as its current hold is not registered any
 * more, so the anchor never waits on a run that is over.
 *
 * Where it applies: the reentrant lock only. The fair lock must not let local threads pass older
 * waiters of other clients queued in Redis (its queue is in Redis; a pass would bypass it), the
 * fenced lock must hand out a new token per grant (a Redis call), a read-write lock's holds are
 * shared (its reads need no pass), the non-reentrant lock keeps its refusal in Redis; all of them
 * keep the one-round-trip transfer or none.
 *
 * Thread-safety: safe for use by several threads; a run's fields change under its monitor.
 */
public final class Cohort {
    /** The JVM-wide switch: {@code on}, {@code off}, or {@code default} (the client's options decide). */
    public static final String PROPERTY = "relock.cohort";
    /** How long the anchor's owner waits before asking again while it lent its field to a run. */
    static final long ANCHOR_POLL_MS = 5;
    /** The lock family cohorts apply to (the reentrant lock). */
    static final String FAMILY = "RedisLock";

    /** One run: the field Redis holds the lock under, and the hold of the owner holding it now. */
    static final class Run {
        final String anchor;
        final long startNanos;
        Hold hold;
        int passes;

        Run(String anchor, Hold hold, long startNanos) {
            this.anchor = anchor;
            this.hold = hold;
            this.startNanos = startNanos;
        }
    }

    private final int maxPasses;
    private final long maxRunNanos;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();

    /**
     * @param maxPasses the longest run of passes; 0 turns cohorts off
     * @param maxRunNanos the longest time one run may last
     */
    public Cohort(int maxPasses, long maxRunNanos) {
        this.maxPasses = maxPasses;
        this.maxRunNanos = maxRunNanos;
    }

    /**
     * The cohort setting of a client: its options, unless {@code -Drelock.cohort} says {@code on}
     * (the options' bounds, or the defaults) or {@code off}.
     *
     * @throws IllegalArgumentException if the property is set to anything else
     */
    static Cohort of(LockOptions options) {
        String v = System.getProperty(PROPERTY, "default").trim().toLowerCase(Locale.ROOT);
        int passes = switch (v) {
            case "default" -> options.cohortMaxPasses();
            case "on" -> options.cohortEnabled() ? options.cohortMaxPasses() : LockOptions.DEFAULT_COHORT_MAX_PASSES;
            case "off" -> 0;
            default -> throw new IllegalArgumentException("-D" + PROPERTY + " must be 'on', 'off' or 'default', was '"
                    + System.getProperty(PROPERTY) + "'");
        };
        if (!options.localHandoffEnabled()) {
            passes = 0; // a run starts with a transfer in Redis
        }
        return new Cohort(passes, options.cohortMaxRun().toNanos());
    }

    /** @return whether cohorts are on */
    public boolean enabled() {
        return maxPasses > 0;
    }

    /**
     * A transfer in Redis (no other client's waiter listened) made {@code hold} the holder of
     * {@code line}: a run starts, anchored at its field.
     */
    public void opened(String line, Hold hold) {
        if (maxPasses > 0 && hold != null) {
            runs.put(line, new Run(hold.field(), hold, System.nanoTime()));
        }
    }

    /** The lock left Redis under {@code anchor} (released, transferred, lost): its run, if any, is over. */
    void ended(String line, String anchor) {
        if (!runs.isEmpty()) {
            runs.computeIfPresent(line, (k, r) -> r.anchor.equals(anchor) ? null : r);
        }
    }

    /**
     * @return the run {@code field} holds {@code line} in and may pass once more now, or null:
     *     no run, another holder's, or past its bound (the unlock goes to Redis)
     */
    Run credit(String line, String field) {
        Run run = runs.get(line);
        if (run == null) {
            return null;
        }
        synchronized (run) {
            if (!run.hold.field().equals(field) || run.passes >= maxPasses
                    || System.nanoTime() - run.startNanos > maxRunNanos) {
                return null;
            }
            return run;
        }
    }

    /** What {@link #passOn} answers when it passed the lock. */
    public static final String PASSED = new String("passed"); // compared by identity

    /**
     * The owner {@code field}'s last unlock of {@code name}: inside a run that may go on, claims
     * the oldest armed (watchdog) offer on {@code line}, moves the hold to its owner in the
     * registry, and grants the offer; no Redis call.
     *
     * @return null: nothing changed, release in Redis as usual; {@link #PASSED}: the waiter owns
     *     the lock now; otherwise the field Redis holds the lock under, which the caller gives back
     *     in Redis: the hold moved but could not stand (the client closed as it moved, or the
     *     waiter gave up on the claim), so nobody holds it here
     */
    public String passOn(HoldRegistry holds, Handoff handoff, String line, String name, String field) {
        Run run = credit(line, field);
        if (run == null || !holds.lastHold(name, field)) {
            return null;
        }
        Handoff.Offer to = handoff.claimForCohort(line);
        if (to == null) {
            return null;
        }
        Hold next = pass(run, holds, name, field, to.field(), to.ownerId());
        if (next == null) { // not passable (an unlock in flight, an explicit lease, a loss): release in Redis
            handoff.unclaim(to, Handoff.Unclaim.SLEEP_ON);
            return null;
        }
        if (next.field().equals(to.field()) && handoff.grant(to)) {
            return PASSED;
        }
        if (next.field().equals(to.field())) {
            holds.unregister(name, to.field());
        }
        handoff.unclaim(to, Handoff.Unclaim.WAKE); // a waiter that waits on attempts again, by its own field
        ended(line, next.redisField());
        return next.redisField();
    }

    /**
     * Passes the run's hold from {@code from} to {@code to} in the registry (see
     * {@link HoldRegistry#pass}); the run follows a pass that took place.
     */
    Hold pass(Run run, HoldRegistry holds, String name, String from, String to, long toOwnerId) {
        synchronized (run) {
            Hold next = holds.pass(name, from, to, toOwnerId, System.nanoTime());
            if (next != null && next.field().equals(to)) {
                run.hold = next;
                run.passes++;
            }
            return next;
        }
    }

    /**
     * @return whether {@code field} is the anchor of a live run of {@code line} held by another
     *     owner now: Redis still shows it, so its owner's attempt must not reach Redis (it would
     *     re-enter); a run whose hold is gone is forgotten here
     */
    public boolean lent(String line, String name, String field, HoldRegistry holds) {
        if (runs.isEmpty()) {
            return false;
        }
        Run run = runs.get(line);
        if (run == null || !run.anchor.equals(field)) {
            return false;
        }
        synchronized (run) {
            Hold h = run.hold;
            if (h.field().equals(field)) {
                return false;
            }
            if (holds.get(name, h.field()) == h && h.valid()) {
                return true;
            }
        }
        runs.remove(line, run);
        return false;
    }

    /**
     * @return the hold of the owner that holds {@code name} now through a live run Redis shows under
     *     {@code anchor}, when that owner is not the anchor's own; else null (for inspect; no change)
     */
    Hold holderFor(String name, String anchor, HoldRegistry holds) {
        Run run = runs.isEmpty() ? null : runs.get(Handoff.line(FAMILY, name));
        if (run == null || !run.anchor.equals(anchor)) {
            return null;
        }
        Hold h;
        synchronized (run) {
            h = run.hold;
        }
        return !h.field().equals(anchor) && holds.get(name, h.field()) == h && h.valid() ? h : null;
    }

    /** @return the runs remembered (for tests and leak checks) */
    public int activeRuns() {
        return runs.size();
    }
}
