package io.github.relock.spring.boot.locked;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spring.boot.RelockAutoConfiguration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every unusable {@link Locked} attribute fails the start, naming the method and the attribute;
 * {@code relock.locked.enabled=false} turns the annotation off.
 */
class LockedAttributesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class, RelockLockedAutoConfiguration.class))
            .withUserConfiguration(LettuceOnSharedRedis.class)
            .withPropertyValues("orders.wait=soon");

    @Test
    void emptyKey_failsTheStart() {
        assertStartFails(EmptyKey.class, "@Locked on EmptyKey.run(String): key is empty");
    }

    @Test
    void unparsableKey_failsTheStart() {
        assertStartFails(BadSpel.class, "@Locked on BadSpel.run(String): key \"'order:' + #id +\" is not a valid SpEL expression");
    }

    @Test
    void keyNamingAnUnknownParameter_failsTheStart() {
        assertStartFails(UnknownVariable.class,
                "@Locked on UnknownVariable.run(String): key \"'order:' + #order.id\" names #order, but its parameters are [id]");
    }

    @Test
    void unparsableWait_failsTheStart() {
        assertStartFails(BadWait.class, "@Locked on BadWait.run(String): waitTime \"5 parsecs\" is not a duration");
    }

    @Test
    void placeholderResolvingToNoDuration_failsTheStart_showingBoth() {
        assertStartFails(BadPlaceholder.class,
                "@Locked on BadPlaceholder.run(String): waitTime \"${orders.wait}\" (\"soon\") is not a duration");
    }

    @Test
    void negativeWait_failsTheStart() {
        assertStartFails(NegativeWait.class, "@Locked on NegativeWait.run(String): waitTime \"-1s\" is negative");
    }

    @Test
    void zeroLease_failsTheStart() {
        assertStartFails(ZeroLease.class, "@Locked on ZeroLease.run(String): leaseTime \"0s\" is not positive");
    }

    @Test
    void fallbackStrategyWithoutAFallback_failsTheStart() {
        assertStartFails(FallbackMissing.class, "@Locked on FallbackMissing.run(String): onTimeout FALLBACK needs fallback");
    }

    @Test
    void fallbackNamingNoMatchingMethod_failsTheStart() {
        assertStartFails(FallbackWrongParameters.class,
                "@Locked on FallbackWrongParameters.run(String): fallback \"later\" names no method later(String)");
    }

    @Test
    void fallbackReturningAnotherType_failsTheStart() {
        assertStartFails(FallbackWrongType.class,
                "@Locked on FallbackWrongType.run(String): fallback FallbackWrongType.later(String) returns Integer, not a String");
    }

    @Test
    void fallbackWithoutTheFallbackStrategy_failsTheStart() {
        assertStartFails(FallbackUnused.class,
                "@Locked on FallbackUnused.run(String): fallback \"later\" is set but onTimeout is THROW");
    }

    @Test
    void skipOnAPrimitiveResult_failsTheStart() {
        assertStartFails(SkipPrimitive.class, "@Locked on SkipPrimitive.run(String): onTimeout SKIP cannot return a int");
    }

    @Test
    void finalMethod_failsTheStart() {
        assertStartFails(FinalMethod.class, "@Locked on FinalMethod.run(String): the method is private, static or final");
    }

    @Test
    void returnTypeWhoseEndTheLockCannotFollow_failsTheStart() {
        assertStartFails(PlainFuture.class, "@Locked on PlainFuture.run(String): returns a java.util.concurrent.Future");
    }

    @Test
    void disabled_leavesBeansUnproxied() {
        runner.withUserConfiguration(Good.class).withPropertyValues("relock.locked.enabled=false").run(context -> {
            assertTrue(context.getBeansOfType(LockedMethodInterceptor.class).isEmpty());
            assertTrue(!AopUtils.isAopProxy(context.getBean(Good.class)));
        });
    }

    private void assertStartFails(Class<?> bean, String message) {
        runner.withUserConfiguration(bean).run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure, "the start fails");
            Throwable cause = failure;
            while (cause != null && !(cause instanceof IllegalStateException && cause.getMessage().startsWith("@Locked"))) {
                cause = cause.getCause();
            }
            assertNotNull(cause, "an IllegalStateException naming the method: " + failure);
            assertTrue(cause.getMessage().startsWith(message), cause.getMessage());
        });
    }

    static class Good {
        @Locked(key = "'g'")
        void run() {
        }
    }

    static class EmptyKey {
        @Locked(key = " ")
        void run(String id) {
        }
    }

    static class BadSpel {
        @Locked(key = "'order:' + #id +")
        void run(String id) {
        }
    }

    static class UnknownVariable {
        @Locked(key = "'order:' + #order.id")
        void run(String id) {
        }
    }

    static class BadWait {
        @Locked(key = "#id", waitTime = "5 parsecs")
        void run(String id) {
        }
    }

    static class BadPlaceholder {
        @Locked(key = "#id", waitTime = "${orders.wait}")
        void run(String id) {
        }
    }

    static class NegativeWait {
        @Locked(key = "#id", waitTime = "-1s")
        void run(String id) {
        }
    }

    static class ZeroLease {
        @Locked(key = "#id", leaseTime = "0s")
        void run(String id) {
        }
    }

    static class FallbackMissing {
        @Locked(key = "#id", onTimeout = Locked.OnTimeout.FALLBACK)
        void run(String id) {
        }
    }

    static class FallbackWrongParameters {
        @Locked(key = "#id", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "later")
        void run(String id) {
        }

        void later(String id, int attempt) {
        }
    }

    static class FallbackWrongType {
        @Locked(key = "#id", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "later")
        String run(String id) {
            return id;
        }

        Integer later(String id) {
            return 0;
        }
    }

    static class FallbackUnused {
        @Locked(key = "#id", fallback = "later")
        void run(String id) {
        }

        void later(String id) {
        }
    }

    static class SkipPrimitive {
        @Locked(key = "#id", onTimeout = Locked.OnTimeout.SKIP)
        int run(String id) {
            return 1;
        }
    }

    static class FinalMethod {
        @Locked(key = "#id")
        final void run(String id) {
        }
    }

    static class PlainFuture {
        @Locked(key = "#id")
        Future<String> run(String id) {
            return CompletableFuture.completedFuture(id);
        }
    }
}
