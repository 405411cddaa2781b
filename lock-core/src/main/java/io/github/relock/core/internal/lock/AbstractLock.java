package io.github.relock.core.internal.lock;

import io.github.relock.core.internal.util.Args;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

/**
 * Every {@link DistributedLock} overload, once, for every lock type (single and multi/red): each
 * checks and converts its arguments ({@link Args}) and calls one of five primitives. Waits are
 * internal milliseconds ({@link Args#WAIT_FOREVER}, {@link Args#TRY_ONCE} or a duration), TTLs
 * internal milliseconds or {@link Args#TTL_WATCHDOG}; owners are thread ids or lease ids.
 *
 * <p>Thread-safety: safe for use by several threads if the primitives are.
 */
public abstract class AbstractLock implements DistributedLock {

    /**
     * Acquires for {@code ownerId}, blocking the caller.
     *
     * @param interruptible whether an interrupt aborts the wait (if not, the status is restored after)
     * @return whether the lock was acquired ({@link Args#WAIT_FOREVER} returns only true)
     */
    protected abstract boolean acquire(long waitMs, long ttlMs, long ownerId, boolean interruptible) throws InterruptedException;

    /**
     * Acquires for {@code ownerId} without blocking. The returned future is the caller's and the
     * one the implementation watches: completing it (cancel, orTimeout) ends the wait and gives
     * back an acquisition that lands later.
     *
     * @param outcome maps "acquired?" to the caller's value; may throw (the future then fails)
     */
    protected abstract <T> CompletableFuture<T> acquireAsync(long waitMs, long ttlMs, long ownerId, Function<Boolean, T> outcome);

    /** Releases one acquisition of {@code ownerId}, blocking the caller. */
    protected abstract void release(long ownerId);

    /** Releases one acquisition of {@code ownerId} without blocking. */
    protected abstract CompletableFuture<Void> releaseAsync(long ownerId);

    /** @return the lease handle of lease id {@code id}, just acquired */
    protected abstract LockLease lease(long id);

    protected static long currentThreadId() {
        return Thread.currentThread().getId();
    }

    private String timeoutMessage(long waitMs) {
        return "lock '" + getName() + "' was still held by another owner after waiting " + waitMs + " ms";
    }

    private void acquireUninterruptibly(long ttlMs) {
        try {
            acquire(Args.WAIT_FOREVER, ttlMs, currentThreadId(), false);
        } catch (InterruptedException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private LockLease acquireLease(long waitMs, long ttlMs) throws InterruptedException {
        long id = Leases.nextId();
        if (!acquire(waitMs, ttlMs, id, true)) {
            throw new LockTimeoutException(timeoutMessage(waitMs));
        }
        return lease(id);
    }

    // ---------------------------------------------------------------- blocking, thread-bound

    @Override
    public final void lock() {
        acquireUninterruptibly(Args.TTL_WATCHDOG);
    }

    @Override
    public final void lock(long leaseTime, TimeUnit unit) {
        acquireUninterruptibly(Args.leaseMs(leaseTime, unit));
    }

    @Override
    public final void lock(Duration leaseTime) {
        acquireUninterruptibly(Args.leaseMs(leaseTime));
    }

    @Override
    public final void lockInterruptibly() throws InterruptedException {
        acquire(Args.WAIT_FOREVER, Args.TTL_WATCHDOG, currentThreadId(), true);
    }

    @Override
    public final void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquire(Args.WAIT_FOREVER, Args.leaseMs(leaseTime, unit), currentThreadId(), true);
    }

    @Override
    public final boolean tryLock() {
        try {
            return acquire(Args.TRY_ONCE, Args.TTL_WATCHDOG, currentThreadId(), false);
        } catch (InterruptedException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    @Override
    public final boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return acquire(Args.waitMs(waitTime, unit), Args.TTL_WATCHDOG, currentThreadId(), true);
    }

    @Override
    public final boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long ttl = Args.leaseMs(leaseTime, unit);
        return acquire(Args.waitMs(waitTime, unit), ttl, currentThreadId(), true);
    }

    @Override
    public final boolean tryLock(Duration waitTime) throws InterruptedException {
        return acquire(Args.waitMs(waitTime), Args.TTL_WATCHDOG, currentThreadId(), true);
    }

    @Override
    public final boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long ttl = Args.leaseMs(leaseTime);
        return acquire(Args.waitMs(waitTime), ttl, currentThreadId(), true);
    }

    @Override
    public final void unlock() {
        release(currentThreadId());
    }

    @Override
    public final boolean isHeldByCurrentThread() {
        return isHeldByThread(currentThreadId());
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("newCondition() is not supported by distributed locks: "
                + "a condition needs its own protocol; use a Redis-backed queue or latch instead");
    }

    // ---------------------------------------------------------------- leases

    @Override
    public final LockLease acquire() throws InterruptedException {
        long id = Leases.nextId();
        acquire(Args.WAIT_FOREVER, Args.TTL_WATCHDOG, id, true);
        return lease(id);
    }

    @Override
    public final LockLease acquire(Duration waitTime) throws InterruptedException {
        return acquireLease(Args.waitMs(waitTime), Args.TTL_WATCHDOG);
    }

    @Override
    public final LockLease acquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long ttl = Args.leaseMs(leaseTime);
        return acquireLease(Args.waitMs(waitTime), ttl);
    }

    @Override
    public final CompletableFuture<LockLease> acquireAsync(Duration waitTime, Duration leaseTime) {
        long wait = Args.waitMs(waitTime);
        long ttl = leaseTime == null ? Args.TTL_WATCHDOG : Args.leaseMs(leaseTime);
        long id = Leases.nextId();
        return acquireAsync(wait, ttl, id, ok -> {
            if (!ok) {
                throw new LockTimeoutException(timeoutMessage(wait));
            }
            return lease(id);
        });
    }

    // ---------------------------------------------------------------- async (Redisson RLockAsync)

    @Override
    public final CompletableFuture<Void> lockAsync() {
        return lockAsync(-1, TimeUnit.MILLISECONDS, currentThreadId());
    }

    @Override
    public final CompletableFuture<Void> lockAsync(long threadId) {
        return lockAsync(-1, TimeUnit.MILLISECONDS, threadId);
    }

    @Override
    public final CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit) {
        return lockAsync(leaseTime, unit, currentThreadId());
    }

    @Override
    public final CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId) {
        long ttl = Args.leaseMs(leaseTime, unit);
        return acquireAsync(Args.WAIT_FOREVER, ttl, threadId, ok -> null);
    }

    @Override
    public final CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsync(currentThreadId());
    }

    @Override
    public final CompletableFuture<Boolean> tryLockAsync(long threadId) {
        return acquireAsync(Args.TRY_ONCE, Args.TTL_WATCHDOG, threadId, Boolean::valueOf);
    }

    @Override
    public final CompletableFuture<Boolean> tryLockAsync(long waitTime, TimeUnit unit) {
        return acquireAsync(Args.waitMs(waitTime, unit), Args.TTL_WATCHDOG, currentThreadId(), Boolean::valueOf);
    }

    @Override
    public final CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return tryLockAsync(waitTime, leaseTime, unit, currentThreadId());
    }

    @Override
    public final CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        long ttl = Args.leaseMs(leaseTime, unit);
        return acquireAsync(Args.waitMs(waitTime, unit), ttl, threadId, Boolean::valueOf);
    }

    @Override
    public final CompletableFuture<Void> unlockAsync() {
        return releaseAsync(currentThreadId());
    }

    @Override
    public final CompletableFuture<Integer> getHoldCountAsync() {
        return getHoldCountAsync(currentThreadId());
    }

    @Override
    public final CompletableFuture<Void> unlockAsync(long threadId) {
        return releaseAsync(threadId);
    }
}
