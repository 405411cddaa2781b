package io.github.relock.api;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A counting semaphore in Redis, wire-compatible with Redisson's {@code RSemaphore} (3.17.7 to
 * 4.x): the number of available permits is the string key {@code name}, releases publish the new
 * count on {@code redisson_sc:{name}}, so relock and Redisson clients on one name share one pool
 * of permits and wake each other's waiters. Permits have no owner: any caller may release any
 * number of them, and nothing gives back the permits of a process that died (use
 * {@link PermitExpirableSemaphore} for that). A semaphore nobody set has no permits.
 *
 * <p>Waiting is the locks' waiting: pub/sub on the client's shared connection, every wait bounded
 * (a lost message costs at most a second's poll), cancellation and {@link LockClient#close()} leave
 * nothing behind. An acquisition whose reply was lost (Redis failed over mid-call) is not retried,
 * since permits cannot be told apart: it fails with {@link RedisUnavailableException}, and the
 * permits it may have taken are not given back.
 *
 * <p>Arguments: a number of permits is at least 1 for acquire and release ({@code 0} is allowed
 * as in Redisson: it succeeds at once without a call), a wait is {@code >= 0} or {@code -1} for a
 * single attempt; anything else throws {@link IllegalArgumentException} naming the value.
 *
 * <p>Time to live and existence: {@link Expirable}, over the one key (the rate-limit pattern:
 * {@code trySetPermits(n)}, then {@code expire(window)}; once the key expires the permits are gone
 * and the next {@code trySetPermits} sets them again).
 *
 * <p>Thread-safety: safe for use by several threads; objects for one name share their state in Redis only.
 *
 * @since 0.1.0
 */
public interface DistributedSemaphore extends Expirable {

    /** @return the semaphore's name (its Redis key, after the client's {@link NameMapper}) */
    String getName();

    /**
     * Takes one permit, waiting as long as needed.
     *
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    void acquire() throws InterruptedException;

    /**
     * Takes {@code permits} permits at once, waiting as long as needed.
     *
     * @param permits {@code >= 0}
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    void acquire(int permits) throws InterruptedException;

    /** @return whether one permit was taken, in a single attempt */
    boolean tryAcquire();

    /**
     * @param permits {@code >= 0}
     * @return whether the permits were taken, in a single attempt
     */
    boolean tryAcquire(int permits);

    /**
     * @param waitTime longest wait, {@code >= 0}, or {@code -1} for a single attempt
     * @param unit its unit
     * @return whether one permit was taken within the wait
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    boolean tryAcquire(long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * @param permits {@code >= 0}
     * @param waitTime longest wait, {@code >= 0}, or {@code -1} for a single attempt
     * @param unit its unit
     * @return whether the permits were taken within the wait
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    boolean tryAcquire(int permits, long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @return whether one permit was taken within the wait
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    boolean tryAcquire(Duration waitTime) throws InterruptedException;

    /**
     * @param permits {@code >= 0}
     * @param waitTime longest wait, {@code >= 0}
     * @return whether the permits were taken within the wait
     * @throws InterruptedException if interrupted while waiting (nothing was taken)
     */
    boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException;

    /** Gives one permit back (to the pool: anyone may release, and there is no upper bound). */
    void release();

    /** @param permits how many to give back, {@code >= 0} */
    void release(int permits);

    /**
     * Redisson 4's {@code releaseIfExists}: gives permits back only if the semaphore exists.
     *
     * @param permits {@code >= 0}
     * @return whether they were given back ({@code false} for 0 or a missing semaphore)
     */
    boolean releaseIfExists(int permits);

    /** @return the permits available now (0 when the semaphore does not exist; may be negative) */
    int availablePermits();

    /** @return how many permits were available; all are taken (the count becomes 0, without a TTL) */
    int drainPermits();

    /**
     * Sets the number of permits if the semaphore does not exist yet.
     *
     * @param permits the count, any value
     * @return whether it was set
     */
    boolean trySetPermits(int permits);

    /**
     * As {@link #trySetPermits(int)}, with a time to live on the key (Redisson 3.29+).
     *
     * @param permits the count
     * @param timeToLive positive, at least 1 ms
     * @return whether it was set
     */
    boolean trySetPermits(int permits, Duration timeToLive);

    /**
     * Adds permits to the pool, or removes them with a negative number (the count may go below
     * zero); the key loses any time to live, as in Redisson.
     *
     * @param permits any value
     */
    void addPermits(int permits);

    /** @return whether the semaphore existed; it is deleted (waiters are not woken: they find no permits) */
    boolean delete();

    // ---- async, Redisson RSemaphoreAsync shape: never parks a thread; cancelling the future ends the wait

    /** @return completes when one permit was taken */
    CompletableFuture<Void> acquireAsync();

    /**
     * @param permits {@code >= 0}
     * @return completes when the permits were taken
     */
    CompletableFuture<Void> acquireAsync(int permits);

    /** @return whether one permit was taken, in a single attempt */
    CompletableFuture<Boolean> tryAcquireAsync();

    /**
     * @param permits {@code >= 0}
     * @return whether the permits were taken, in a single attempt
     */
    CompletableFuture<Boolean> tryAcquireAsync(int permits);

    /**
     * @param waitTime longest wait, {@code >= 0}, or {@code -1} for a single attempt
     * @param unit its unit
     * @return whether one permit was taken within the wait
     */
    CompletableFuture<Boolean> tryAcquireAsync(long waitTime, TimeUnit unit);

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @return whether one permit was taken within the wait
     */
    CompletableFuture<Boolean> tryAcquireAsync(Duration waitTime);

    /**
     * @param permits {@code >= 0}
     * @param waitTime longest wait, {@code >= 0}, or {@code -1} for a single attempt
     * @param unit its unit
     * @return whether the permits were taken within the wait
     */
    CompletableFuture<Boolean> tryAcquireAsync(int permits, long waitTime, TimeUnit unit);

    /**
     * @param permits {@code >= 0}
     * @param waitTime longest wait, {@code >= 0}
     * @return whether the permits were taken within the wait
     */
    CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration waitTime);

    /** @return completes when one permit was given back */
    CompletableFuture<Void> releaseAsync();

    /**
     * @param permits {@code >= 0}
     * @return completes when the permits were given back
     */
    CompletableFuture<Void> releaseAsync(int permits);

    /**
     * @param permits {@code >= 0}
     * @return as {@link #releaseIfExists(int)}
     */
    CompletableFuture<Boolean> releaseIfExistsAsync(int permits);

    /** @return as {@link #availablePermits()} */
    CompletableFuture<Integer> availablePermitsAsync();

    /** @return as {@link #drainPermits()} */
    CompletableFuture<Integer> drainPermitsAsync();

    /**
     * @param permits the count
     * @return as {@link #trySetPermits(int)}
     */
    CompletableFuture<Boolean> trySetPermitsAsync(int permits);

    /**
     * @param permits the count
     * @param timeToLive positive
     * @return as {@link #trySetPermits(int, Duration)}
     */
    CompletableFuture<Boolean> trySetPermitsAsync(int permits, Duration timeToLive);

    /**
     * @param permits any value
     * @return completes when added
     */
    CompletableFuture<Void> addPermitsAsync(int permits);

    /** @return as {@link #delete()} */
    CompletableFuture<Boolean> deleteAsync();
}
