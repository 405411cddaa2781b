@file:JvmName("RelockCoroutines")

package io.github.relock.kotlin

import io.github.relock.api.DistributedLock
import io.github.relock.api.LockLease
import io.github.relock.api.LockLostEvent
import io.github.relock.api.LockLostException
import io.github.relock.api.LockTimeoutException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.resumeWithException
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.job
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext

private val LOG: System.Logger = System.getLogger("io.github.relock.kotlin.RelockCoroutines")

/**
 * Waits up to [waitTime] for this lock without blocking a thread, and returns a lease with an owner
 * id of its own (never a thread's), which any coroutine or thread may release.
 *
 * Cancelling the calling coroutine cancels the wait: the engine leaves the channel (and a fair
 * queue) at once, never takes the lock afterwards, gives back an acquisition whose reply lands
 * after the cancel, and passes its wake-up on to the next waiter. A lease granted just as the
 * coroutine is cancelled (before it resumed) is released here, so nothing is left held.
 *
 * @param waitTime longest wait, `>= 0`; zero tries once
 * @param leaseTime positive lease after which the lock expires on its own; `null` (the default)
 *     for a lease the watchdog keeps until it is released
 * @throws LockTimeoutException if the lock stayed held for the whole wait
 * @throws IllegalArgumentException if the engine refuses a time (negative wait, lease under 1 ms)
 */
public suspend fun DistributedLock.acquireLease(
    waitTime: java.time.Duration,
    leaseTime: java.time.Duration? = null,
): CoroutineLease {
    val granted: CompletableFuture<LockLease> = acquireAsync(waitTime, leaseTime)
    return suspendCancellableCoroutine { cont ->
        // Cancelling the engine's future is all a cancel does here: a grant that completed the
        // future first is given back by resume's onCancellation below, exactly once.
        cont.invokeOnCancellation { granted.cancel(false) }
        granted.whenComplete { lease, error ->
            if (error != null) {
                cont.resumeWithException(unwrap(error))
            } else {
                cont.resume(CoroutineLease(this, lease)) { _, unwanted, _ -> giveBack(unwanted) }
            }
        }
    }
}

/** [acquireLease] with Kotlin durations; [waitTime] must be finite. */
public suspend fun DistributedLock.acquireLease(waitTime: Duration, leaseTime: Duration? = null): CoroutineLease =
    acquireLease(javaDuration(waitTime, "waitTime"), leaseTime?.let { javaDuration(it, "leaseTime") })

/**
 * Takes this lock (see [acquireLease]), runs [block] with the lease, and releases the lock when the
 * block returns, throws or is cancelled, without blocking a thread at any step.
 *
 * - Structured concurrency: [block] runs in a [coroutineScope], so coroutines it launches finish
 *   (or are cancelled) before the lock is released; the lock is never released while work started
 *   under it still runs.
 * - Cancellation while waiting cancels the wait and leaves nothing held; cancellation while working
 *   cancels [block], then the release runs to completion (in [NonCancellable]) before the
 *   cancellation propagates.
 * - A lease lost while working (deleted, force-unlocked, taken by another owner, not renewable)
 *   cancels [block] the moment the loss is reported (when renewal finds it, before the key can
 *   expire), and `withLease` then throws [LockLostException] (the cancellation as its cause): the
 *   caller learns the work may not have been exclusive. A loss reported after [block] returned,
 *   or found only by the release, is a [LockLostException] too. Otherwise an exception of [block]
 *   is rethrown with a failed release's error added as suppressed.
 *
 * Not reentrant through the lease: a nested `withLease` on the same lock waits for the outer one.
 * Use this, never `kotlin.concurrent.withLock`, in coroutines: that one blocks the thread and
 * binds the lock to it.
 *
 * @param waitTime longest wait, `>= 0`; zero tries once
 * @param leaseTime positive lease, or `null` (the default) for the watchdog
 * @throws LockTimeoutException if the lock stayed held for the whole wait
 */
public suspend fun <T> DistributedLock.withLease(
    waitTime: java.time.Duration,
    leaseTime: java.time.Duration? = null,
    block: suspend CoroutineScope.(LockLease) -> T,
): T {
    val lease = acquireLease(waitTime, leaseTime)
    val lost = AtomicReference<LockLostEvent?>()
    var failure: Throwable? = null
    try {
        val result = coroutineScope {
            val work = coroutineContext.job
            lease.onLost { event ->
                lost.compareAndSet(null, event)
                work.cancel(CancellationException("lock '${event.lockName()}' was lost (${event.reason()})"))
            }
            block(lease)
        }
        lost.get()?.let { throw lostWhileWorking(it, null) }
        return result
    } catch (e: Throwable) {
        val event = lost.get()
        failure = if (event != null && e !is LockLostException) lostWhileWorking(event, e) else e
        throw failure
    } finally {
        withContext(NonCancellable) {
            try {
                lease.release()
            } catch (releaseError: Throwable) {
                val first = failure ?: throw releaseError
                if (releaseError !== first) {
                    first.addSuppressed(releaseError)
                }
            }
        }
    }
}

/** [withLease] with Kotlin durations; [waitTime] must be finite. */
public suspend fun <T> DistributedLock.withLease(
    waitTime: Duration,
    leaseTime: Duration? = null,
    block: suspend CoroutineScope.(LockLease) -> T,
): T = withLease(javaDuration(waitTime, "waitTime"), leaseTime?.let { javaDuration(it, "leaseTime") }, block)

/** The failure of a [withLease] whose lease was lost while [cause] (often the cancellation it caused) ended the work. */
private fun lostWhileWorking(event: LockLostEvent, cause: Throwable?): LockLostException {
    val e = LockLostException(event, "lock '${event.lockName()}' was lost while its work ran (${event.reason()}); the work was cancelled")
    if (cause != null) {
        e.initCause(cause)
    }
    return e
}

internal fun javaDuration(d: Duration, what: String): java.time.Duration {
    require(d.isFinite()) { "$what must be finite, was $d" }
    return d.toJavaDuration()
}

private fun DistributedLock.giveBack(lease: CoroutineLease) {
    unlockAsync(lease.ownerId()).whenComplete { _, error ->
        if (error != null) {
            LOG.log(
                System.Logger.Level.WARNING,
                "could not give back lock '$name', granted after its coroutine was cancelled; it expires on its own",
                unwrap(error),
            )
        }
    }
}
