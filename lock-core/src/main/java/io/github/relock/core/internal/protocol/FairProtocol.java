package io.github.relock.core.internal.protocol;

import io.github.relock.core.internal.util.Keys;
import io.github.relock.core.internal.util.Scripts;
import java.util.ArrayList;
import java.util.List;

/*
 * Design: the fair lock (spec 2.2, 5.4), on Redisson's keys: hash N, list
 * redisson_lock_queue:{N} of waiting owner fields, zset redisson_lock_timeout:{N} of their
 * deadlines (epoch ms, from the clients' wall clocks), and one channel per waiter,
 * redisson_lock__channel:{N}:<owner field>. Only the head of the queue is woken on release; the
 * others poll.
 *
 * Liveness, better than Redisson and compatible with it. Redisson sets a waiter's deadline once,
 * at enqueue time, so during a long hold a live head waiter passes its deadline, is pruned by the
 * next script, and re-enters at the tail. relock's acquire script refreshes the deadline of a
 * queued waiter each time it polls, to what a new waiter at its position would get
 * (lock TTL + position x wait), and relock waiters poll at least every wait / 3. So a live relock
 * waiter keeps its place however long the lock is held. And while the lock is free, a polling
 * waiter caps the head's deadline at now + wait: a live head is woken by the release and claims at
 * once, while a head whose process died blocks the queue for at most `wait` (fairLockWaitTimeout).
 * Redisson waiters in the same queue see ordinary deadlines: the refresh only ever moves the
 * refreshing waiter's own score later, and the `ZINCRBY -wait` on each acquisition keeps every
 * score's meaning (one wait per slot ahead).
 *
 * Consistency: a member of the list always has a score and vice versa; every script writes both
 * together, the prune repairs a scoreless head left by anyone else, and a waiter that gives up
 * (timeout, interrupt, cancellation, error, its client closing) leaves both (acquireFailed), waking
 * the new head if the lock is free.
 *
 * Thread-safety: immutable.
 */
public final class FairProtocol implements LockProtocol {
    private final ProtocolContext ctx;
    private final String name;
    private final String channel;
    private final List<String> acquireKeys;
    private final List<String> releaseKeys;
    private final List<String> queueKeys;
    private final boolean reentrant;

    /**
     * @param ctx the client's settings
     * @param name the lock's name
     * @param reentrant false for the non-reentrant fair lock: a holder's second attempt is refused
     */
    public FairProtocol(ProtocolContext ctx, String name, boolean reentrant) {
        this.ctx = ctx;
        this.name = name;
        this.reentrant = reentrant;
        this.channel = Keys.lockChannel(name);
        String queue = Keys.prefixName("redisson_lock_queue", name);
        String timeouts = Keys.prefixName("redisson_lock_timeout", name);
        this.acquireKeys = List.of(name, queue, timeouts);
        this.releaseKeys = List.of(name, queue, timeouts, channel);
        this.queueKeys = List.of(queue, timeouts, name, channel);
    }

    @Override
    public String kind() {
        return reentrant ? "FairRedisLock" : "NonReentrantFairRedisLock";
    }

    @Override
    public String name() {
        return name;
    }

    private String now() {
        return Long.toString(System.currentTimeMillis());
    }

    @Override
    public Call<Acquire> acquire(String field, long ttlMs, AttemptMode mode) {
        return new Call<>(Scripts.FAIR_ACQUIRE, acquireKeys, List.of(Long.toString(ttlMs), field,
                Long.toString(ctx.fairWaitMs()), now(), mode == AttemptMode.TRY ? "try" : "queue",
                reentrant ? "reentrant" : "nonreentrant", mode == AttemptMode.RESOLVE ? "resolve" : ""),
                Decoders.acquire(Scripts.FAIR_ACQUIRE, name, false));
    }

    /** The script hands off only to a candidate that heads the queue; otherwise it releases as usual. */
    @Override
    public Call<Release> release(String field, long ttlMs, Candidate transferTo) {
        List<String> args = new ArrayList<>(7);
        args.add(Long.toString(ttlMs));
        args.add(field);
        args.add(now());
        args.add(ctx.publishMode());
        if (transferTo != null) {
            args.add(Long.toString(ctx.fairWaitMs()));
            args.add(transferTo.field());
            args.add(Long.toString(transferTo.ttlMs()));
        }
        return new Call<>(Scripts.FAIR_RELEASE, releaseKeys, args, Decoders.release(Scripts.FAIR_RELEASE, name));
    }

    @Override
    public Call<Boolean> forceRelease() {
        return new Call<>(Scripts.FAIR_FORCE_RELEASE, releaseKeys, List.of(now(), ctx.publishMode()),
                Decoders.flag(Scripts.FAIR_FORCE_RELEASE, name));
    }

    @Override
    public Call<Boolean> expire(String field, long ttlMs) {
        return new Call<>(Scripts.LOCK_EXPIRE, List.of(name), List.of(Long.toString(ttlMs), field),
                Decoders.flag(Scripts.LOCK_EXPIRE, name));
    }

    @Override
    public Call<LockState> state(String field) {
        return new Call<>(Scripts.LOCK_STATE, List.of(name), List.of(field), Decoders.state(Scripts.LOCK_STATE, name));
    }

    @Override
    public Call<Void> giveUp(String field) {
        return new Call<>(Scripts.FAIR_ACQUIRE_FAILED, queueKeys,
                List.of(field, Long.toString(ctx.fairWaitMs()), ctx.publishMode()), Decoders.ignored());
    }

    @Override
    public String waitChannel(String field) {
        return channel + ":" + field;
    }

    @Override
    public long maxPollIntervalMs() {
        return Math.max(1, ctx.fairWaitMs() / 3);
    }

    @Override
    public String handoffFamily() {
        return kind();
    }

    @Override
    public boolean handsOffToQueueHead() {
        return true;
    }

    @Override
    public boolean unlockOfFreeLockReturns() {
        return true;
    }
}
