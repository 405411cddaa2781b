package io.github.relock.spring.boot.locked

import io.github.relock.api.LockClient
import io.github.relock.spring.boot.RelockAutoConfiguration
import io.github.relock.tck.fixtures.RedisFixture
import io.github.relock.tck.fixtures.RespClient
import java.time.Duration
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.springframework.aop.support.AopUtils
import org.springframework.boot.autoconfigure.ImportAutoConfiguration
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Configuration
import org.springframework.context.annotation.Import
import org.springframework.context.event.EventListener

/**
 * [Locked] on Kotlin `suspend` functions in a real Spring context on the shared embedded Redis:
 * the lock is held while the function is suspended and released when it returns, throws or is
 * cancelled; calls on one key exclude each other; the timeout strategies; a lock lost mid-function
 * (the function's result is returned and the loss reported, as for a `Mono`). One context for the
 * class; every wait is on a condition with a deadline.
 */
class LockedSuspendTest {

    companion object {
        private val DEADLINE: Duration = Duration.ofSeconds(10)

        private lateinit var context: AnnotationConfigApplicationContext
        private lateinit var service: SuspendService
        private lateinit var probe: Probe
        private lateinit var lost: LostEvents
        private lateinit var locks: LockClient
        private lateinit var admin: RespClient

        @JvmStatic
        @BeforeAll
        fun start() {
            context = AnnotationConfigApplicationContext(SuspendConfig::class.java)
            service = context.getBean(SuspendService::class.java)
            probe = context.getBean(Probe::class.java)
            lost = context.getBean(LostEvents::class.java)
            locks = context.getBean(LockClient::class.java)
            admin = RedisFixture.shared().admin()
        }

        @JvmStatic
        @AfterAll
        fun stop() {
            if (::admin.isInitialized) {
                admin.close()
            }
            if (::context.isInitialized) {
                context.close()
            }
        }

        private fun exists(key: String): Long = admin.call("EXISTS", key) as Long

        private suspend fun <T> within(what: String, block: suspend () -> T): T =
            try {
                withTimeout(DEADLINE.toMillis()) { block() }
            } catch (e: CancellationException) {
                throw AssertionError("not within $DEADLINE: $what", e)
            }

        private suspend fun awaitCondition(what: String, condition: () -> Boolean) {
            within(what) {
                while (!condition()) {
                    delay(5)
                }
            }
        }
    }

    @Test
    fun sameKey_suspendedCallsNeverOverlap_andTheLockIsHeldWhileTheFunctionIsSuspended() = runBlocking {
        assertTrue(AopUtils.isAopProxy(service), "the @Locked bean is proxied")
        probe.maxInside.set(0)
        val firstIn = CompletableDeferred<Unit>()
        val firstGate = CompletableDeferred<String>()
        val secondIn = CompletableDeferred<Unit>()
        val first = async(Dispatchers.Default) { service.exclusive("one", firstIn, firstGate) }
        within("the first call runs") { firstIn.await() }
        assertEquals(1L, exists("sx:one"), "held while the first call is suspended inside the function")
        val second = async(Dispatchers.Default) { service.exclusive("one", secondIn, CompletableDeferred("b")) }
        delay(100) // time for a second call to get in, were it not excluded
        assertFalse(secondIn.isCompleted, "the second call waits while the first one is suspended inside")
        firstGate.complete("a")
        assertEquals("ran a", within("the first call returns") { first.await() })
        assertEquals("ran b", within("the second call returns") { second.await() })
        assertEquals(1, probe.maxInside.get(), "at most one call of a key inside at a time")
        assertEquals(0L, exists("sx:one"), "released before the last result was returned")
    }

    @Test
    fun aFunctionThatThrowsAfterSuspending_releasesTheLock_andItsExceptionPropagates() = runBlocking {
        val failure = runCatching { service.fails("x") }.exceptionOrNull()
        assertInstanceOf(IllegalStateException::class.java, failure)
        assertEquals("failed x", failure!!.message)
        assertEquals(0L, exists("sfails:x"))
    }

    @Test
    fun timeoutStrategies_throwSkipAndFallback_onSuspendFunctions() = runBlocking {
        val runs = probe.runs.get()
        locks.getLock("sbusy:t").acquire(Duration.ZERO).use {
            val e = runCatching { service.busyThrow("t") }.exceptionOrNull()
            assertInstanceOf(LockedTimeoutException::class.java, e)
            assertTrue(e!!.message!!.contains("SuspendService.busyThrow(String)"), e.message)
            assertEquals("sbusy:t", (e as LockedTimeoutException).lockName())
            assertNull(service.busySkip("t"), "SKIP returns null")
            assertEquals("fallback t", service.busyFallback("t"), "FALLBACK calls the suspending fallback")
        }
        assertEquals(runs, probe.runs.get(), "no timed-out function ran")
        assertEquals("ran t", service.busyThrow("t"))
        assertEquals("ran t", service.busySkip("t"))
        assertEquals("ran t", service.busyFallback("t"))
        assertEquals(0L, exists("sbusy:t"))
    }

    @Test
    fun cancellingTheCaller_cancelsTheFunction_andReleasesTheLock() = runBlocking {
        val entered = CompletableDeferred<Unit>()
        val sawCancel = CompletableDeferred<Throwable>()
        val call = launch(Dispatchers.Default) { service.untilCancelled("c", entered, sawCancel) }
        within("the call runs") { entered.await() }
        assertEquals(1L, exists("scancel:c"))
        call.cancel()
        assertInstanceOf(CancellationException::class.java, within("the function is cancelled") { sawCancel.await() })
        awaitCondition("the cancel released the lock") { exists("scancel:c") == 0L }
    }

    @Test
    fun lockDeletedMidFunction_resultIsReturned_andTheLossIsReported() = runBlocking {
        lost.events.clear()
        val entered = CompletableDeferred<Unit>()
        val gate = CompletableDeferred<String>()
        val call = async(Dispatchers.Default) { service.held("d", entered, gate) }
        within("the call runs") { entered.await() }
        assertEquals(1L, admin.call("DEL", "sheld:d"))
        gate.complete("v")
        assertEquals("held v", within("the call returns") { call.await() })
        val event = lost.events.poll(DEADLINE.toSeconds(), TimeUnit.SECONDS)
        assertEquals("sheld:d", event?.lockName(), "the loss is reported")
        assertEquals("held", event!!.method().name)
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(RelockAutoConfiguration::class, RelockLockedAutoConfiguration::class)
    @Import(LettuceOnSharedRedisKt::class, SuspendService::class, Probe::class, LostEvents::class)
    open class SuspendConfig

    /** What the locked functions saw; a bean of its own, as the proxy's fields are not the bean's. */
    class Probe {
        val inside = AtomicInteger()
        val maxInside = AtomicInteger()
        val runs = AtomicInteger()
    }

    class LostEvents {
        val events = LinkedBlockingQueue<LockedLockLostEvent>()

        @EventListener
        fun on(event: LockedLockLostEvent) {
            events.add(event)
        }
    }

    open class SuspendService(private val probe: Probe) {

        @Locked(key = "'sx:' + #id")
        open suspend fun exclusive(id: String, entered: CompletableDeferred<Unit>, gate: CompletableDeferred<String>): String {
            probe.maxInside.accumulateAndGet(probe.inside.incrementAndGet(), Math::max)
            try {
                entered.complete(Unit)
                return "ran " + gate.await()
            } finally {
                probe.inside.decrementAndGet()
            }
        }

        @Locked(key = "'sfails:' + #id")
        open suspend fun fails(id: String): String {
            yield()
            throw IllegalStateException("failed $id")
        }

        @Locked(key = "'sbusy:' + #id", waitTime = "0s")
        open suspend fun busyThrow(id: String): String = ran(id)

        @Locked(key = "'sbusy:' + #id", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP)
        open suspend fun busySkip(id: String): String? = ran(id)

        @Locked(key = "'sbusy:' + #id", waitTime = "0s", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "later")
        open suspend fun busyFallback(id: String): String = ran(id)

        open suspend fun later(id: String): String {
            yield()
            return "fallback $id"
        }

        private suspend fun ran(id: String): String {
            probe.runs.incrementAndGet()
            yield()
            return "ran $id"
        }

        @Locked(key = "'scancel:' + #id")
        open suspend fun untilCancelled(id: String, entered: CompletableDeferred<Unit>, sawCancel: CompletableDeferred<Throwable>) {
            entered.complete(Unit)
            try {
                awaitCancellation()
            } catch (e: CancellationException) {
                sawCancel.complete(e)
                throw e
            }
        }

        @Locked(key = "'sheld:' + #id")
        open suspend fun held(id: String, entered: CompletableDeferred<Unit>, gate: CompletableDeferred<String>): String {
            entered.complete(Unit)
            return "held " + gate.await()
        }
    }
}
