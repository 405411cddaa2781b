package io.github.relock.spring.boot.locked

import io.github.relock.spring.boot.RelockAutoConfiguration
import io.github.relock.tck.fixtures.RedisFixture
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration

/**
 * The start-up checks particular to Kotlin `suspend` functions: each unusable one fails the start,
 * naming the function (without its Continuation) and the attribute.
 */
class LockedSuspendAttributesTest {

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration::class.java, RelockLockedAutoConfiguration::class.java))
        .withUserConfiguration(LettuceOnSharedRedisKt::class.java)

    @Test
    fun usableSuspendFunctions_start() {
        runner.withUserConfiguration(Good::class.java).run { context -> assertNull(context.startupFailure) }
    }

    @Test
    fun skipOnASuspendFunctionWithANonNullResult_failsTheStart() {
        assertStartFails(SkipNonNull::class.java,
            "@Locked on SkipNonNull.run(String): onTimeout SKIP returns null, but the function returns a non-null String")
    }

    @Test
    fun suspendFunctionReturningAFlow_failsTheStart() {
        assertStartFails(SuspendFlow::class.java,
            "@Locked on SuspendFlow.run(String): is a suspend function returning a kotlinx.coroutines.flow.Flow")
    }

    @Test
    fun fallbackThatIsNoSuspendFunction_failsTheStart() {
        assertStartFails(BlockingFallback::class.java,
            "@Locked on BlockingFallback.run(String): fallback \"later\" names no method suspend later(String)")
    }

    @Test
    fun fallbackReturningAnotherType_failsTheStart() {
        assertStartFails(FallbackWrongType::class.java,
            "@Locked on FallbackWrongType.run(String): fallback FallbackWrongType.later(String) returns Integer, not a String")
    }

    @Test
    fun finalSuspendFunction_failsTheStart() {
        assertStartFails(FinalFunction::class.java,
            "@Locked on FinalFunction.run(String): the method is private, static or final")
    }

    private fun assertStartFails(bean: Class<*>, message: String) {
        runner.withUserConfiguration(bean).run { context ->
            val failure = context.startupFailure
            assertNotNull(failure, "the start fails")
            var cause: Throwable? = failure
            while (cause != null && !(cause is IllegalStateException && cause.message!!.startsWith("@Locked"))) {
                cause = cause.cause
            }
            assertNotNull(cause, "an IllegalStateException naming the function: $failure")
            assertTrue(cause!!.message!!.startsWith(message), cause.message)
        }
    }

    open class Good {
        @Locked(key = "'g:' + #id", onTimeout = Locked.OnTimeout.SKIP)
        open suspend fun nullable(id: String): String? = id

        @Locked(key = "'g:' + #id", onTimeout = Locked.OnTimeout.SKIP)
        open suspend fun unit(id: String) {
        }

        @Locked(key = "'g:' + #id", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "later")
        open suspend fun withFallback(id: String): CharSequence = id

        open suspend fun later(id: String): String = id
    }

    open class SkipNonNull {
        @Locked(key = "#id", onTimeout = Locked.OnTimeout.SKIP)
        open suspend fun run(id: String): String = id
    }

    open class SuspendFlow {
        @Locked(key = "#id")
        open suspend fun run(id: String): Flow<String> = flowOf(id)
    }

    open class BlockingFallback {
        @Locked(key = "#id", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "later")
        open suspend fun run(id: String): String = id

        open fun later(id: String): String = id
    }

    open class FallbackWrongType {
        @Locked(key = "#id", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "later")
        open suspend fun run(id: String): String = id

        open suspend fun later(id: String): Int = 1
    }

    open class FinalFunction {
        @Locked(key = "#id")
        suspend fun run(id: String): String = id
    }
}

/** A Lettuce client on the kit's shared embedded Redis, from which the starter makes the LockClient. */
@Configuration(proxyBeanMethods = false)
open class LettuceOnSharedRedisKt {
    @Bean(destroyMethod = "shutdown")
    open fun lettuce(): io.lettuce.core.RedisClient = io.lettuce.core.RedisClient.create(RedisFixture.shared().uri().toString())
}
