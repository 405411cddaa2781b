package io.github.relock.api;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A count-down latch in Redis, wire-compatible with Redisson's {@code RCountDownLatch} (3.17.7 to
 * 4.x): the count is the string key {@code name}, the latch is open when the key is missing (the
 * last count-down deletes it and publishes {@code "0"} on
 * <code>redisson_countdownlatch__channel__&#123;name&#125;</code>), so relock and Redisson clients
 * count down and wait on each other's latches. Unlike {@link java.util.concurrent.CountDownLatch}
 * it can be set again once open ({@link #trySetCount}).
 *
 * <p>Waiting is the locks' waiting (pub/sub on the shared connection, every wait bounded by a
 * poll, cancellation and close leave nothing). On a Redis Cluster a latch name must not contain
 * <code>&#123;</code>: Redisson's channel name then falls in another hash slot than the key
 * (the client refuses such names there with {@link IllegalArgumentException}).
 *
 * <p>Thread-safety: safe for use by several threads.
 *
 * @since 0.1.0
 */
public interface DistributedCountDownLatch {

    /** @return the latch's name (its Redis key, after the client's {@link NameMapper}) */
    String getName();

    /**
     * Waits until the count is zero (the key is gone).
     *
     * @throws InterruptedException if interrupted while waiting
     */
    void await() throws InterruptedException;

    /**
     * @param timeout longest wait, {@code >= 0}
     * @param unit its unit
     * @return whether the count reached zero within the wait
     * @throws InterruptedException if interrupted while waiting
     */
    boolean await(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * @param timeout longest wait, {@code >= 0}
     * @return whether the count reached zero within the wait
     * @throws InterruptedException if interrupted while waiting
     */
    boolean await(Duration timeout) throws InterruptedException;

    /** Counts down by one; at zero the key is deleted and every waiter, of any client, is woken. */
    void countDown();

    /** @return the count now, 0 when open */
    long getCount();

    /**
     * Sets the count if the latch is open (has no count).
     *
     * @param count {@code >= 1}
     * @return whether it was set
     */
    boolean trySetCount(long count);

    /** @return whether the latch existed; it is deleted (as in Redisson, this does not wake waiters at once) */
    boolean delete();

    /**
     * Redisson's {@code isExists} (the latch has no time to live in Redisson: its {@code RCountDownLatch}
     * is not an {@code RExpirable}, and neither is this).
     *
     * @return whether the latch has a count (the key exists): false when open
     */
    boolean isExists();

    // ---- async, Redisson RCountDownLatchAsync shape: never parks a thread

    /** @return completes when the count is zero */
    CompletableFuture<Void> awaitAsync();

    /**
     * @param timeout longest wait, {@code >= 0}
     * @param unit its unit
     * @return whether the count reached zero within the wait
     */
    CompletableFuture<Boolean> awaitAsync(long timeout, TimeUnit unit);

    /** @return completes when counted down */
    CompletableFuture<Void> countDownAsync();

    /** @return as {@link #getCount()} */
    CompletableFuture<Long> getCountAsync();

    /**
     * @param count {@code >= 1}
     * @return as {@link #trySetCount(long)}
     */
    CompletableFuture<Boolean> trySetCountAsync(long count);

    /** @return as {@link #delete()} */
    CompletableFuture<Boolean> deleteAsync();

    /** @return as {@link #isExists()} */
    CompletableFuture<Boolean> isExistsAsync();
}
