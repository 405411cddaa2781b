package io.github.relock.api;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A reentrant distributed lock, on the same keys, fields and channels as Redisson's {@code RLock}:
 * a relock client and a Redisson client using the same name exclude each other.
 *
 * <p>The thread-bound methods (those of {@link Lock} and their overloads) own the lock as
 * {@code <clientId>:<currentThreadId>}, exactly as Redisson does. The {@code ...Async} methods take
 * that id explicitly where Redisson does. {@link #acquire(Duration)} returns a {@link LockLease}
 * that owns the lock under its own id, which any thread may release.
 *
 * <p>Lease time: a positive lease makes the lock expire on its own; {@code -1} (or the overloads
 * without a lease) means "until unlocked": the key gets {@link LockOptions#lockWatchdogTimeout()}
 * and the client's watchdog renews it every third of that while it is held. Wait time: {@code 0}
 * tries once, {@code -1} also tries once (Redisson's convention), a positive value waits up to
 * that long. Other negative values and a zero lease are rejected with
 * {@link IllegalArgumentException}.
 *
 * <p>Thread-safety: safe for use by several threads; one instance per name may be shared.
 */
public interface DistributedLock extends Lock {

    /** @return the lock's name: the Redis key of its hash */
    String getName();

    /**
     * Acquires the lock, waiting as long as needed; the watchdog keeps it until {@link #unlock()}.
     * Not interruptible (as {@link Lock#lock()} requires); the interrupt status is kept.
     */
    @Override
    void lock();

    /**
     * Acquires the lock, waiting as long as needed, for at most {@code leaseTime}.
     *
     * @param leaseTime how long to hold it before it expires on its own; {@code -1} for the watchdog
     * @param unit unit of {@code leaseTime}
     */
    void lock(long leaseTime, TimeUnit unit);

    /** @param leaseTime positive lease; see {@link #lock(long, TimeUnit)} */
    void lock(Duration leaseTime);

    /** As {@link #lock()}, but an interrupt aborts the wait. */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /** As {@link #lock(long, TimeUnit)}, but an interrupt aborts the wait. */
    void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException;

    /** One attempt, no waiting; the watchdog keeps the lock on success. */
    @Override
    boolean tryLock();

    /** Waits up to {@code waitTime}; the watchdog keeps the lock on success. */
    @Override
    boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * @param waitTime longest wait; {@code 0} or {@code -1} for one attempt
     * @param leaseTime lease on success; {@code -1} for the watchdog
     * @param unit unit of both times
     * @return whether the lock was acquired
     */
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /** @param waitTime longest wait, {@code >= 0}; watchdog lease */
    boolean tryLock(Duration waitTime) throws InterruptedException;

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease
     */
    boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Releases one hold of the calling thread; at zero the key is deleted and one waiter woken.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock; the message
     *     says whether the lock is free (it expired or was force-unlocked) or held by another owner
     */
    @Override
    void unlock();

    /**
     * Deletes the lock whoever holds it and wakes a waiter.
     *
     * @return whether there was a lock to delete
     */
    boolean forceUnlock();

    /** @return whether anyone holds the lock */
    boolean isLocked();

    /**
     * @param threadId a thread id (or a lease's {@link LockLease#ownerId()})
     * @return whether that owner of this client holds the lock
     */
    boolean isHeldByThread(long threadId);

    /** @return whether the calling thread holds the lock */
    boolean isHeldByCurrentThread();

    /** @return how many times the calling thread holds the lock; 0 if not */
    int getHoldCount();

    /** @return remaining time to live in ms; {@code -2} if not locked, {@code -1} if the key has no expiry */
    long remainTimeToLive();

    /**
     * Not supported: a distributed condition needs its own protocol.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    Condition newCondition();

    // ---- leases ----

    /**
     * Waits as long as needed and returns a lease kept by the watchdog until closed.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    LockLease acquire() throws InterruptedException;

    /**
     * Waits up to {@code waitTime} and returns a lease kept by the watchdog until closed.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @throws LockTimeoutException if the lock stayed held for the whole wait
     * @throws InterruptedException if interrupted while waiting
     */
    LockLease acquire(Duration waitTime) throws InterruptedException;

    /**
     * Waits up to {@code waitTime} and returns a lease that expires after {@code leaseTime}.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease; not renewed
     * @throws LockTimeoutException if the lock stayed held for the whole wait
     * @throws InterruptedException if interrupted while waiting
     */
    LockLease acquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Asynchronous {@link #acquire(Duration, Duration)}: never parks a thread.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease, or {@code null} for the watchdog
     * @return completes with the lease, or exceptionally with {@link LockTimeoutException}
     */
    CompletableFuture<LockLease> acquireAsync(Duration waitTime, Duration leaseTime);

    /**
     * Work run under a lease by {@link #withLock(Duration, LeaseWork)}.
     *
     * <p>Thread-safety: run once, on the thread that called {@code withLock}.
     *
     * @param <T> what the work returns
     * @param <E> what the work may throw
     * @since 0.1.0
     */
    @FunctionalInterface
    interface LeaseWork<T, E extends Exception> {
        /**
         * @param lease the lease the work runs under (for its fencing token, {@link LockLease#expireIn}, ...)
         * @return the work's result
         * @throws E the work's failure
         */
        T run(LockLease lease) throws E;
    }

    /**
     * Takes the lock (waiting up to {@code waitTime}, kept by the watchdog), runs {@code work} on
     * the calling thread and releases the lock; if the lease is lost while the work runs, the
     * calling thread is interrupted at once (when renewal finds the lock gone or cannot renew it,
     * before the key can expire) and this throws {@link LockLostException}.
     *
     * <ul>
     *   <li>The interrupt lands only while the work runs, and is cleared before this returns or
     *       throws: the caller's thread is not left interrupted by it. Work that does not react to
     *       interrupts (blocking I/O of old libraries, a busy loop that never checks) runs to its
     *       end, and then fails with {@code LockLostException}.</li>
     *   <li>{@code LockLostException} carries the work's own failure (often the
     *       {@link InterruptedException} the interrupt caused) as its cause.</li>
     *   <li>A loss not reported while the work ran but found by the release is a
     *       {@code LockLostException} too ({@link LockLease#close()}).</li>
     *   <li>Otherwise the work's result is returned, or its failure thrown, after the release; a
     *       failure of the release is added to the work's as suppressed.</li>
     * </ul>
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param work the work under the lock
     * @param <T> what the work returns
     * @param <E> what the work may throw
     * @return the work's result
     * @throws E the work's failure
     * @throws LockLostException if the lease was lost while the work ran, or its release found it lost
     * @throws LockTimeoutException if the lock stayed held for the whole wait
     * @throws InterruptedException if interrupted while waiting for the lock
     * @since 0.1.0
     */
    default <T, E extends Exception> T withLock(Duration waitTime, LeaseWork<T, E> work) throws E, InterruptedException {
        java.util.Objects.requireNonNull(work, "work must not be null");
        return LossInterrupt.run(acquire(waitTime), work);
    }

    /**
     * {@link #withLock(Duration, LeaseWork)} with a lease that expires after {@code leaseTime}
     * (not renewed): the work is interrupted when the lease runs out before it is done.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease; not renewed
     * @param work the work under the lock
     * @param <T> what the work returns
     * @param <E> what the work may throw
     * @return the work's result
     * @throws E the work's failure
     * @throws LockLostException if the lease was lost (or ran out) while the work ran
     * @throws LockTimeoutException if the lock stayed held for the whole wait
     * @throws InterruptedException if interrupted while waiting for the lock
     * @since 0.1.0
     */
    default <T, E extends Exception> T withLock(Duration waitTime, Duration leaseTime, LeaseWork<T, E> work)
            throws E, InterruptedException {
        java.util.Objects.requireNonNull(work, "work must not be null");
        return LossInterrupt.run(acquire(waitTime, leaseTime), work);
    }

    // ---- async, Redisson RLockAsync shape ----

    /** {@link #lock()} for the calling thread's id, without blocking. */
    CompletableFuture<Void> lockAsync();

    /** {@link #lock()} for owner {@code threadId}, without blocking. */
    CompletableFuture<Void> lockAsync(long threadId);

    /** {@link #lock(long, TimeUnit)} for the calling thread's id, without blocking. */
    CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit);

    /** {@link #lock(long, TimeUnit)} for owner {@code threadId}, without blocking. */
    CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId);

    /** {@link #tryLock()} for the calling thread's id. */
    CompletableFuture<Boolean> tryLockAsync();

    /** {@link #tryLock()} for owner {@code threadId}. */
    CompletableFuture<Boolean> tryLockAsync(long threadId);

    /** {@link #tryLock(long, TimeUnit)} for the calling thread's id, without blocking. */
    CompletableFuture<Boolean> tryLockAsync(long waitTime, TimeUnit unit);

    /** {@link #tryLock(long, long, TimeUnit)} for the calling thread's id, without blocking. */
    CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit);

    /** {@link #tryLock(long, long, TimeUnit)} for owner {@code threadId}, without blocking. */
    CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId);

    /** {@link #unlock()} for the calling thread's id; fails with IllegalMonitorStateException. */
    CompletableFuture<Void> unlockAsync();

    /** {@link #unlock()} for owner {@code threadId}; fails with IllegalMonitorStateException. */
    CompletableFuture<Void> unlockAsync(long threadId);

    /** {@link #forceUnlock()} without blocking. */
    CompletableFuture<Boolean> forceUnlockAsync();

    /** {@link #isLocked()} without blocking. */
    CompletableFuture<Boolean> isLockedAsync();

    /** {@link #isHeldByThread(long)} without blocking. */
    CompletableFuture<Boolean> isHeldByThreadAsync(long threadId);

    /** {@link #getHoldCount()} for owner {@code threadId}, without blocking. */
    CompletableFuture<Integer> getHoldCountAsync(long threadId);

    /**
     * {@link #getHoldCount()} of the calling thread, without blocking (Redisson's
     * {@code getHoldCountAsync()}).
     *
     * @return the calling thread's hold count
     * @since 0.1.0
     */
    CompletableFuture<Integer> getHoldCountAsync();

    /**
     * Listens to this lock going away (Redisson's {@code addListener} with a
     * {@code DeletedObjectListener} or an {@code ExpiredObjectListener}): a
     * {@link LockListener.Deleted} hears every release that frees the lock and every force unlock,
     * by any client (relock's or Redisson's), and a {@link LockListener.Expired} hears its key
     * expiring. Built on the lock's own channel and its TTL, not on keyspace notifications, so it
     * needs no server configuration and works on a Redis Cluster: see {@link LockListener} for
     * what it costs and when it hears what. Returns once the listener hears the lock's channel (at
     * most {@link LockOptions#subscriptionTimeout()} later), so a release after it returns is heard.
     *
     * @param listener what to call; called on a relock thread (never the caller's), once per event
     * @return the listener's id, for {@link #removeListener(int)}
     * @throws UnsupportedOperationException on a multi or red lock (listen to its members)
     * @since 0.1.0
     */
    int addListener(LockListener listener);

    /**
     * Stops a listener added with {@link #addListener}; an unknown id does nothing.
     *
     * @param listenerId the id {@link #addListener} returned
     * @since 0.1.0
     */
    void removeListener(int listenerId);

    /**
     * {@link #addListener} without blocking (Redisson's {@code addListenerAsync}): completes with the
     * listener's id once the listener hears the lock's channel (or the subscription timeout ran out,
     * as {@link #addListener} returns then too), so a release after it completes is heard.
     *
     * @param listener what to call; called on a relock thread, once per event
     * @return the listener's id, for {@link #removeListenerAsync(int)}; exceptionally
     *     {@link UnsupportedOperationException} on a multi or red lock, {@link NullPointerException}
     *     for a null listener, {@link IllegalStateException} on a closed client
     * @since 0.1.0
     */
    CompletableFuture<Integer> addListenerAsync(LockListener listener);

    /**
     * {@link #removeListener} as a future (Redisson's {@code removeListenerAsync}); an unknown id
     * does nothing. Stopping a listener sends nothing to Redis, so the future is complete at once.
     *
     * @param listenerId the id {@link #addListenerAsync} or {@link #addListener} returned
     * @return completes when the listener is stopped; exceptionally {@link UnsupportedOperationException}
     *     on a multi or red lock
     * @since 0.1.0
     */
    CompletableFuture<Void> removeListenerAsync(int listenerId);

    /** {@link #remainTimeToLive()} without blocking. */
    CompletableFuture<Long> remainTimeToLiveAsync();
}
