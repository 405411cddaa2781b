package io.github.relock.core.internal;

import io.github.relock.spi.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
 * once, while a head whose process died blocks the queue for at most `wait` (fairLockWaitTimeout). Redisson waiters in the same queue see
 * ordinary deadlines: the refresh only ever moves the refreshing waiter's own score later, and the
 * `ZINCRBY -wait` on each acquisition keeps every score's meaning (one wait per slot ahead).
 *
 * Consistency: a member of the list always has a score and vice versa; every script writes both
 * together, the prune repairs a scoreless head left by anyone else, and a waiter that gives up
 * (timeout, interrupt, cancellation, error) leaves both (acquireFailed), waking the new head if the
 * lock is free.
 *
 * Thread-safety: immutable.
 */
final class FairProtocol implements LockProtocol {
    private final DefaultLockClient client;
    private final String channel;
    private final List<String> acquireKeys;
    private final List<String> releaseKeys;
    private final List<String> queueKeys;
    private final long waitMs;
    private final boolean reentrant;

    /** @param reentrant false for the non-reentrant fair lock: a holder's second attempt is refused */
    FairProtocol(DefaultLockClient client, String name, boolean reentrant) {
        this.reentrant = reentrant;
        this.client = client;
        this.channel = Keys.lockChannel(name);
        String queue = Keys.prefixName("redisson_lock_queue", name);
        String timeouts = Keys.prefixName("redisson_lock_timeout", name);
        this.acquireKeys = List.of(name, queue, timeouts);
        this.releaseKeys = List.of(name, queue, timeouts, channel);
        this.queueKeys = List.of(queue, timeouts, name, channel);
        this.waitMs = client.options().fairLockWaitTimeout().toMillis();
    }

    @Override
    public String kind() {
        return reentrant ? "FairRedisLock" : "NonReentrantFairRedisLock";
    }

    @Override
    public String waitChannel(String field) {
        return channel + ":" + field;
    }

    @Override
    public Script acquireScript() {
        return Scripts.FAIR_ACQUIRE;
    }

    @Override
    public List<String> acquireKeys(String field) {
        return acquireKeys;
    }

    @Override
    public List<String> acquireArgs(long ttlMs, String field, boolean queue) {
        return List.of(Long.toString(ttlMs), field, Long.toString(waitMs), Long.toString(System.currentTimeMillis()),
                queue ? "queue" : "try", reentrant ? "reentrant" : "nonreentrant");
    }

    @Override
    public Script releaseScript() {
        return Scripts.FAIR_RELEASE;
    }

    @Override
    public List<String> releaseKeys(String field) {
        return releaseKeys;
    }

    @Override
    public List<String> releaseArgs(long ttlMs, String field) {
        return List.of(Long.toString(ttlMs), field, Long.toString(System.currentTimeMillis()), client.publishMode());
    }

    @Override
    public boolean handsOff() {
        return true;
    }

    /** The script hands off only to a candidate that heads the queue; otherwise it releases as usual. */
    @Override
    public boolean handsOffToQueueHead() {
        return true;
    }

    @Override
    public List<String> transferArgs(long ttlMs, String field, List<String> candidates) {
        List<String> args = new java.util.ArrayList<>(5 + candidates.size());
        args.add(Long.toString(ttlMs));
        args.add(field);
        args.add(Long.toString(System.currentTimeMillis()));
        args.add(client.publishMode());
        args.add(Long.toString(waitMs));
        args.addAll(candidates);
        return args;
    }

    @Override
    public Script forceReleaseScript() {
        return Scripts.FAIR_FORCE_RELEASE;
    }

    @Override
    public List<String> forceReleaseKeys() {
        return releaseKeys;
    }

    @Override
    public List<String> forceReleaseArgs() {
        return List.of(Long.toString(System.currentTimeMillis()), client.publishMode());
    }

    @Override
    public CompletableFuture<Void> giveUp(String field) {
        // Sent even while the client closes (close() waits for it), so no queue entry outlives its waiter.
        return client.cleanup(client.evalAsync(Scripts.FAIR_ACQUIRE_FAILED, queueKeys,
                List.of(field, Long.toString(waitMs), client.publishMode())).thenApply(r -> null));
    }

    @Override
    public long maxPollIntervalMs() {
        return Math.max(1, waitMs / 3);
    }
}
