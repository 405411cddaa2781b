package io.github.relock.core.internal.wait;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.WaitPolicy;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.util.Args;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one wait machine: every wait for a lock (a blocked thread, an asynchronous caller, a
 * multi-lock's member) is one Wait; this class decides, a runner acts ({@link BlockingWait},
 * {@link AsyncWait}). Each decision method answers what the runner does next (ATTEMPT, SUBSCRIBE,
 * PARK, FINISH); the package's design comment ({@code package-info}) describes the steps, the
 * wake-up sources, hand-off, outages and polling bounds.
 *
 * <p>Thread-safety: the machine's fields are touched by its runner only (the blocked thread; or, for
 * async waits, one event at a time); {@link #wake()} and {@link #message()} may come from any thread.
 */
abstract class Wait implements Channel.Parked {
    /** What the runner does next. */
    enum Next { ATTEMPT, SUBSCRIBE, PARK, FINISH }

    /** Whether finishing is done, or must first park to let a claimed offer settle. */
    enum Finish { DONE, SETTLE }

    /** Pause before the next attempt of a waiter whose attempt failed for want of Redis. */
    static final long RETRY_AFTER_OUTAGE_MS = 250;
    /** Longest pause between polls when the lock is free but another waiter's (a fair queue's head goes first). */
    static final long MAX_BACKOFF_MS = 100;

    final WaitTarget target;
    final WaitContext ctx;
    final WaitPolicy protocol;
    final long ownerId;
    final long ttlMs;
    final boolean queue;
    final boolean forever;
    final long deadline;
    final String field;
    final String channel;
    /** The hand-off line this wait posts its offer on, or null where hand-off does not apply. */
    final String line;
    /**
     * Whether this wait is ordered with its owner's other calls on the lock (locks, whose field names
     * one owner; not synchronizers): once a caller leaves a wait that still runs, the owner's next
     * call on the lock starts after it.
     */
    private final boolean ordered;
    /** The lock and owner field, the key of that order; made when first needed (a benign race: equal strings). */
    private String ownerKey;

    // ---- the machine's state: its runner's only
    Channel entry;
    private Channel live;
    Handoff.Offer offer;
    private long firstTtl;
    private boolean first = true;
    private boolean spinning;
    private boolean joined; // counted in Waiters.active (what close() waits for) until done()
    private int idlePolls;
    private long unavailableSince;
    private boolean resolve;
    private long settleDeadline;
    /** The caller left (async: cancel, orTimeout, close): the wait ends at its next step. */
    boolean callerLeft;
    AttemptMode mode;
    long parkNanos;
    boolean parkOnEntry;
    long epochAtAttempt;
    boolean acquired;
    private boolean subscribeBoundByDeadline; // the last subscription budget was cut to the caller's deadline
    Throwable error;
    /** The lock came to this wait (a grant, or an attempt landing) after its caller had left: give it back. */
    boolean unwanted;
    /** A message picked this waiter and it has not attempted since: if it leaves, it passes it on (any thread). */
    volatile boolean messageWake;
    /** Give-backs this wait sent: its owner's next call waits for them too (see {@link #callerLeaving}). */
    private volatile CompletableFuture<Void> givingBack = NOTHING;
    /** Completes when this wait, its caller gone, is over; null while its caller has not left. */
    private volatile CompletableFuture<Void> leftBehind;
    private volatile boolean over;

    private static final CompletableFuture<Void> NOTHING = CompletableFuture.completedFuture(null);

    /**
     * @param waitMs {@link Args#WAIT_FOREVER}, {@link Args#TRY_ONCE}, or the longest wait in ms
     * @param ttlMs the TTL to acquire with, or {@link Args#TTL_WATCHDOG}
     */
    Wait(WaitTarget target, WaitContext ctx, long waitMs, long ttlMs, long ownerId) {
        this.target = target;
        this.ctx = ctx;
        this.protocol = target.protocol();
        this.ownerId = ownerId;
        this.ttlMs = ttlMs;
        this.queue = waitMs != Args.TRY_ONCE;
        this.forever = waitMs == Args.WAIT_FOREVER;
        this.deadline = forever || !queue ? 0 : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        this.field = target.field(ownerId);
        this.channel = protocol.waitChannel(field);
        String family = protocol.handoffFamily();
        // Posted also where lock writes wait for replicas: no release claims an offer there
        // (LockRelease), but a release of another lock type on the name wakes it through its offer
        // (rule 13.5.1: a fair waiter on its own channel hears no reentrant release).
        this.line = family != null && ctx.handoff().enabled() ? Handoff.line(family, target.name()) : null;
        this.ordered = protocol.resolvesLostReplies();
    }

    /** Wakes the wait: its park returns (blocking) or its next step runs (async). Any thread. */
    abstract void wake();

    @Override
    public void message() {
        messageWake = true;
        wake();
    }

    @Override
    public boolean messagePending() {
        return messageWake;
    }

    Next start() {
        if (callerLeft) {
            return Next.FINISH; // left before the wait began (it waited for its owner's previous wait): nothing sent
        }
        if (!queue) {
            mode = AttemptMode.TRY; // never queues: close() has nothing to wait for
            return Next.ATTEMPT;
        }
        // Counted before the first attempt, which may queue the owner (a fair lock): close() waits
        // for the reply and for the give-up it calls for, so both go out before the driver closes.
        joined = true;
        ctx.waiters().started(this);
        if (ctx.isClosed()) { // close() sets the flag, then waits for every started wait: either it saw us, or we see it
            error = ctx.closedError(target.name());
            return Next.FINISH; // nothing sent: nothing to leave
        }
        live = ctx.waiters().subscribedChannel(channel);
        long local = heldByAnotherLocalOwner();
        if (local > 0) {
            first = false;
            return afterFirstBusy(local); // the attempt could only fail: queue for the next hand-off
        }
        mode = AttemptMode.QUEUE;
        return Next.ATTEMPT;
    }

    /** The runner is about to send an attempt: a message from now on is news to it. */
    void sending() {
        messageWake = false;
        Channel e = entry != null ? entry : live;
        if (e != null) {
            epochAtAttempt = e.epoch();
        }
    }

    Next attempted(Acquire outcome, Throwable failure) {
        boolean wasFirst = first;
        first = false;
        if (failure != null) {
            return attemptFailed(ScriptRunner.unwrap(failure), wasFirst);
        }
        if (outcome instanceof Acquire.Acquired) {
            acquired = true;
            if (callerLeft) {
                unwanted = true; // landed after the caller left: given back on finish
            }
            return Next.FINISH;
        }
        long ttl;
        if (outcome instanceof Acquire.Refused r) {
            if (!r.upgrade() || forever) {
                error = new IllegalMonitorStateException(protocol.refusal(field));
                return Next.FINISH;
            }
            ttl = -1; // a read holder's timed wait for the write lock: poll until its time runs out
        } else {
            ttl = ((Acquire.Busy) outcome).ttlMs();
        }
        if (!queue || callerLeft) {
            return Next.FINISH;
        }
        if (wasFirst) {
            return afterFirstBusy(ttl);
        }
        if (offer != null && offer.state() == Handoff.LANDED) {
            return beforeAttempt(); // a late transfer landed after this attempt ran: take it now
        }
        return spinning ? spinPark() : parkAfter(ttl);
    }

    private Next attemptFailed(Throwable cause, boolean wasFirst) {
        if (!wasFirst && !callerLeft && cause instanceof RedisUnavailableException && protocol.resolvesLostReplies()) {
            long now = System.nanoTime();
            unavailableSince = unavailableSince == 0 ? now : unavailableSince;
            if (now - unavailableSince <= ctx.subscriptionTimeoutNanos()) {
                resolve = true; // it may have run: the next attempt must not count it twice
                if (offer != null) {
                    ctx.handoff().arm(offer);
                }
                long remaining = forever ? Long.MAX_VALUE : deadline - now;
                if (remaining <= 0) {
                    return Next.FINISH;
                }
                parkNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(RETRY_AFTER_OUTAGE_MS), remaining);
                parkOnEntry = entry != null;
                return Next.PARK;
            }
        }
        error = cause;
        return Next.FINISH;
    }

    private Next afterFirstBusy(long ttl) {
        firstTtl = ttl;
        if (ctx.isClosed()) { // close() is waiting for us: leave the queue now instead of subscribing
            error = ctx.closedError(target.name());
            return Next.FINISH;
        }
        if (channel == null) {
            spinning = true;
            ctx.waiters().spinWaitStarted();
            return spinPark();
        }
        entry = ctx.waiters().join(channel, protocol.wakes(), protocol.wakeChannel(), protocol.wakeId(),
                protocol.leaveWaiting());
        return Next.SUBSCRIBE;
    }

    /** @return how long the runner may wait for the subscription, in ns; notes whether the caller's deadline cut it */
    long subscribeBudgetNanos() {
        long budget = ctx.subscriptionTimeoutNanos();
        long remaining = forever ? budget : deadline - System.nanoTime();
        subscribeBoundByDeadline = !forever && remaining <= budget;
        return Math.max(0, Math.min(budget, remaining));
    }

    Next subscribed(Throwable failure, boolean timedOut) {
        if (callerLeft) {
            return Next.FINISH;
        }
        if (timedOut) {
            if (subscribeBoundByDeadline || (!forever && deadline - System.nanoTime() <= 0)) {
                return Next.FINISH; // the caller's time ran out first (a runner's timer may fire just before it)
            }
            error = new RedisUnavailableException("subscription to " + entry.channel() + " not confirmed within "
                    + TimeUnit.NANOSECONDS.toMillis(ctx.subscriptionTimeoutNanos()) + " ms");
            return Next.FINISH;
        }
        if (failure != null) {
            Throwable cause = ScriptRunner.unwrap(failure);
            if (!(cause instanceof RedisErrorException)) {
                error = cause;
                return Next.FINISH;
            }
            // Refused, not unavailable (an ACL without this channel, a proxy without pub/sub): no
            // message will come, so poll, each park bounded by the TTL the last attempt saw.
            ctx.waiters().subscriptionRefused(entry.channel(), cause);
            entry.left(this, messageWake, acquired);
            ctx.waiters().leave(entry, acquired);
            entry = null;
            return beforeAttempt();
        }
        if (line != null) {
            offer = ctx.handoff().post(line, ownerId, field, ttlMs, this::wake);
        }
        return entry == live ? parkAfter(firstTtl) : beforeAttempt(); // a live entry: the first attempt stands
    }

    Next parked() {
        if (spinning) {
            if (ctx.isClosed() || callerLeft) {
                error = callerLeft ? error : ctx.closedError(target.name());
                return Next.FINISH;
            }
            mode = resolve ? AttemptMode.RESOLVE : AttemptMode.QUEUE;
            return Next.ATTEMPT;
        }
        return beforeAttempt();
    }

    private Next beforeAttempt() {
        if (callerLeft) {
            return Next.FINISH;
        }
        if (ctx.isClosed()) {
            error = ctx.closedError(target.name());
            return Next.FINISH;
        }
        while (offer != null && !ctx.handoff().busy(offer)) {
            int s = offer.state();
            if (s == Handoff.GRANTED) {
                acquired = true;
                return Next.FINISH;
            }
            if (s == Handoff.ARMED) {
                continue; // a claim withdrawn meanwhile: never drop an offer a releaser may claim again
            }
            if (Handoff.abandoned(offer)) {
                resolve = true; // we gave up on a claim: a transfer that landed since is ours to take
                break;
            }
            if (s != Handoff.CLAIMED) { // gone (not expected while waiting): wait without it
                dropOffer();
                break;
            }
            Claim c = settleClaim();
            if (c == Claim.PARK) {
                return Next.PARK;
            }
            if (c == Claim.OVERDUE && ctx.handoff().abandon(offer)) { // unanswered: wait on, resolving a late transfer
                resolve = true;
            }
        }
        if (offer != null) {
            ctx.handoff().settled(offer);
        }
        settleDeadline = 0;
        if (offer != null && offer.resolve) {
            resolve = true;
        }
        mode = resolve ? AttemptMode.RESOLVE : AttemptMode.QUEUE;
        return Next.ATTEMPT;
    }

    /** Where waiting for a releaser's claim on this wait's offer stands ({@link #settleClaim}). */
    private enum Claim {
        /** The releaser's script is in flight: park for {@code parkNanos}, until its answer wakes us. */
        PARK,
        /** The claim was decided meanwhile: look at the offer again. */
        DECIDED,
        /** It did not answer within twice the command timeout: give up on it (the caller says how). */
        OVERDUE
    }

    /**
     * The one place a wait settles a claim on its offer (the offer is CLAIMED: a releaser's script
     * names this waiter): before an attempt and while finishing alike, it waits for the claim's
     * decision for at most twice the command timeout from the first time it found it claimed.
     */
    private Claim settleClaim() {
        long now = System.nanoTime();
        if (settleDeadline == 0) {
            settleDeadline = now + 2 * ctx.commandTimeoutNanos();
        }
        if (now - settleDeadline >= 0) {
            return Claim.OVERDUE;
        }
        if (!ctx.handoff().settling(offer)) {
            return Claim.DECIDED;
        }
        parkNanos = settleDeadline - now;
        parkOnEntry = false;
        return Claim.PARK;
    }

    private void dropOffer() {
        ctx.handoff().leave(offer, acquired);
        offer = null;
    }

    /** @return whether this wait parks with a claimable offer (a releaser of this client may make it the owner) */
    boolean offerStanding() {
        return offer != null && !Handoff.abandoned(offer);
    }

    private Next parkAfter(long ttl) {
        if (offer != null) {
            ctx.handoff().arm(offer); // from now on a releaser of this client may hand the lock to us
        }
        idlePolls = ttl == 0 ? idlePolls + 1 : 0;
        long remaining = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
        if (remaining <= 0) {
            return Next.FINISH;
        }
        parkNanos = waitNanos(ttl, remaining);
        parkOnEntry = entry != null; // none: polling, the subscription was refused
        return Next.PARK;
    }

    private Next spinPark() {
        long remaining = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
        if (remaining <= 0) {
            return Next.FINISH;
        }
        parkNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(protocol.backOffMs(++idlePolls)), remaining);
        parkOnEntry = false;
        return Next.PARK;
    }

    /** How long to park after an attempt that answered {@code ttl}, given {@code remaining} ns. */
    private long waitNanos(long ttl, long remaining) {
        long ms = ttl >= 0 ? ttl : ctx.watchdogMs() / 3; // -1: a key without expiry; poll at the renewal rate
        long floor = Math.min(MAX_BACKOFF_MS, 2L << Math.min(idlePolls, 6));
        ms = Math.max(floor, Math.min(ms, protocol.maxPollIntervalMs()));
        return Math.min(TimeUnit.MILLISECONDS.toNanos(ms), remaining);
    }

    /**
     * A waiter need not ask Redis for a lock that a hand-off gave to another owner of this client
     * and that is still validly held: its attempt would fail. It queues for the next hand-off at
     * once, with the hold's remaining time as its first wait. Not for the fair lock, whose waiters
     * must join its queue in Redis.
     *
     * @return that remaining time in ms, or 0: attempt as usual
     */
    private long heldByAnotherLocalOwner() {
        if (line == null || protocol.handsOffToQueueHead()) {
            return 0;
        }
        String holder = ctx.handoff().heldLocally(line);
        return holder == null || holder.equals(field) ? 0 : Math.max(0, target.localHoldRemainingMs(holder));
    }

    /**
     * Leaves the offer (settling a claim in flight first: SETTLE asks the runner to park for
     * {@code parkNanos}, then call again) and the channel, passing on a message it took.
     */
    Finish finishing() {
        while (offer != null) {
            int s = ctx.handoff().leave(offer, acquired);
            if (s == Handoff.CLAIMED) {
                Claim c = settleClaim();
                if (c == Claim.PARK) {
                    return Finish.SETTLE;
                }
                if (c == Claim.OVERDUE) {
                    ctx.handoff().leaveClaimed(offer); // its releaser gives back a transfer that lands later
                }
                continue;
            }
            offer = null;
            if (s == Handoff.LANDED) {
                givingBack(target.giveBackTransfer(ownerId, ttlMs)); // landed after our last attempt; nobody takes it
            }
            if (s == Handoff.GRANTED && !acquired) {
                acquired = true; // handed to us just as we left
                if (error != null || callerLeft) {
                    unwanted = true; // leaving with an error, or nobody to take it: give it back
                }
            }
        }
        if (entry != null) {
            entry.left(this, messageWake, acquired); // a message that picked us, unused: the next waiter's
            ctx.waiters().leave(entry, acquired);
            entry = null;
        }
        if (spinning) {
            ctx.waiters().spinWaitEnded();
            spinning = false;
        }
        return Finish.DONE;
    }

    /** @return whether the wait must leave the wait queue before it ends (it queued, and ends without the lock) */
    boolean needsGiveUp() {
        return queue && !acquired && !first; // first: no attempt went out (the client closed before it)
    }

    /** The wait is over: close() no longer waits for it. Idempotent: the runner's last step. */
    void done() {
        if (joined) {
            joined = false;
            ctx.waiters().finished(this);
        }
    }

    /*
     * One owner's calls on one lock, one after another once a caller left. An owner is a thread:
     * one that cancels an asynchronous lock call (or lets it time out) and calls again is the same
     * owner field while the cancelled wait may still run: its attempt in flight, a give-back of an
     * acquisition that landed after the cancel. Were the new call's attempt to run beside them,
     * Redis could not tell the two apart: a resolve attempt of the old wait would take the new
     * call's acquisition as its own lost grant and give it back, and the hold registry would apply
     * the replies of the old give-back and the new acquisition in the order they arrive, not the
     * order Redis ran them. So a wait whose caller left stays on record (Waiters.leaving) until it
     * and its give-backs are over, and the owner's next wait on the lock starts only then: at most
     * one attempt in flight, one give-back, or one claim to settle, each bounded by the command
     * timeout. Costs one emptiness check per wait while no caller has left.
     */

    /** @return the owner's previous wait on this lock, still running after its caller left, or null: start now */
    CompletableFuture<Void> predecessor() {
        return ordered && ctx.waiters().anyLeaving() ? ctx.waiters().leavingWait(ownerKey()) : null;
    }

    /** The caller left while the wait runs (any thread): the owner's next call on this lock waits for its end. */
    void callerLeaving() {
        if (!ordered || over || leftBehind != null) {
            return;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        leftBehind = f;
        ctx.waiters().leaving(ownerKey(), f);
        if (over) { // over meanwhile (Dekker-style with overForOwner: one of the two sees the other)
            givingBack.whenComplete((v, t) -> ctx.waiters().over(ownerKey(), f));
        }
    }

    private String ownerKey() {
        String k = ownerKey;
        if (k == null) {
            k = target.name() + '\0' + field;
            ownerKey = k;
        }
        return k;
    }

    /** Records a give-back this wait sent; the runner's only. */
    void givingBack(CompletableFuture<Void> back) {
        CompletableFuture<Void> g = givingBack;
        givingBack = g == NOTHING ? back : CompletableFuture.allOf(g, back);
    }

    /** The wait has ended and sent its last give-back: once those are over, the owner's next call may go. */
    void overForOwner() {
        over = true;
        CompletableFuture<Void> f = leftBehind;
        if (f != null) {
            givingBack.whenComplete((v, t) -> ctx.waiters().over(ownerKey(), f));
        }
    }

    /** @return whether the wait ends holding the lock for its caller */
    boolean holds() {
        return acquired && !unwanted;
    }
}
