package io.github.relock.api;

import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * One acquisition of a lock, as a value: it has its own owner id (never a live thread's id), so it
 * can be released from any thread, virtual thread or callback, and it says honestly whether it
 * still holds the lock.
 *
 * <pre>{@code
 * try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
 *     lease.onLost(e -> abortWork());
 *     doWork();
 * }
 * }</pre>
 *
 * <p>Thread-safety: safe for use by several threads; {@link #close()} is idempotent.
 */
public interface LockLease extends AutoCloseable {

    /** @return the lock's name */
    String lockName();

    /** @return the synthetic owner id used in place of a thread id; negative, never reused by the client */
    long ownerId();

    /**
     * @return {@code true} while this lease has not been released, its explicit lease time (if any)
     *     has not run out, and renewal has not reported it lost. It is a local answer: it makes no
     *     Redis call.
     */
    boolean isValid();

    /**
     * @return the fencing token this acquisition was granted, when it was taken on a
     *     {@link FencedLock}: strictly greater than every token granted before on that lock name,
     *     by relock or Redisson. Empty for every other lock type.
     */
    default OptionalLong fencingToken() {
        return OptionalLong.empty();
    }

    /**
     * Registers a callback run once when renewal finds the lock gone or has confirmed no renewal
     * for nine tenths of a lease (before the key can expire, so before anyone else can take the
     * lock), or when the client closes while the lease is held. If the lease is already
     * lost, the callback runs at once on the calling thread. Not run after a normal release.
     *
     * @param callback receives the event; exceptions it throws are logged and ignored
     * @return this lease
     */
    LockLease onLost(Consumer<LockLostEvent> callback);

    /**
     * Releases this acquisition. Idempotent once it succeeded: a later call does nothing.
     *
     * <p>If Redis could not be reached, the release may or may not have run: this throws, the lease
     * is no longer {@linkplain #isValid() valid} and no longer renewed (so the lock expires on its
     * own within its lease or the watchdog timeout), and calling {@code close()} again retries the
     * release.
     *
     * @throws IllegalMonitorStateException if the lease was lost (the lock expired or is held by
     *     another owner) at the time of the release
     * @throws RedisUnavailableException if Redis could not be reached; the call may be retried
     */
    @Override
    void close();
}
