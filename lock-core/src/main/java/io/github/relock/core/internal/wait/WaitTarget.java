package io.github.relock.core.internal.wait;

import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.WaitPolicy;
import java.util.concurrent.CompletableFuture;

/**
 * What a wait asks of its lock: one attempt at a time (which registers the hold when it acquires),
 * leaving the wait queue, and giving back an acquisition nobody wants. Implemented by the lock
 * layer ({@code lock.RedisLock}); the wait machine decides, the target acts.
 *
 * <p>Thread-safety: implementations are safe for use by several threads.
 */
public interface WaitTarget {

    /** @return the lock's name */
    String name();

    /** @return how its waiters wait: channel and messages, back-off, poll bound, hand-off family */
    WaitPolicy protocol();

    /** @return the field of owner {@code ownerId} */
    String field(long ownerId);

    /**
     * One attempt on the calling thread; registers the hold when it acquires.
     *
     * @throws RuntimeException what the driver threw (RedisUnavailableException: the outcome is unknown)
     */
    Acquire attempt(long ttlMs, long ownerId, AttemptMode mode);

    /** As {@link #attempt}, without blocking the caller. */
    CompletableFuture<Acquire> attemptAsync(long ttlMs, long ownerId, AttemptMode mode);

    /**
     * Undoes what waiting left on the server (a fair waiter leaves the queue). Never fails: a
     * failure is logged, and the entry expires on its own.
     *
     * @return completes when done (at once when there is nothing to undo)
     */
    CompletableFuture<Void> giveUp(long ownerId);

    /** Releases, on the calling thread, an acquisition its waiter will not take (it leaves with an error). */
    void releaseNow(long ownerId);

    /**
     * Gives back, without blocking, an acquisition nobody will use (its caller left), retrying a
     * release that was never sent.
     *
     * @return completes when the give-back is over (answered, failed, or given up)
     */
    CompletableFuture<Void> giveBack(long ownerId);

    /**
     * Gives back, without blocking, a local hand-off that landed for {@code ownerId} after it gave
     * up on the claim and made its last attempt: its field holds the lock once in Redis, and no
     * hold is registered for it. Retries a release that was never sent, as {@link #giveBack} does.
     *
     * @param ttlMs the TTL the transfer gave it, or {@code Args.TTL_WATCHDOG}
     * @return completes when the give-back is over (answered, failed, or given up)
     */
    CompletableFuture<Void> giveBackTransfer(long ownerId, long ttlMs);

    /** @return how long the valid hold of {@code field} on this lock lasts, in ms, or -1 if there is none */
    long localHoldRemainingMs(String field);
}
