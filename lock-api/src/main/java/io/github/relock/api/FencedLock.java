package io.github.relock.api;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A reentrant lock that grants a fencing token with every acquisition (Redisson
 * {@code RFencedLock}): the counter {@code redisson_lock_token:{name}} is incremented on every
 * grant, re-entries included, by relock and Redisson alike, so a token is strictly greater than
 * every token granted before it on this name. Pass the token to the protected resource and have it
 * refuse any write that carries a token lower than one it has already seen: a holder that paused
 * past its lease (GC, network) can then no longer overwrite the work of the next holder.
 *
 * <p>Every {@link DistributedLock} method works as on {@link LockClient#getLock(String)}'s lock,
 * with the same hash, fields and channel, so a fenced lock and a plain lock of the same name
 * exclude each other (a plain lock's grant takes no token). Leases taken with
 * {@link #acquire(java.time.Duration)} carry their token in {@link LockLease#fencingToken()}.
 * The token key never expires (as in Redisson): deleting it would restart the sequence.
 *
 * <p>Unlike Redisson, a lock key without a TTL never reads as "acquired", and
 * {@link #lockAndGetToken(long, TimeUnit)} honours its lease time.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public interface FencedLock extends DistributedLock {

    /**
     * Acquires like {@link #lock()}, waiting as long as it takes, renewed by the watchdog.
     *
     * @return the token of this acquisition
     */
    long lockAndGetToken();

    /**
     * Acquires like {@link #lock(long, TimeUnit)}, held for at most {@code leaseTime}.
     *
     * @param leaseTime positive, or -1 for the watchdog
     * @param unit the unit of {@code leaseTime}
     * @return the token of this acquisition
     */
    long lockAndGetToken(long leaseTime, TimeUnit unit);

    /** @return the token if acquired by one attempt, else {@code null} */
    Long tryLockAndGetToken();

    /**
     * @param waitTime how long to wait; -1 makes one attempt
     * @param unit the unit of {@code waitTime}
     * @return the token if acquired within {@code waitTime}, else {@code null}
     * @throws InterruptedException if interrupted while waiting (nothing is then held)
     */
    Long tryLockAndGetToken(long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * @param waitTime how long to wait; -1 makes one attempt
     * @param leaseTime positive, or -1 for the watchdog
     * @param unit the unit of both
     * @return the token if acquired within {@code waitTime}, else {@code null}
     * @throws InterruptedException if interrupted while waiting (nothing is then held)
     */
    Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * @return the last token granted on this name (by anyone), or {@code null} if none ever was;
     *     a Redis read, not this thread's token
     */
    Long getToken();

    /**
     * Acquires like {@link #lockAsync()}, for the calling thread's id, parking no thread.
     *
     * @return the token of this acquisition; cancelling the future ends the wait, as for {@code lockAsync}
     */
    CompletableFuture<Long> lockAndGetTokenAsync();

    /**
     * Acquires like {@link #lockAsync(long)}, for an explicit owner id.
     *
     * @param threadId the owner id (the thread id that will unlock)
     * @return the token of this acquisition
     */
    CompletableFuture<Long> lockAndGetTokenAsync(long threadId);

    /**
     * Acquires like {@link #tryLockAsync(long, long, TimeUnit, long)}.
     *
     * @param waitTime how long to wait; -1 makes one attempt
     * @param leaseTime positive, or -1 for the watchdog
     * @param unit the unit of both
     * @param threadId the owner id (the thread id that will unlock)
     * @return the token if acquired within {@code waitTime}, else {@code null}
     */
    CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId);

    /**
     * Acquires like {@link #lockAsync(long, TimeUnit)}, for the calling thread's id, parking no thread.
     *
     * @param leaseTime the lease; -1 for the watchdog
     * @param unit its unit
     * @return the token of this acquisition
     * @since 0.1.0
     */
    CompletableFuture<Long> lockAndGetTokenAsync(long leaseTime, TimeUnit unit);

    /**
     * One attempt, like {@link #tryLockAsync()}, for the calling thread's id.
     *
     * @return the token of this acquisition, or null if the lock was held
     * @since 0.1.0
     */
    CompletableFuture<Long> tryLockAndGetTokenAsync();

    /**
     * Acquires like {@link #tryLockAsync(long, TimeUnit)}, for the calling thread's id.
     *
     * @param waitTime the longest wait
     * @param unit its unit
     * @return the token of this acquisition, or null if the wait ran out
     * @since 0.1.0
     */
    CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, TimeUnit unit);

    /**
     * Acquires like {@link #tryLockAsync(long, long, TimeUnit)}, for the calling thread's id.
     *
     * @param waitTime the longest wait
     * @param leaseTime the lease; -1 for the watchdog
     * @param unit their unit
     * @return the token of this acquisition, or null if the wait ran out
     * @since 0.1.0
     */
    CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit);

    /** @return as {@link #getToken()}, without blocking */
    CompletableFuture<Long> getTokenAsync();
}
