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
 * } // quiet if onLost already told of a loss; LockLostException if the loss is found only now
 * }</pre>
 *
 * <p>Losing the lock. A loss found by renewal (before the key can expire) is told to
 * {@link #onLost} callbacks and makes {@link #isValid()} false. Closing such a lease then
 * returns quietly: the holder was told. A release that finds the lock gone or held by another
 * owner when no loss had been reported throws {@link LockLostException} (an
 * {@link IllegalMonitorStateException}). {@link #releaseIfHeld()} says what it found as a
 * {@link ReleaseOutcome} and never throws for a lost lock. {@link DistributedLock#withLock}
 * interrupts the work the moment the lease is lost.
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
     * <p>A lease whose loss was already known when {@code close()} was called (its
     * {@link #onLost} callbacks were told, or {@link #isValid()} already answered false because
     * its lease time ran out) still sends the release, in case Redis still has it, and then returns
     * quietly whatever the release finds, Redis unreachable included: the lock expires on its own.
     * A lease not known to be lost whose release finds the lock gone or held by another owner
     * throws {@link LockLostException}: the work done under it may not have been exclusive.
     *
     * <p>If Redis could not be reached, the release may or may not have run: this throws, the lease
     * is no longer {@linkplain #isValid() valid} and no longer renewed (so the lock expires on its
     * own within its lease or the watchdog timeout), and calling {@code close()} again retries the
     * release.
     *
     * @throws LockLostException if the release found the lock expired or held by another owner,
     *     and no loss had been reported before
     * @throws RedisUnavailableException if Redis could not be reached; the call may be retried
     */
    @Override
    void close();

    /**
     * Releases this acquisition and says what it found, instead of throwing for a lost lock: for
     * {@code finally} blocks. Releases as {@link #close()} does; a later call (or {@code close()})
     * sends nothing and this answers what the first release found. It runs no {@link #onLost}
     * callback.
     *
     * @return {@link ReleaseOutcome#RELEASED} if this lease held the lock and released it (or did
     *     so before, also with {@link #releaseAfter}); {@link ReleaseOutcome#ALREADY_EXPIRED} if the
     *     lock was free (expired, deleted, force-unlocked); {@link ReleaseOutcome#HELD_BY_ANOTHER}
     *     if another owner holds it
     * @throws RedisUnavailableException if Redis could not be reached; as with {@code close()},
     *     the lease is then no longer renewed and the call may be retried
     * @since 0.1.0
     */
    ReleaseOutcome releaseIfHeld();

    /**
     * {@link #releaseIfHeld()} without blocking.
     *
     * @return completes with what the release found, or fails with {@link RedisUnavailableException}
     * @since 0.1.0
     */
    java.util.concurrent.CompletableFuture<ReleaseOutcome> releaseIfHeldAsync();

    /**
     * Until when this lease is known to hold its lock: the time the command that last confirmed it
     * (its acquisition, its last successful renewal, or {@link #expireIn}) was sent, plus the time
     * to live that command set (the watchdog timeout for a lease kept by the watchdog). Redis ran
     * that command no earlier than it was sent, so the key cannot expire before then (unless it is
     * deleted, or Redis's clock runs fast). A watchdog lease's deadline moves forward with each
     * renewal; the watchdog reports a loss a tenth of a timeout before it.
     *
     * <p>Measured on the JVM's monotonic clock and returned as wall-clock time at the call:
     * {@code Instant.now()} plus the time left, so it moves if the wall clock is adjusted. It is a
     * local answer, made without a Redis call. A MultiLock lease answers the earliest of its
     * members' deadlines, a RedLock lease the time until which a majority is known to be held.
     *
     * @return the deadline; once the lease is no longer {@linkplain #isValid() valid}, an instant
     *     no later than the call
     * @since 0.1.0
     */
    java.time.Instant deadline();

    /**
     * {@link #close()} without blocking: for asynchronous, reactive and coroutine code, which must
     * not park a thread to release. The same rules: idempotent once it succeeded; a failure with
     * {@link RedisUnavailableException} leaves the lease invalid and not renewed, and calling
     * {@code closeAsync()} (or {@code close()}) again retries; {@link LockLostException} if the
     * release finds the lease lost and no loss had been reported before.
     *
     * @return completes when the release is done, or fails as {@link #close()} would throw
     * @since 0.1.0
     */
    java.util.concurrent.CompletableFuture<Void> closeAsync();
}
