@file:JvmName("RelockSynchronizers")

package io.github.relock.kotlin

import io.github.relock.api.DistributedCountDownLatch
import io.github.relock.api.DistributedSemaphore
import io.github.relock.api.LockTimeoutException
import io.github.relock.api.PermitExpirableSemaphore
import io.github.relock.api.PermitLease
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlin.coroutines.resumeWithException
import kotlin.time.Duration
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext

// Design: every suspending acquisition here is the engine's async one (the semaphores' and the
// latch's ...Async methods), awaited by grantedOrGivenBack: cancelling the coroutine cancels the
// engine's future, which ends the wait and gives back what lands later; a grant that completed the
// future before the cancel (so the future could not be cancelled) is given back by resume's
// onCancellation, exactly once. Nothing is left taken by a coroutine that never saw its grant.

private val LOG: System.Logger = System.getLogger("io.github.relock.kotlin.RelockSynchronizers")

private const val NO_LEASE = -1L

/** Awaits [this] grant; a cancel cancels it, and gives back (via [giveBack]) a grant it came too late to cancel. */
private suspend fun <T> CompletableFuture<T>.grantedOrGivenBack(isGrant: (T) -> Boolean, giveBack: (T) -> Unit): T {
    val future = this
    return suspendCancellableCoroutine { cont ->
        cont.invokeOnCancellation { future.cancel(false) }
        future.whenComplete { value, error ->
            if (error != null) {
                cont.resumeWithException(unwrap(error))
            } else {
                cont.resume(value) { _, unwanted, _ ->
                    if (isGrant(unwanted)) {
                        giveBack(unwanted)
                    }
                }
            }
        }
    }
}

private fun logged(sent: CompletableFuture<*>, what: String) {
    sent.whenComplete { _, error ->
        if (error != null) {
            LOG.log(System.Logger.Level.WARNING, "could not give back $what, granted after its coroutine was cancelled",
                unwrap(error))
        }
    }
}

// ------------------------------------------------------------------ semaphore

/**
 * Takes [permits] permits of this semaphore, suspending as long as needed; no thread is blocked.
 * Cancelling the coroutine ends the wait, and permits granted as it is cancelled are given back.
 *
 * @param permits `>= 0`
 */
public suspend fun DistributedSemaphore.acquirePermits(permits: Int = 1) {
    acquireAsync(permits).grantedOrGivenBack({ true }) { giveBack(permits) }
}

/**
 * Takes [permits] permits if they are free within [waitTime]; suspends, never blocks. Cancelling the
 * coroutine ends the wait, and permits granted as it is cancelled are given back.
 *
 * @param permits `>= 0`
 * @param waitTime longest wait, finite and `>= 0`; zero tries once
 * @return whether they were taken (`false`: nothing was taken)
 */
public suspend fun DistributedSemaphore.tryAcquirePermits(permits: Int = 1, waitTime: Duration): Boolean =
    tryAcquireAsync(permits, javaDuration(waitTime, "waitTime")).grantedOrGivenBack({ it }) { giveBack(permits) }

private fun DistributedSemaphore.giveBack(permits: Int) = logged(releaseAsync(permits), "$permits permit(s) of semaphore '$name'")

/**
 * Gives back [permits] permits without blocking. Cancelling the coroutine stops the wait for Redis's
 * answer, not the release, which is already sent.
 *
 * @param permits `>= 0`
 */
public suspend fun DistributedSemaphore.releasePermits(permits: Int = 1) {
    releaseAsync(permits).awaitWithoutCancelling()
}

/**
 * Takes [permits] permits within [waitTime], runs [block] in a [coroutineScope] (coroutines it
 * launches finish before the permits go back), and gives them back when the block returns, throws
 * or is cancelled; the release runs to completion (in [NonCancellable]) before a cancellation
 * propagates. Cancellation while waiting leaves nothing taken.
 *
 * @param permits `>= 1`
 * @param waitTime longest wait, finite and `>= 0`
 * @throws LockTimeoutException if the permits were not free within the wait
 */
public suspend fun <T> DistributedSemaphore.withPermits(
    permits: Int,
    waitTime: Duration,
    block: suspend CoroutineScope.() -> T,
): T {
    if (!tryAcquirePermits(permits, waitTime)) {
        throw LockTimeoutException("semaphore '$name' had no $permits permit(s) free within $waitTime")
    }
    try {
        return coroutineScope { block() }
    } finally {
        withContext(NonCancellable) { releasePermits(permits) }
    }
}

/** [withPermits] for one permit. */
public suspend fun <T> DistributedSemaphore.withPermit(waitTime: Duration, block: suspend CoroutineScope.() -> T): T =
    withPermits(1, waitTime, block)

// ------------------------------------------------------------------ permit-expirable semaphore

private fun leaseMs(leaseTime: Duration?): Long =
    if (leaseTime == null) NO_LEASE else javaDuration(leaseTime, "leaseTime").toMillis()

/**
 * Takes one permit, suspending as long as needed, and returns its id. Cancelling the coroutine ends
 * the wait; a permit granted as it is cancelled is given back.
 *
 * @param leaseTime positive: the permit comes back to the pool after it unless released before;
 *     `null` (the default) for none
 */
public suspend fun PermitExpirableSemaphore.acquirePermit(leaseTime: Duration? = null): String =
    acquireAsync(leaseMs(leaseTime), TimeUnit.MILLISECONDS).grantedOrGivenBack({ true }) { giveBack(it) }

/**
 * Takes one permit if one is free within [waitTime]; suspends, never blocks. Cancelling the
 * coroutine ends the wait; a permit granted as it is cancelled is given back.
 *
 * @param waitTime longest wait, finite and `>= 0`; zero tries once
 * @param leaseTime positive lease, or `null` (the default) for none
 * @return the permit's id, or `null` if none was free within the wait
 */
public suspend fun PermitExpirableSemaphore.tryAcquirePermit(waitTime: Duration, leaseTime: Duration? = null): String? =
    tryAcquireAsync(javaDuration(waitTime, "waitTime").toMillis(), leaseMs(leaseTime), TimeUnit.MILLISECONDS)
        .grantedOrGivenBack<String?>({ it != null }) { giveBack(it!!) }

private fun PermitExpirableSemaphore.giveBack(id: String) =
    logged(tryReleaseAsync(id), "permit $id of semaphore '$name'")

/**
 * Releases a permit by its id without blocking.
 *
 * @throws IllegalArgumentException if the permit was not held (its lease ran out, or a wrong id)
 */
public suspend fun PermitExpirableSemaphore.releasePermit(permitId: String) {
    releaseAsync(permitId).awaitWithoutCancelling()
}

/**
 * Waits up to [waitTime] for a permit and returns it as a [PermitLease], which reports the permit's
 * loss ([PermitLease.onLost]). Cancelling the coroutine ends the wait; a lease granted as it is
 * cancelled is closed. Close the lease with [closeSuspending] (or in [withPermit]).
 *
 * @param waitTime longest wait, finite and `>= 0`
 * @param leaseTime positive lease, or `null` (the default) for none
 * @throws LockTimeoutException if no permit was free within the wait
 */
public suspend fun PermitExpirableSemaphore.acquirePermitLease(waitTime: Duration, leaseTime: Duration? = null): PermitLease =
    acquireLeaseAsync(javaDuration(waitTime, "waitTime"), leaseTime?.let { javaDuration(it, "leaseTime") })
        .grantedOrGivenBack({ true }) { lease -> logged(CompletableFuture.runAsync(lease::close), lease.toString()) }

/**
 * Closes this permit lease ([PermitLease.close], a blocking call) on [Dispatchers.IO], so the calling
 * coroutine's thread is not blocked; idempotent.
 */
public suspend fun PermitLease.closeSuspending() {
    withContext(Dispatchers.IO) { close() }
}

/**
 * Takes a permit as a lease within [waitTime], runs [block] in a [coroutineScope] with it, and
 * releases the permit when the block returns, throws or is cancelled (the release runs to
 * completion in [NonCancellable]). Cancellation while waiting leaves nothing taken.
 *
 * @param waitTime longest wait, finite and `>= 0`
 * @param leaseTime positive lease, or `null` (the default) for none
 * @throws LockTimeoutException if no permit was free within the wait
 */
public suspend fun <T> PermitExpirableSemaphore.withPermit(
    waitTime: Duration,
    leaseTime: Duration? = null,
    block: suspend CoroutineScope.(PermitLease) -> T,
): T {
    val lease = acquirePermitLease(waitTime, leaseTime)
    try {
        return coroutineScope { block(lease) }
    } finally {
        withContext(NonCancellable) { lease.closeSuspending() }
    }
}

// ------------------------------------------------------------------ latch

/**
 * Suspends until this latch's count is zero; no thread is blocked. Cancelling the coroutine ends the
 * wait at once (a latch has nothing to give back).
 */
public suspend fun DistributedCountDownLatch.awaitOpen() {
    awaitAsync().grantedOrGivenBack({ false }) { }
}

/**
 * Suspends until this latch's count is zero or [timeout] passed.
 *
 * @param timeout longest wait, finite and `>= 0`
 * @return whether the count reached zero within the wait
 */
public suspend fun DistributedCountDownLatch.awaitOpen(timeout: Duration): Boolean =
    awaitAsync(javaDuration(timeout, "timeout").toMillis(), TimeUnit.MILLISECONDS).grantedOrGivenBack({ false }) { }

/** Counts this latch down without blocking; at zero every waiter of every client is woken. */
public suspend fun DistributedCountDownLatch.countDownSuspending() {
    countDownAsync().awaitWithoutCancelling()
}
