package io.github.relock.kotlin

import io.github.relock.api.LockClient
import io.github.relock.api.LockTimeoutException
import io.github.relock.core.RedisLocks
import io.github.relock.tck.fixtures.Await
import io.github.relock.tck.fixtures.RedisFixture
import io.github.relock.tck.fixtures.RedisServer
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInfo
import org.junit.jupiter.api.Timeout

/**
 * The suspending semaphore, permit and latch functions on a real Redis (the kit's fixture) through
 * the Lettuce driver: exclusion counted, a bounded wait that gives up in time, and cancellation that
 * never leaks a permit (checked in Redis). Every wait is on a condition with a deadline.
 */
@Timeout(60)
class SynchronizersTest {
    private val server: RedisServer = RedisFixture.shared()
    private lateinit var name: String
    private lateinit var client: LockClient

    @BeforeEach
    fun setUp(info: TestInfo) {
        name = "kotlin-sync:" + info.testMethod.orElseThrow().name
        client = RedisLocks.connect(server.uri().toString())
    }

    @AfterEach
    fun tearDown() {
        client.close()
        server.call("DEL", name, "{$name}:timeout")
    }

    private fun permitsInRedis(): Long = server.call("GET", name)?.toString()?.toLong() ?: 0

    private fun takenInRedis(): Long = server.call("ZCARD", "{$name}:timeout") as Long

    private fun awaitWaiters(n: Int) =
        Await.until(DEADLINE, { client.stats().waiters() == n }, { "${client.stats().waiters()} waiter(s), expected $n" })

    // ------------------------------------------------------------------ semaphore

    @Test
    fun withPermit_twentyCoroutinesOnThreePermits_neverMoreThanThreeInside() = runBlocking(Dispatchers.Default) {
        val semaphore = client.getSemaphore(name)
        assertTrue(semaphore.trySetPermits(3))
        val inside = AtomicInteger()
        val mostInside = AtomicInteger()
        (0 until 20).map {
            async {
                semaphore.withPermit(10.seconds) {
                    mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
                    delay(5)
                    inside.decrementAndGet()
                }
            }
        }.awaitAll()
        assertTrue(mostInside.get() <= 3, "${mostInside.get()} coroutines were inside three permits")
        assertTrue(mostInside.get() >= 2, "the permits never overlapped: ${mostInside.get()}")
        assertEquals(3, permitsInRedis(), "every permit came back")
    }

    @Test
    fun tryAcquirePermits_noPermitFree_returnsFalseInTime_andTakesNothing() = runBlocking {
        val semaphore = client.getSemaphore(name)
        semaphore.trySetPermits(1)
        semaphore.acquirePermits()
        val start = System.nanoTime()
        assertFalse(semaphore.tryAcquirePermits(waitTime = 200.milliseconds))
        val tookMs = (System.nanoTime() - start) / 1_000_000
        assertTrue(tookMs in 190 until DEADLINE_MS, "gave up after $tookMs ms")
        assertEquals(0, permitsInRedis(), "a timed-out tryAcquire changed the permits")
        assertThrows(LockTimeoutException::class.java) { runBlocking { semaphore.withPermit(0.seconds) { } } }
        semaphore.releasePermits()
        assertEquals(1, permitsInRedis())
    }

    @Test
    fun acquirePermits_cancelledWhileWaiting_takesNothingLater() = runBlocking {
        val semaphore = client.getSemaphore(name)
        semaphore.trySetPermits(1)
        semaphore.acquirePermits()
        val granted = AtomicReference<Any?>()
        val waiting = launch(Dispatchers.Default) { semaphore.acquirePermits(); granted.set("acquired") }
        val trying = launch(Dispatchers.Default) { if (semaphore.tryAcquirePermits(1, 60.seconds)) granted.set("tried") }
        awaitWaiters(2)
        waiting.cancelAndJoin()
        trying.cancelAndJoin()
        awaitWaiters(0)
        semaphore.releasePermits()
        assertEquals(1, permitsInRedis(), "the released permit was taken by a cancelled coroutine")
        assertNull(granted.get())
    }

    /** The grant lands, but the coroutine is cancelled before it resumes: the permit goes back. */
    @Test
    fun acquirePermits_grantedButCancelledBeforeResuming_givesThePermitBack() = runBlocking {
        val semaphore = client.getSemaphore(name)
        semaphore.trySetPermits(0)
        val resumed = AtomicInteger()
        // Started on this runBlocking's own thread: each sends its attempt, finds no permit and
        // suspends; it can only resume when this thread yields, which it does not below.
        val first = launch(start = CoroutineStart.UNDISPATCHED) { semaphore.acquirePermits(); resumed.incrementAndGet() }
        val second = launch(start = CoroutineStart.UNDISPATCHED) {
            if (semaphore.tryAcquirePermits(1, 60.seconds)) resumed.incrementAndGet()
        }
        awaitWaiters(2)
        semaphore.release(2)
        awaitWaiters(0) // both granted: the resumes are queued on this blocked thread
        first.cancel()
        second.cancel()
        first.join()
        second.join()
        assertEquals(0, resumed.get())
        Await.until(DEADLINE, { permitsInRedis() == 2L }, { "a cancelled grant kept its permit: ${permitsInRedis()}" })
    }

    // ------------------------------------------------------------------ permit-expirable semaphore

    @Test
    fun permitWithPermit_twentyCoroutinesOnTwoPermits_neverMoreThanTwoInside() = runBlocking(Dispatchers.Default) {
        val semaphore = client.getPermitExpirableSemaphore(name)
        assertTrue(semaphore.trySetPermits(2))
        val inside = AtomicInteger()
        val mostInside = AtomicInteger()
        (0 until 20).map {
            async {
                semaphore.withPermit(10.seconds, 30.seconds) { permit ->
                    assertTrue(permit.isValid)
                    mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
                    delay(5)
                    inside.decrementAndGet()
                }
            }
        }.awaitAll()
        assertTrue(mostInside.get() <= 2, "${mostInside.get()} coroutines were inside two permits")
        assertEquals(0, takenInRedis(), "a permit stayed taken")
        assertEquals(2, semaphore.availablePermits())
    }

    @Test
    fun tryAcquirePermit_noPermitFree_isNullInTime_andTakesNothing() = runBlocking {
        val semaphore = client.getPermitExpirableSemaphore(name)
        semaphore.trySetPermits(1)
        val id = semaphore.acquirePermit(30.seconds)
        assertNull(semaphore.tryAcquirePermit(200.milliseconds, 30.seconds))
        assertThrows(LockTimeoutException::class.java) { runBlocking { semaphore.acquirePermitLease(100.milliseconds) } }
        assertEquals(1, takenInRedis(), "a timed-out tryAcquire changed the permits")
        semaphore.releasePermit(id)
        assertEquals(0, takenInRedis())
    }

    @Test
    fun acquirePermit_cancelledWhileWaiting_takesNothingLater() = runBlocking {
        val semaphore = client.getPermitExpirableSemaphore(name)
        semaphore.trySetPermits(1)
        val id = semaphore.acquirePermit()
        val granted = AtomicReference<Any?>()
        val byId = launch(Dispatchers.Default) { granted.set(semaphore.tryAcquirePermit(60.seconds)) }
        val lease = launch(Dispatchers.Default) { granted.set(semaphore.acquirePermitLease(60.seconds)) }
        awaitWaiters(2)
        byId.cancelAndJoin()
        lease.cancelAndJoin()
        awaitWaiters(0)
        semaphore.releasePermit(id)
        assertEquals(0, takenInRedis(), "the released permit was taken by a cancelled coroutine")
        assertNull(granted.get())
    }

    @Test
    fun acquirePermit_grantedButCancelledBeforeResuming_givesThePermitBack() = runBlocking {
        val semaphore = client.getPermitExpirableSemaphore(name)
        semaphore.trySetPermits(2)
        val held = listOf(semaphore.acquire(), semaphore.acquire())
        val resumed = AtomicInteger()
        // As above: both suspend waiting, and cannot resume while this thread is blocked.
        val byId = launch(start = CoroutineStart.UNDISPATCHED) { semaphore.acquirePermit(); resumed.incrementAndGet() }
        val lease = launch(start = CoroutineStart.UNDISPATCHED) {
            semaphore.acquirePermitLease(60.seconds, 30.seconds)
            resumed.incrementAndGet()
        }
        awaitWaiters(2)
        held.forEach { semaphore.release(it) }
        awaitWaiters(0)
        byId.cancel()
        lease.cancel()
        byId.join()
        lease.join()
        assertEquals(0, resumed.get())
        Await.until(DEADLINE, { takenInRedis() == 0L }, { "a cancelled grant kept its permit: ${takenInRedis()}" })
        assertEquals(2, semaphore.availablePermits())
    }

    // ------------------------------------------------------------------ latch

    @Test
    fun awaitOpen_resumesOnTheLastCountDown_andTimesOutWhileCounted() = runBlocking {
        val latch = client.getCountDownLatch(name)
        assertTrue(latch.trySetCount(2))
        assertFalse(latch.awaitOpen(200.milliseconds))
        val opened = async(Dispatchers.Default) { latch.awaitOpen(10.seconds) }
        val waiting = async(Dispatchers.Default) { latch.awaitOpen() }
        awaitWaiters(2)
        latch.countDownSuspending()
        assertEquals(1, latch.count)
        assertFalse(opened.isCompleted, "opened at a count of 1")
        latch.countDownSuspending()
        withTimeout(DEADLINE_MS) {
            assertTrue(opened.await())
            waiting.await()
        }
        assertEquals(0, latch.count)
    }

    @Test
    fun awaitOpen_cancelled_leavesNoWaiter() = runBlocking {
        val latch = client.getCountDownLatch(name)
        latch.trySetCount(1)
        val waiting = launch(Dispatchers.Default) { latch.awaitOpen() }
        val timed = launch(Dispatchers.Default) { latch.awaitOpen(60.seconds) }
        awaitWaiters(2)
        waiting.cancelAndJoin()
        timed.cancelAndJoin()
        awaitWaiters(0)
        assertEquals(1, latch.count, "a cancelled await changed the count")
    }

    private companion object {
        val DEADLINE: java.time.Duration = java.time.Duration.ofSeconds(15)
        const val DEADLINE_MS = 15_000L
    }
}
