package io.github.relock.kotlin

import io.github.relock.api.LockClient
import io.github.relock.api.LockLostEvent
import io.github.relock.api.LockLostException
import io.github.relock.api.LockOptions
import io.github.relock.api.LockTimeoutException
import io.github.relock.core.RedisLocks
import io.github.relock.tck.fixtures.Await
import io.github.relock.tck.fixtures.RedisFixture
import io.github.relock.tck.fixtures.RedisServer
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInfo
import org.junit.jupiter.api.Timeout

/**
 * The coroutine functions on a real Redis (the kit's fixture) through the Lettuce driver. The
 * cancellation rules are the coroutine twins of the kit's chapter 12 (rules 12.1, 12.2, 12.16): a
 * coroutine's cancellation must reach the engine's wait. Every wait is on a condition with a
 * deadline.
 */
@Timeout(60)
class LeasesTest {
    private val server: RedisServer = RedisFixture.shared()
    private lateinit var name: String
    private lateinit var client: LockClient // the client under test
    private lateinit var other: LockClient // another application instance, holding the lock in the way

    @BeforeEach
    fun setUp(info: TestInfo) {
        name = "kotlin:" + info.testMethod.orElseThrow().name
        client = RedisLocks.connect(server.uri().toString())
        other = RedisLocks.connect(server.uri().toString())
    }

    @AfterEach
    fun tearDown() {
        client.close()
        other.close()
        server.call("DEL", name)
    }

    private val lock get() = client.getLock(name)

    private fun exists(key: String = name): Boolean = server.call("EXISTS", key) == 1L

    private fun awaitGone(why: String) = Await.until(DEADLINE, { !exists() }, { "$name still exists: $why" })

    private fun awaitWaiters(n: Int) =
        Await.until(DEADLINE, { client.stats().waiters() == n }, { "${client.stats().waiters()} waiter(s), expected $n" })

    /** Closes the client under test and asserts it kept no hold (no lock-lost event on close). */
    private fun assertNoHoldOnClose(c: LockClient = client) {
        Await.until(DEADLINE, { c.stats().heldLocks() == 0 }, { "the client still holds ${c.stats().heldLocks()} lock(s)" })
        val events = CopyOnWriteArrayList<LockLostEvent>()
        c.addLockLostListener { events.add(it) }
        c.close()
        assertEquals(listOf<LockLostEvent>(), events, "the client still had holds registered when closed")
    }

    /** Asserts a third party can take the lock within the deadline (then gives it back). */
    private fun assertFreeForOthers() {
        val third = other.getLock(name)
        assertTrue(third.tryLock(DEADLINE.toSeconds(), TimeUnit.SECONDS), "$name is still held by a coroutine that left")
        third.unlock()
    }

    // ------------------------------------------------------------------ leases

    @Test
    fun acquireLease_hasAnOwnerOfItsOwn_releasedFromAnotherDispatcher() = runBlocking {
        val lease = lock.acquireLease(Duration.ZERO)
        assertTrue(lease.ownerId() < 0, "a synthetic owner id, never a thread's: ${lease.ownerId()}")
        assertTrue(lease.isValid)
        assertTrue(lock.isHeldByThread(lease.ownerId()))
        assertFalse(lock.isHeldByCurrentThread, "the lease is not bound to the coroutine's thread")
        withContext(Dispatchers.IO) { lease.release() }
        assertFalse(exists(), "released in Redis")
        assertFalse(lease.isValid, "a lease released without blocking says so")
        lease.release() // idempotent
        lease.close() // and close() after it does nothing
        assertFalse(lease.expireIn(Duration.ofSeconds(5)), "a released lease cannot be extended")
    }

    @Test
    fun acquireLease_twoCoroutinesOnOneThread_excludeEachOther() = runBlocking {
        val first = lock.acquireLease(Duration.ZERO)
        assertThrows(LockTimeoutException::class.java) { runBlocking { lock.acquireLease(Duration.ZERO) } }
        first.release()
        assertNoHoldOnClose()
    }

    @Test
    fun acquireLease_heldForTheWholeWait_throwsLockTimeout() = runBlocking {
        val holder = other.getLock(name)
        holder.lock()
        try {
            val e = assertThrows(LockTimeoutException::class.java) { runBlocking { lock.acquireLease(100.milliseconds) } }
            assertTrue(e.message!!.contains(name), e.message)
        } finally {
            holder.unlock()
        }
        assertNoHoldOnClose()
    }

    @Test
    fun acquireLease_withLeaseTime_theKeyExpiresOnItsOwn() = runBlocking {
        val lease = lock.acquireLease(0.seconds, 20.seconds)
        val ttl = server.call("PTTL", name) as Long
        assertTrue(ttl in 1..20_000, "the lease time is the key's TTL, was $ttl")
        lease.release()
    }

    @Test
    fun arguments_refusedWithTheirValues() = runBlocking<Unit> {
        assertThrows(IllegalArgumentException::class.java) { runBlocking { lock.acquireLease(Duration.ofMillis(-1)) } }
        val e = assertThrows(IllegalArgumentException::class.java) {
            runBlocking { lock.acquireLease(kotlin.time.Duration.INFINITE) }
        }
        assertTrue(e.message!!.contains("waitTime"), e.message)
    }

    @Test
    fun release_leaseLostMeanwhile_throwsLockLost() = runBlocking {
        val lease = lock.acquireLease(Duration.ZERO)
        server.call("DEL", name) // expired or force-unlocked behind the holder's back
        assertThrows(LockLostException::class.java) { runBlocking { lease.release() } }
        assertFalse(lease.isValid)
    }

    @Test
    fun release_lossAlreadyToldToOnLost_returnsQuietly() = runBlocking {
        val quick = RedisLocks.connect(server.uri().toString(), LockOptions.builder().lockWatchdogTimeout(WATCHDOG).build())
        try {
            val lease = quick.getLock(name).acquireLease(Duration.ZERO)
            val told = CompletableDeferred<LockLostEvent>()
            lease.onLost { told.complete(it) }
            server.call("DEL", name)
            withTimeout(DEADLINE.toMillis()) { told.await() }
            lease.release() // quiet: its holder was told
            assertEquals(io.github.relock.api.ReleaseOutcome.ALREADY_EXPIRED, lease.releaseIfHeld())
        } finally {
            quick.close()
        }
    }

    // ------------------------------------------------------------------ withLease

    @Test
    fun withLease_coroutinesOfTwoClients_excludeEachOther() = runBlocking(Dispatchers.Default) {
        val second = other.getLock(name)
        val inside = AtomicInteger()
        val mostInside = AtomicInteger()
        val done = AtomicInteger()
        coroutineScope {
            repeat(40) { i ->
                launch {
                    (if (i % 2 == 0) lock else second).withLease(DEADLINE) {
                        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
                        delay(1)
                        inside.decrementAndGet()
                        done.incrementAndGet()
                    }
                }
            }
        }
        assertEquals(40, done.get())
        assertEquals(1, mostInside.get(), "two coroutines were inside the lock at once")
        assertFalse(exists())
        assertNoHoldOnClose()
    }

    @Test
    fun withLease_returnsTheBlocksValue_releasesAfterItsChildren() = runBlocking {
        val childSawTheLockHeld = AtomicBoolean()
        val value = lock.withLease(DEADLINE) { lease ->
            launch {
                yield() // runs after the block itself has returned
                childSawTheLockHeld.set(exists() && lease.isValid)
            }
            "done"
        }
        assertEquals("done", value)
        assertTrue(childSawTheLockHeld.get(), "the lock was released while a child of the block still ran")
        assertFalse(exists(), "released once the block and its children finished")
        assertNoHoldOnClose()
    }

    @Test
    fun withLease_blockThrows_theExceptionIsRethrown_andTheLockReleased() = runBlocking {
        val boom = IllegalStateException("boom")
        val thrown = assertThrows(IllegalStateException::class.java) {
            runBlocking { lock.withLease(DEADLINE) { throw boom } }
        }
        assertIsOrRecovers(boom, thrown)
        assertFalse(exists())
        assertNoHoldOnClose()
    }

    @Test
    fun withLease_leaseLostBeforeRenewalNoticed_releaseThrowsLockLost() = runBlocking<Unit> {
        assertThrows(LockLostException::class.java) {
            runBlocking { lock.withLease(DEADLINE) { server.call("DEL", name) } }
        }
    }

    /** Issue 35: loss cancels the work, within a watchdog timeout of the deletion, and raises LockLostException. */
    @Test
    fun withLease_lockDeletedWhileWorking_cancelsTheBlockAndThrowsLockLost() = runBlocking<Unit> {
        val quick = RedisLocks.connect(server.uri().toString(), LockOptions.builder().lockWatchdogTimeout(WATCHDOG).build())
        try {
            val cancelled = CompletableDeferred<Long>()
            var deletedAt = 0L
            val thrown = assertThrows(LockLostException::class.java) {
                runBlocking {
                    quick.getLock(name).withLease(DEADLINE) {
                        deletedAt = System.nanoTime()
                        server.call("DEL", name)
                        try {
                            delay(DEADLINE.toMillis())
                        } catch (e: kotlinx.coroutines.CancellationException) {
                            cancelled.complete(System.nanoTime() - deletedAt)
                            throw e
                        }
                    }
                }
            }
            assertEquals(LockLostEvent.Reason.NOT_HELD, thrown.reason())
            assertCancelledWithin(cancelled.await(), WATCHDOG)
        } finally {
            quick.close()
        }
    }

    /**
     * Issue 35: the holder's connections killed and its lock gone, as a failover to a replica that
     * never saw the lock does: the block is cancelled within the watchdog timeout of the kill,
     * `withLease` throws [LockLostException] (NOT_HELD from a renewal retried on a new connection, or
     * RENEWAL_FAILED), and the client works again afterwards.
     */
    @Test
    fun withLease_holdersConnectionsKilledAndLockGone_cancelsTheBlockAndThrowsLockLost() = runBlocking<Unit> {
        val quick = RedisLocks.connect(server.uri().toString(), LockOptions.builder().lockWatchdogTimeout(WATCHDOG).build())
        try {
            val working = CompletableDeferred<Unit>()
            val cancelled = CompletableDeferred<Long>()
            var lostAt = 0L
            val work = async(Dispatchers.Default) {
                runCatching {
                    quick.getLock(name).withLease(DEADLINE) {
                        working.complete(Unit)
                        try {
                            delay(DEADLINE.toMillis())
                        } catch (e: kotlinx.coroutines.CancellationException) {
                            cancelled.complete(System.nanoTime() - lostAt)
                            throw e
                        }
                    }
                }.exceptionOrNull()
            }
            withTimeout(DEADLINE.toMillis()) { working.await() }
            lostAt = System.nanoTime()
            server.call("DEL", name)
            killConnectionsOf(quick)
            val thrown = withTimeout(DEADLINE.toMillis()) { work.await() }
            assertInstanceOf(LockLostException::class.java, thrown)
            assertCancelledWithin(withTimeout(DEADLINE.toMillis()) { cancelled.await() }, WATCHDOG)
            assertEquals("again", quick.getLock(name).withLease(DEADLINE) { "again" }) // the driver reconnected
        } finally {
            quick.close()
        }
    }

    /** Kills every connection of [c] (`CLIENT KILL`; the driver names them `relock:<clientId>`). */
    private fun killConnectionsOf(c: LockClient) {
        var killed = 0
        for (line in server.call("CLIENT", "LIST").toString().split("\n")) {
            if (line.contains(" name=relock:" + c.clientId() + " ")) {
                server.call("CLIENT", "KILL", "ID", line.substring(3, line.indexOf(' ')))
                killed++
            }
        }
        assertTrue(killed > 0, "no connection of client ${c.clientId()} found")
    }

    /**
     * Asserts the block was cancelled within [bound] (a watchdog timeout) of the loss, plus 2 s for
     * the machine's scheduling: the renewal that finds the loss runs on the client's timer, which a
     * loaded machine may run late.
     */
    private fun assertCancelledWithin(afterNanos: Long, bound: Duration) {
        val allowed = bound.plusSeconds(2)
        assertTrue(afterNanos < allowed.toNanos(), "the block was cancelled ${TimeUnit.NANOSECONDS.toMillis(afterNanos)} ms"
            + " after the loss: not within $bound (plus 2 s for the machine's scheduling)")
    }

    @Test
    fun withLease_blockThrowsAndTheLeaseWasLost_theBlocksExceptionComesFirst() = runBlocking<Unit> {
        val boom = IllegalStateException("boom")
        val thrown = assertThrows(IllegalStateException::class.java) {
            runBlocking {
                lock.withLease(DEADLINE) {
                    server.call("DEL", name)
                    throw boom
                }
            }
        }
        assertIsOrRecovers(boom, thrown)
        val suppressed = generateSequence<Throwable>(thrown) { it.cause }.flatMap { it.suppressed.asSequence() }.toList()
        assertTrue(suppressed.any { it is IllegalMonitorStateException }, "the failed release is suppressed: $suppressed")
    }

    @Test
    fun withLease_cancelledWhileWorking_releasesBeforeTheCancelCompletes() = runBlocking {
        val working = CompletableDeferred<Unit>()
        val job = launch(Dispatchers.Default) {
            lock.withLease(DEADLINE) {
                working.complete(Unit)
                delay(Long.MAX_VALUE)
            }
        }
        withTimeout(DEADLINE.toMillis()) { working.await() }
        job.cancelAndJoin()
        assertFalse(exists(), "the release ran to completion before the cancelled job completed")
        assertNoHoldOnClose()
    }

    // ------------------------------------------------------------------ cancellation: twins of chapter 12

    /** Rule 12.1 through coroutines: a coroutine cancelled while waiting never takes the lock. */
    @Test
    fun rule12_1_cancelledWhileWaiting_neverTakesTheLock() = runBlocking {
        val holder = other.getLock(name)
        holder.lock()
        val granted = AtomicBoolean()
        val acquiring = launch(Dispatchers.Default) {
            lock.acquireLease(LONG_WAIT)
            granted.set(true)
        }
        val using = launch(Dispatchers.Default) { lock.withLease(LONG_WAIT) { granted.set(true) } }
        awaitWaiters(2)
        acquiring.cancelAndJoin()
        using.cancelAndJoin()
        awaitWaiters(0)
        holder.unlock()
        assertFreeForOthers()
        assertFalse(granted.get())
        assertNoHoldOnClose()
    }

    /** Rule 12.2 through coroutines: `withTimeout` while waiting leaves nothing held. */
    @Test
    fun rule12_2_timeoutWhileWaiting_leavesNothingHeld() = runBlocking {
        val holder = other.getLock(name)
        holder.lock()
        assertThrows(TimeoutCancellationException::class.java) {
            runBlocking { withTimeout(300.milliseconds) { lock.acquireLease(LONG_WAIT) } }
        }
        assertNull(withTimeoutOrNull(300.milliseconds) { lock.withLease(LONG_WAIT) { 1 } })
        awaitWaiters(0)
        holder.unlock()
        assertFreeForOthers()
        assertNoHoldOnClose()
    }

    /**
     * Rule 12.16 through coroutines: a cancelled waiter passes its wake-up on: the next waiter of
     * the same client acquires on the unlock message, long before the holder's 60 s lease runs out.
     */
    @Test
    fun rule12_16_cancelledWaiter_passesWakeUpOn() = runBlocking {
        val holder = other.getLock(name)
        holder.lock(60, TimeUnit.SECONDS)
        val first = launch(Dispatchers.Default) { lock.acquireLease(LONG_WAIT) }
        val second = async(Dispatchers.Default) { lock.acquireLease(LONG_WAIT) }
        awaitWaiters(2) // both first attempts answered: both wait on the channel
        first.cancelAndJoin()
        holder.unlock()
        val lease = withTimeout(DEADLINE.toMillis()) { second.await() }
        lease.release()
        assertNoHoldOnClose()
    }

    /**
     * A grant that completes the engine's future while the coroutine is cancelled before it could
     * resume (kotlinx's prompt cancellation drops the value) is given back, not leaked.
     */
    @Test
    fun grantedButCancelledBeforeResuming_isGivenBack() = runBlocking {
        val holder = other.getLock(name)
        holder.lock()
        val resumed = AtomicBoolean()
        // Started on this runBlocking's own thread: it sends its attempt, finds the lock held and
        // suspends; it can only resume when this thread yields.
        val job = launch(start = CoroutineStart.UNDISPATCHED) {
            lock.acquireLease(LONG_WAIT)
            resumed.set(true)
        }
        awaitWaiters(1)
        holder.unlock()
        // Block this thread (no yield) until the engine has the hold: the resume is queued here.
        Await.until(DEADLINE, { client.stats().heldLocks() == 1 }, { "the engine never granted the lock" })
        job.cancel()
        job.join()
        assertFalse(resumed.get())
        awaitGone("a grant the cancelled coroutine never received was kept")
        assertNoHoldOnClose()
    }

    // ------------------------------------------------------------------ many waiters, few threads

    @Test
    fun tenThousandCoroutinesOnTenLocks_excludeEachOther_withoutAThreadEach() = runBlocking(Dispatchers.Default) {
        // 10,000 first attempts leave at once on one connection: on a loaded 2-core machine the
        // last answers may take longer than the default 3 s command timeout.
        val patient = RedisLocks.connect(server.uri().toString(),
            LockOptions.builder().commandTimeout(Duration.ofSeconds(30)).build())
        patient.getLock(name).withLease(Duration.ZERO) { } // connections and threads up
        val before = liveThreads()
        val locks = (0 until 10).map { patient.getLock("$name:$it") }
        val inside = locks.map { AtomicInteger() }
        val overlaps = AtomicInteger()
        val done = AtomicInteger()
        val mostThreads = AtomicInteger()
        val mostWaiters = AtomicInteger()
        coroutineScope {
            repeat(10_000) { i ->
                launch {
                    locks[i % 10].withLease(LONG_WAIT) {
                        if (inside[i % 10].incrementAndGet() != 1) {
                            overlaps.incrementAndGet()
                        }
                        if (i % 100 == 0) {
                            mostThreads.accumulateAndGet(liveThreads(), Math::max)
                            mostWaiters.accumulateAndGet(patient.stats().waiters(), Math::max)
                        }
                        inside[i % 10].decrementAndGet()
                        done.incrementAndGet()
                    }
                }
            }
        }
        assertEquals(10_000, done.get())
        assertEquals(0, overlaps.get(), "coroutines overlapped inside a lock")
        assertTrue(mostWaiters.get() >= 1_000, "the coroutines did wait at once (most waiters: ${mostWaiters.get()})")
        assertTrue(mostThreads.get() - before < 32,
            "threads grew from $before to ${mostThreads.get()} with ${mostWaiters.get()} coroutines waiting")
        locks.forEach { server.call("DEL", it.name) }
        assertNoHoldOnClose(patient)
    }

    /**
     * kotlinx.coroutines' stack-trace recovery (on when assertions are) may rethrow a copy whose
     * cause is the original.
     */
    private fun assertIsOrRecovers(expected: Throwable, thrown: Throwable) {
        assertTrue(thrown === expected || thrown.cause === expected, "expected $expected, got $thrown")
    }

    private companion object {
        val DEADLINE: Duration = Duration.ofSeconds(15)
        val LONG_WAIT: Duration = Duration.ofSeconds(60)
        val WATCHDOG: Duration = Duration.ofMillis(600) // a renewal every 200 ms finds a loss quickly

        fun liveThreads(): Int = Thread.getAllStackTraces().size
    }
}
