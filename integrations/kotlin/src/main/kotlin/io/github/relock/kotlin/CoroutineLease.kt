package io.github.relock.kotlin

import io.github.relock.api.DistributedLock
import io.github.relock.api.LockLease
import io.github.relock.api.LockLostEvent
import io.github.relock.api.RedisUnavailableException
import io.github.relock.api.ReleaseOutcome
import java.time.Duration
import java.time.Instant
import java.util.OptionalLong
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.atomic.AtomicBoolean
import java.util.function.Consumer
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlinx.coroutines.suspendCancellableCoroutine

/**
 * A [LockLease] whose release suspends instead of blocking: what [acquireLease] returns.
 *
 * [LockLease.close] blocks its thread for a round trip to Redis. [release] sends the same release
 * ([LockLease.closeAsync]) and suspends until Redis answered. This object remembers that release, so the lease keeps telling the truth: it is no
 * longer [valid][isValid] afterwards, a later [close] or [release] does nothing, and a loss
 * reported while the release is in flight is not passed to [onLost] callbacks.
 *
 * Thread-safety: safe for use by several threads and coroutines; exactly one of [release],
 * [close] and [releaseAfter] sends a release.
 */
public class CoroutineLease internal constructor(
    private val lock: DistributedLock,
    private val lease: LockLease,
) : LockLease {
    private val released = AtomicBoolean()

    @Volatile
    private var releaseFailed = false // for want of Redis: not valid, not renewed, may be retried

    /** The lock this lease holds. */
    public val distributedLock: DistributedLock get() = lock

    /**
     * Releases this lease without blocking a thread; returns at once if it was already released.
     *
     * Cancelling the calling coroutine stops the wait for Redis's answer, not the release, which
     * is already sent.
     *
     * @throws io.github.relock.api.LockLostException if the release found the lease lost
     *     (expired, force-unlocked) and no loss had been reported before; a loss already told to
     *     [onLost] returns quietly, as [LockLease.close] does
     * @throws RedisUnavailableException if Redis could not be reached: the lease is no longer
     *     renewed, and calling [release] again retries
     */
    public suspend fun release() {
        closeAsync().awaitWithoutCancelling()
    }

    /**
     * Releases this lease without blocking a thread ([LockLease.closeAsync]); completes at once if
     * it was already released.
     */
    override fun closeAsync(): CompletableFuture<Void> {
        if (!released.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null)
        }
        val sent: CompletableFuture<Void> = try {
            lease.closeAsync()
        } catch (e: RuntimeException) {
            released.set(false)
            throw e
        }
        return sent.whenComplete { _, error ->
            if (error != null && unwrap(error) is RedisUnavailableException) {
                releaseFailed = true
                released.set(false) // a retry may still succeed; the engine stopped renewing either way
            }
        }
    }

    override fun releaseIfHeld(): ReleaseOutcome {
        released.set(true) // the engine's lease sends at most one release
        return try {
            lease.releaseIfHeld()
        } catch (e: RedisUnavailableException) {
            releaseFailed = true
            released.set(false)
            throw e
        }
    }

    override fun releaseIfHeldAsync(): CompletableFuture<ReleaseOutcome> {
        released.set(true) // the engine's lease sends at most one release
        return lease.releaseIfHeldAsync().whenComplete { _, error ->
            if (error != null && unwrap(error) is RedisUnavailableException) {
                releaseFailed = true
                released.set(false)
            }
        }
    }

    override fun deadline(): Instant = if (isValid()) lease.deadline() else Instant.now()

    override fun lockName(): String = lease.lockName()

    override fun ownerId(): Long = lease.ownerId()

    override fun isValid(): Boolean = !released.get() && !releaseFailed && lease.isValid()

    override fun fencingToken(): OptionalLong = lease.fencingToken()

    override fun onLost(callback: Consumer<LockLostEvent>): LockLease {
        lease.onLost { event ->
            if (!released.get()) {
                callback.accept(event)
            }
        }
        return this
    }

    override fun expireIn(ttl: Duration): Boolean =
        // Released here means the engine's lease does not know it: asking it would reach Redis,
        // find the lock gone and report a loss.
        !released.get() && lease.expireIn(ttl)

    override fun releaseAfter(ttl: Duration): Boolean {
        if (!released.compareAndSet(false, true)) {
            return false
        }
        return try {
            lease.releaseAfter(ttl)
        } catch (e: IllegalArgumentException) { // the engine refused ttl before doing anything
            released.set(false)
            throw e
        }
    }

    /** Releases this lease, blocking the calling thread; prefer [release] in a coroutine. */
    override fun close() {
        if (released.compareAndSet(false, true)) {
            try {
                lease.close()
            } catch (e: RedisUnavailableException) {
                releaseFailed = true
                released.set(false)
                throw e
            }
        }
    }

    override fun toString(): String =
        "LockLease[${lockName()}, owner ${ownerId()}, ${if (isValid()) "valid" else "not valid"}]"
}

internal fun unwrap(t: Throwable): Throwable = if (t is CompletionException && t.cause != null) t.cause!! else t

/** Waits for this future; a cancelled caller stops waiting, but the future is left to finish. */
internal suspend fun <T> CompletableFuture<T>.awaitWithoutCancelling(): T =
    suspendCancellableCoroutine { cont ->
        whenComplete { value, error ->
            if (error == null) {
                @Suppress("UNCHECKED_CAST")
                cont.resume(value as T)
            } else {
                cont.resumeWithException(unwrap(error))
            }
        }
    }
