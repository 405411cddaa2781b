package io.github.relock.api;

import java.time.Duration;
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
     * Sets the lock's time to live to {@code ttl} from now, while this lease still holds it; the
     * lease stays {@linkplain #isValid() valid} until then. Use it to extend a lease, or to shorten it.
     *
     * <ul>
     *   <li>A lease with an explicit lease time now ends at now + {@code ttl} (later or earlier than before).</li>
     *   <li>A watchdog lease becomes a lease with an explicit lease time ending at now + {@code ttl}:
     *       the watchdog no longer renews it (a renewal already on its way when this is called may
     *       still land once after it).</li>
     *   <li>Re-entries made with this lease's {@linkplain #ownerId() owner id} share its key, so they
     *       get the new time to live too; releasing one of them later sets the key's time to live
     *       to {@code ttl} again, as a release of a re-entered Redisson lock does.</li>
     *   <li>A read lock's lease sets its own acquisitions' timeout keys to {@code ttl}; the lock
     *       itself then lives as long as the longest reader still needs (other readers are never
     *       cut short). A write lock's lease sets the lock's time to live, including any read locks
     *       its owner took while writing.</li>
     *   <li>A MultiLock or RedLock lease sets every lock it holds; it answers true while it still
     *       holds all (MultiLock) or a majority (RedLock) of them.</li>
     * </ul>
     * A lease whose loss was already reported (or whose lease time ran out) answers false without
     * a Redis call; a lease that finds the lock no longer its own answers false and is reported
     * lost ({@link LockLostEvent.Reason#NOT_HELD}). Nothing is done to a lock held by another owner.
     *
     * @param ttl the new time to live, from now: at least 1 ms, at most 2^53 - 1 ms
     * @return {@code true} if this lease still held the lock and its time to live is now {@code ttl};
     *     {@code false} if it no longer held it (expired, lost, released, or taken by another owner)
     * @throws NullPointerException if {@code ttl} is null
     * @throws IllegalArgumentException if {@code ttl} is zero, negative, under 1 ms or over 2^53 - 1 ms
     * @throws RedisUnavailableException if Redis could not be reached; the lease is then believed
     *     held only until the earlier of its old end and now + {@code ttl}, and no longer renewed
     */
    boolean expireIn(Duration ttl);

    /**
     * Ends this lease's hold without deleting the lock now: the lock is kept, with {@code ttl} as its
     * time to live, and then expires (nobody can take it until then; waiters get it once it has
     * expired). Use it to keep a lock for a minimum time after the work is done.
     *
     * <p>Afterwards the lease is no longer {@linkplain #isValid() valid}; the client forgets the hold
     * at once: it is not renewed, and its expiry is not a loss, so no {@link #onLost} callback and no
     * lock-lost listener is told, and nothing is logged. A later {@link #close()} does nothing. If
     * the owner re-entered with this lease's {@linkplain #ownerId() owner id}, those re-entries end
     * with it (the key keeps their count until it expires). A read lock's lease keeps only its own
     * acquisitions for {@code ttl}; the lock stays as long as the longest reader needs. A MultiLock
     * or RedLock lease keeps each lock it holds for {@code ttl}.
     *
     * <p>{@code Duration.ZERO} is a normal release, as {@link #close()}, except that a lock no
     * longer held answers {@code false} instead of throwing.
     *
     * @param ttl how long the lock is kept, from now: zero, or at least 1 ms and at most 2^53 - 1 ms
     * @return {@code true} if this lease still held the lock (it is now kept for {@code ttl});
     *     {@code false} if it no longer held it (expired, lost, already released, or taken by
     *     another owner), in which case nothing is changed in Redis
     * @throws NullPointerException if {@code ttl} is null
     * @throws IllegalArgumentException if {@code ttl} is negative, between 0 and 1 ms, or over 2^53 - 1 ms
     * @throws RedisUnavailableException if Redis could not be reached; the lease is then no longer
     *     valid nor renewed, and the lock expires on its own (after {@code ttl} or its former time
     *     to live, whichever Redis last set)
     */
    boolean releaseAfter(Duration ttl);

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

    /**
     * {@link #close()} without blocking: for asynchronous, reactive and coroutine code, which must
     * not park a thread to release. The same rules: idempotent once it succeeded; a failure with
     * {@link RedisUnavailableException} leaves the lease invalid and not renewed, and calling
     * {@code closeAsync()} (or {@code close()}) again retries; {@link IllegalMonitorStateException}
     * if the lease was lost.
     *
     * @return completes when the release is done, or fails as {@link #close()} would throw
     * @since 0.1.0
     */
    java.util.concurrent.CompletableFuture<Void> closeAsync();
}
