package io.github.relock.core.internal.lock;

import io.github.relock.api.ReleaseOutcome;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.protocol.Candidate;
import io.github.relock.core.internal.protocol.Release;
import io.github.relock.core.internal.run.ReplicaShortfall;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.util.Replies;
import java.util.List;
import io.github.relock.core.internal.wait.Handoff;
import io.github.relock.core.internal.wait.Channel;
import java.util.concurrent.CompletableFuture;

/*
 * Design: releasing one hold of one lock, blocking or not: one preparation, one sender per mode,
 * one translation of the outcome (no blocking/async twins).
 *
 * Prepare: mark the hold releasing (a renewal miss meanwhile is no loss); if this is the owner's
 * last hold and the lock type hands off, claim the oldest armed offer of a waiter of this client
 * on the lock's hand-off line, and name it in the release call.
 *
 * Outcome:
 *   HandedOff      the script made the claimed waiter the owner: register its hold, grant the
 *                  offer; a waiter that gave up on the claim meanwhile refuses the grant: no hold
 *                  is registered for it, and the lock is given back only if it left (one that
 *                  waits on takes it with its next attempt, in RESOLVE mode)
 *   Released(n)    the lock went (published): the claim, if any, is withdrawn; if nobody heard
 *                  the message (n == 0) while waiters of this client wait, one of them is woken
 *                  here: a release this client expected its own waiters to hear, unheard
 *   StillHeld      a reentrant count remains: the claim is withdrawn, its waiter sleeps on
 *   NotHeld(free)  the owner did not hold it: withdrawn; IllegalMonitorStateException, except a
 *                  fair lock found free (Redisson's fair unlock returns there), which reports the
 *                  loss through onLost instead; a lease's release() answers it as a ReleaseOutcome
 *   failure        not sent: the hold stays, may be released again; otherwise the outcome is
 *                  unknown: the hold is dropped (it expires if the release never ran), the claim
 *                  is withdrawn with `resolve`, so its waiter's next attempt takes a transfer that
 *                  did land instead of counting it twice; the lost reply is reported once
 *
 * Thread-safety: stateless; safe for use by several threads.
 */
final class LockRelease {
    private final RedisLock lock;

    LockRelease(RedisLock lock) {
        this.lock = lock;
    }

    /** One release in flight: the owner, its call, and the waiter it may hand the lock to. */
    private record Releasing(long ownerId, String field, String sent, Call<Release> call, Handoff.Offer to,
            long sentAt) {
    }

    void release(long ownerId) {
        release(ownerId, false);
    }

    /**
     * @param answer whether a lock this owner no longer holds is answered as a value (a lease's
     *     release()) instead of thrown
     */
    ReleaseOutcome release(long ownerId, boolean answer) {
        lock.services.ensureOpen();
        if (passInCohort(ownerId)) {
            return ReleaseOutcome.RELEASED;
        }
        Releasing r = prepare(ownerId);
        Runnable settled = lock.services.watches().ownRelease(lock.name);
        try {
            Release outcome;
            try {
                outcome = lock.services.runner().runWrite(what(), r.call);
            } catch (ReplicaShortfall e) {
                apply(r, e.outcome(Release.class), answer); // done on the master: keep the registry in step
                throw e;
            } catch (RuntimeException e) {
                failed(r, e);
                throw e;
            }
            return apply(r, outcome, answer);
        } finally {
            settled.run();
        }
    }

    CompletableFuture<Void> releaseAsync(long ownerId) {
        return releaseAsync(ownerId, false).thenApply(o -> null);
    }

    /** {@link #release(long, boolean)} without blocking. */
    CompletableFuture<ReleaseOutcome> releaseAsync(long ownerId, boolean answer) {
        try {
            lock.services.ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (passInCohort(ownerId)) {
            return CompletableFuture.completedFuture(ReleaseOutcome.RELEASED);
        }
        Releasing r = prepare(ownerId);
        Runnable settled = lock.services.watches().ownRelease(lock.name);
        CompletableFuture<Release> sent;
        try {
            sent = lock.services.runner().runWriteAsync(what(), r.call);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((outcome, error) -> {
            try {
                if (error != null) {
                    Throwable cause = ScriptRunner.unwrap(error);
                    if (cause instanceof ReplicaShortfall shortfall) {
                        apply(r, shortfall.outcome(Release.class), answer);
                    } else {
                        failed(r, cause);
                    }
                    throw ScriptRunner.asRuntime(cause);
                }
                return apply(r, outcome, answer);
            } finally {
                settled.run();
            }
        });
    }

    private String what() {
        return "unlock of lock '" + lock.name + "'";
    }

    private Releasing prepare(long ownerId) {
        ClientServices services = lock.services;
        String field = lock.field(ownerId);
        String sent = services.holds().redisField(lock.name, field); // a cohort hold: the run's anchor
        long ttl = services.holds().beginRelease(lock.name, field);
        Handoff.Offer to = null;
        String family = lock.protocol.handoffFamily();
        if (family != null && services.handoff().enabled() && !services.runner().waitsForReplicas(lock.name)
                && services.holds().lastHold(lock.name, field)) {
            to = services.handoff().claim(Handoff.line(family, lock.name), !lock.protocol.handsOffToQueueHead());
        }
        Candidate candidate = to == null ? null : new Candidate(to.field(), lock.ttlArg(to.ttlMs()));
        return new Releasing(ownerId, field, sent, lock.protocol.release(sent, ttl, candidate), to, System.nanoTime());
    }

    private void failed(Releasing r, Throwable cause) {
        ClientServices services = lock.services;
        if (ScriptRunner.notSent(cause)) {
            services.holds().releaseNotSent(lock.name, r.field); // never ran: still held, still renewed
            services.handoff().unclaim(r.to, Handoff.Unclaim.SLEEP_ON);
            return;
        }
        services.holds().releaseFailed(lock.name, r.field); // outcome unknown: stop renewing; it expires if it never ran
        services.cohort().ended(cohortLine(), r.sent);
        services.handoff().unclaim(r.to, Handoff.Unclaim.UNKNOWN);
        lock.reportUnknown(cause, r.to != null ? "hand-off release" : "release");
    }

    private ReleaseOutcome apply(Releasing r, Release outcome, boolean answer) {
        ClientServices services = lock.services;
        if (outcome instanceof Release.HandedOff && r.to == null) { // handed to nobody this release named
            failed(r, new IllegalStateException("unexpected hand-off"));
            throw Replies.malformed(List.of(2L, 0L), r.call.script(), lock.name,
                    "a hand-off only from a release that named a waiting owner");
        }
        if (outcome instanceof Release.StillHeld) {
            services.holds().released(lock.name, r.field, true);
            services.handoff().unclaim(r.to, Handoff.Unclaim.SLEEP_ON);
            return ReleaseOutcome.RELEASED;
        }
        services.cohort().ended(cohortLine(), r.sent); // the anchor left Redis: its run, if any, is over
        if (outcome instanceof Release.NotHeld notHeld) {
            services.handoff().unclaim(r.to, Handoff.Unclaim.WAKE);
            boolean quiet = notHeld.free() && lock.protocol.unlockOfFreeLockReturns();
            services.holds().notHeld(lock.name, r.field, quiet && !answer);
            if (answer) {
                return notHeld.free() ? ReleaseOutcome.ALREADY_EXPIRED : ReleaseOutcome.HELD_BY_ANOTHER;
            }
            if (!quiet) {
                throw new IllegalMonitorStateException("attempt to unlock lock '" + lock.name
                        + "', not locked by current thread by node id: " + services.clientId() + " thread-id: "
                        + r.ownerId + (notHeld.free()
                                ? ": the lock is free (its lease expired or it was force-unlocked)"
                                : ": it is held by another owner"));
            }
            return ReleaseOutcome.ALREADY_EXPIRED;
        }
        Hold held = services.events().timing() ? services.holds().get(lock.name, r.field) : null;
        services.holds().released(lock.name, r.field, false);
        if (held != null) {
            services.events().released(lock.name, System.nanoTime() - held.acquiredNanos());
        }
        if (outcome instanceof Release.HandedOff) {
            handOff(r);
            return ReleaseOutcome.RELEASED;
        }
        services.watches().freed(lock.name);
        long heard = ((Release.Released) outcome).heard();
        services.handoff().unclaim(r.to, heard > 0 ? Handoff.Unclaim.SLEEP_ON : Handoff.Unclaim.WAKE);
        if (heard == 0 && r.to == null && !lock.protocol.handsOffToQueueHead()) { // a fair head has its own channel
            Channel e = services.waiters().entry(lock.protocol.waitChannel(r.field));
            if (e != null) {
                e.wakeOne(); // nobody heard the release, our own waiters included: tell one of them here
            }
        }
        String family = lock.protocol.handoffFamily();
        if (family != null && services.handoff().enabled()) {
            services.handoff().wakeOtherFamilies(lock.name, family, FAMILIES);
        }
        return ReleaseOutcome.RELEASED;
    }

    private String cohortLine() {
        return Handoff.line(Cohort.FAMILY, lock.name);
    }

    /**
     * A cohort pass (see Cohort): the owner's last unlock, inside a run that may go on, hands the
     * hold to the oldest armed waiter of this client with no Redis call.
     *
     * @return whether the unlock is done (passed, or given back after a pass that could not stand);
     *     false: release in Redis as usual
     */
    private boolean passInCohort(long ownerId) {
        ClientServices services = lock.services;
        Cohort cohort = services.cohort();
        if (!cohort.enabled() || !Cohort.FAMILY.equals(lock.protocol.handoffFamily())) {
            return false;
        }
        String field = lock.field(ownerId);
        Hold held = services.events().timing() ? services.holds().get(lock.name, field) : null;
        String outcome = cohort.passOn(services.holds(), services.handoff(), cohortLine(), lock.name, field);
        if (outcome == null) {
            return false;
        }
        if (held != null) {
            services.events().released(lock.name, System.nanoTime() - held.acquiredNanos());
        }
        if (outcome != Cohort.PASSED) {
            GiveBack.unregistered(lock, outcome, services.watchdogMs()); // nobody holds it here
        }
        return true;
    }

    /** The lock types that hand off, whose waiters may share a name (spec 9.10: unsupported, but not stranded). */
    private static final java.util.List<String> FAMILIES = java.util.List.of("RedisLock", "NonReentrantRedisLock",
            "FairRedisLock", "NonReentrantFairRedisLock");

    /**
     * The release script handed the lock to the claimed waiter: register its hold and wake it. If
     * the waiter gave up on the claim first, no hold is registered for it, and the lock is given
     * back only if the waiter left: a waiter that waits on takes it with its next attempt (see
     * Handoff's design comment). If the client closed meanwhile, the lock is given back.
     */
    private void handOff(Releasing r) {
        ClientServices services = lock.services;
        Handoff handoff = services.handoff();
        Handoff.Offer to = r.to;
        if (handoff.claimed(to)) {
            Hold next = services.holds().register(lock.name, to.field(), to.ownerId(), lock.name, to.ttlMs(), r.sentAt,
                    Acquire.NO_TOKEN, lock.protocol.timeoutKeyPrefix());
            if (next == null) {
                // closed: the waiter sees it; given back, unless the waiter gave up on the claim and may take it
                if (handoff.unclaim(to, Handoff.Unclaim.WAKE) || !handoff.landed(to)) {
                    GiveBack.unregistered(lock, to.field(), lock.ttlArg(to.ttlMs()));
                }
                return;
            }
            if (Cohort.FAMILY.equals(lock.protocol.handoffFamily())) {
                services.cohort().opened(cohortLine(), next); // no other client's waiter listened: a run may start
            }
            if (handoff.grant(to)) {
                return;
            }
            services.cohort().ended(cohortLine(), to.field());
            services.holds().unregister(lock.name, to.field()); // the waiter gave up on the claim just now: not ours
        }
        if (!handoff.landed(to)) { // the waiter left: nobody will take it
            GiveBack.unregistered(lock, to.field(), lock.ttlArg(to.ttlMs()));
        }
    }
}
