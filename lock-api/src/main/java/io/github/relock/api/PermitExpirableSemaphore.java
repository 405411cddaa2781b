package io.github.relock.api;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A semaphore whose permits have ids and leases, wire-compatible with Redisson's
 * {@code RPermitExpirableSemaphore} (3.17.7 to 4.x): available permits in the key {@code name}
 * (shared with a {@link DistributedSemaphore} of the same name, as in Redisson), held permits in
 * the zset <code>&#123;name&#125;:timeout</code> (member: the permit id's 16 bytes; score: the
 * epoch-ms deadline), messages on {@code redisson_sc:{name}}. A permit whose lease ended comes
 * back to the pool the next time any client (relock or Redisson) runs an operation on the
 * semaphore, so the permits of a process that died come back by themselves.
 *
 * <p>A permit id is 32 hex characters, the form Redisson shows: ids taken by either library can be
 * released by the other. Deadlines are each client's wall clock: clocks must agree.
 *
 * <p>Leases: {@code leaseTime -1} means the permit never expires; otherwise at least 1 ms.
 * {@link #acquireLease(Duration, Duration)} returns a {@link PermitLease} that reports the permit's
 * loss as a lost lock is reported ({@link PermitLease#onLost}). Waits: {@code >= 0}, or {@code -1}
 * for a single attempt. Anything else throws {@link IllegalArgumentException} naming the value.
 *
 * <p>A waiter whose attempt's reply was lost resolves it by the ids it chose before sending: it
 * finds its permits if they were taken, and never takes them twice.
 *
 * <p>Time to live and existence: {@link Expirable}; an expiry applies to the permits key and the
 * leases zset together, as Redisson's does (when both are gone, so are the permits and their leases).
 *
 * <p>Thread-safety: safe for use by several threads.
 *
 * @since 0.1.0
 */
public interface PermitExpirableSemaphore extends Expirable {

    /** @return the semaphore's name (its Redis key, after the client's {@link NameMapper}) */
    String getName();

    /**
     * @return the id of one permit taken without a lease, waiting as long as needed
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    String acquire() throws InterruptedException;

    /**
     * @param leaseTime the permit's lease, or {@code -1} for none
     * @param unit its unit
     * @return the id of one permit, waiting as long as needed
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    String acquire(long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * @param permits {@code >= 1}
     * @return the ids of {@code permits} permits taken at once, without a lease
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    List<String> acquire(int permits) throws InterruptedException;

    /**
     * @param permits {@code >= 1}
     * @param leaseTime their lease, or {@code -1} for none
     * @param unit its unit
     * @return the ids of the permits taken at once
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    List<String> acquire(int permits, long leaseTime, TimeUnit unit) throws InterruptedException;

    /** @return the id of one permit without a lease, or null if none was available (a single attempt) */
    String tryAcquire();

    /**
     * @param permits {@code >= 1}
     * @return their ids, or an empty list if too few were available (a single attempt)
     */
    List<String> tryAcquire(int permits);

    /**
     * @param waitTime longest wait, {@code >= 0} or {@code -1}
     * @param unit its unit
     * @return the id of one permit without a lease, or null if none came within the wait
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    String tryAcquire(long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * @param waitTime longest wait, {@code >= 0} or {@code -1}
     * @param leaseTime the permit's lease, or {@code -1} for none
     * @param unit the unit of both
     * @return the id of one permit, or null if none came within the wait
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    String tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * @param permits {@code >= 1}
     * @param waitTime longest wait, {@code >= 0} or {@code -1}
     * @param leaseTime their lease, or {@code -1} for none
     * @param unit the unit of both
     * @return their ids, or an empty list if too few came within the wait
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    List<String> tryAcquire(int permits, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Takes one permit as a {@link PermitLease}, which reports its loss.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime the permit's lease, positive; or {@code null} for a permit that never expires
     * @return the lease of the permit
     * @throws LockTimeoutException if no permit came within the wait
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    PermitLease acquireLease(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * @param permitId a permit's id
     * @return true if it was released; false if it was unknown, or its lease had ended (an ended
     *     permit that nobody reclaimed yet still goes back to the pool, as in Redisson)
     */
    boolean tryRelease(String permitId);

    /**
     * @param permitIds ids, at least one
     * @return how many were released: all of them, or 0 if any was unknown or had ended (nothing
     *     changed then; Redisson 3.41+)
     */
    int tryRelease(List<String> permitIds);

    /**
     * @param permitId a permit's id
     * @throws IllegalArgumentException if it was unknown or its lease had ended
     */
    void release(String permitId);

    /**
     * @param permitIds ids, at least one
     * @throws IllegalArgumentException if any was unknown or had ended (then none was released)
     */
    void release(List<String> permitIds);

    /** @return the permits available now, after ended leases came back */
    int availablePermits();

    /** @return all permits: available plus held (0 when the semaphore does not exist) */
    int getPermits();

    /** @return the permits held now, after ended leases came back */
    int acquiredPermits();

    /**
     * @param permits the count, any value
     * @return whether it was set (only if the semaphore did not exist)
     */
    boolean trySetPermits(int permits);

    /**
     * Sets the total number of permits, held ones included (Redisson 3.19.1+); the available count
     * moves by the difference and may go below zero.
     *
     * @param permits the new total
     */
    void setPermits(int permits);

    /** @param permits any value: added to the available permits (the key loses any time to live) */
    void addPermits(int permits);

    /**
     * @param permitId a held permit
     * @param leaseTime its new lease from now, or {@code -1} for none
     * @param unit its unit
     * @return whether the permit was still held (its lease restarts); false if unknown or ended
     */
    boolean updateLeaseTime(String permitId, long leaseTime, TimeUnit unit);

    /**
     * @param permitId a held permit
     * @return the ms its lease still runs, or -1 if it never ends
     * @throws IllegalArgumentException if the permit is unknown or its lease ended
     */
    long getLeaseTime(String permitId);

    /** @return whether it existed; the semaphore and its leases are deleted */
    boolean delete();

    // ---- async, Redisson RPermitExpirableSemaphoreAsync shape: never parks a thread

    /** @return the id of one permit without a lease, once taken */
    CompletableFuture<String> acquireAsync();

    /**
     * @param leaseTime the lease, or {@code -1}
     * @param unit its unit
     * @return the id of one permit, once taken
     */
    CompletableFuture<String> acquireAsync(long leaseTime, TimeUnit unit);

    /**
     * @param permits {@code >= 1}
     * @return the ids of the permits, taken at once without a lease
     */
    CompletableFuture<List<String>> acquireAsync(int permits);

    /**
     * @param permits {@code >= 1}
     * @param leaseTime the lease, or {@code -1}
     * @param unit its unit
     * @return the ids, once taken
     */
    CompletableFuture<List<String>> acquireAsync(int permits, long leaseTime, TimeUnit unit);

    /** @return as {@link #tryAcquire()} */
    CompletableFuture<String> tryAcquireAsync();

    /**
     * @param permits {@code >= 1}
     * @return as {@link #tryAcquire(int)}
     */
    CompletableFuture<List<String>> tryAcquireAsync(int permits);

    /**
     * @param waitTime longest wait, {@code >= 0} or {@code -1}
     * @param unit its unit
     * @return as {@link #tryAcquire(long, TimeUnit)}
     */
    CompletableFuture<String> tryAcquireAsync(long waitTime, TimeUnit unit);

    /**
     * @param waitTime longest wait, {@code >= 0} or {@code -1}
     * @param leaseTime the lease, or {@code -1}
     * @param unit the unit of both
     * @return as {@link #tryAcquire(long, long, TimeUnit)}
     */
    CompletableFuture<String> tryAcquireAsync(long waitTime, long leaseTime, TimeUnit unit);

    /**
     * @param permits {@code >= 1}
     * @param waitTime longest wait, {@code >= 0} or {@code -1}
     * @param leaseTime the lease, or {@code -1}
     * @param unit the unit of both
     * @return as {@link #tryAcquire(int, long, long, TimeUnit)}
     */
    CompletableFuture<List<String>> tryAcquireAsync(int permits, long waitTime, long leaseTime, TimeUnit unit);

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive, or {@code null} for none
     * @return the lease, or exceptionally {@link LockTimeoutException}
     */
    CompletableFuture<PermitLease> acquireLeaseAsync(Duration waitTime, Duration leaseTime);

    /**
     * @param permitId a permit's id
     * @return as {@link #tryRelease(String)}
     */
    CompletableFuture<Boolean> tryReleaseAsync(String permitId);

    /**
     * @param permitIds ids
     * @return as {@link #tryRelease(List)}
     */
    CompletableFuture<Integer> tryReleaseAsync(List<String> permitIds);

    /**
     * @param permitId a permit's id
     * @return completes when released; exceptionally as {@link #release(String)} throws
     */
    CompletableFuture<Void> releaseAsync(String permitId);

    /**
     * @param permitIds ids, at least one
     * @return completes when all were released; exceptionally as {@link #release(List)} throws
     */
    CompletableFuture<Void> releaseAsync(List<String> permitIds);

    /** @return as {@link #availablePermits()} */
    CompletableFuture<Integer> availablePermitsAsync();

    /** @return as {@link #getPermits()} */
    CompletableFuture<Integer> getPermitsAsync();

    /** @return as {@link #acquiredPermits()} */
    CompletableFuture<Integer> acquiredPermitsAsync();

    /**
     * @param permits the count
     * @return as {@link #trySetPermits(int)}
     */
    CompletableFuture<Boolean> trySetPermitsAsync(int permits);

    /**
     * @param permits the new total
     * @return completes when set
     */
    CompletableFuture<Void> setPermitsAsync(int permits);

    /**
     * @param permits any value
     * @return completes when added
     */
    CompletableFuture<Void> addPermitsAsync(int permits);

    /**
     * @param permitId a held permit
     * @param leaseTime the new lease, or {@code -1}
     * @param unit its unit
     * @return as {@link #updateLeaseTime(String, long, TimeUnit)}
     */
    CompletableFuture<Boolean> updateLeaseTimeAsync(String permitId, long leaseTime, TimeUnit unit);

    /**
     * @param permitId a held permit
     * @return as {@link #getLeaseTime(String)}
     */
    CompletableFuture<Long> getLeaseTimeAsync(String permitId);

    /** @return as {@link #delete()} */
    CompletableFuture<Boolean> deleteAsync();
}
