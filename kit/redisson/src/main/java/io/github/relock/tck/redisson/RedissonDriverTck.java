package io.github.relock.tck.redisson;

import io.github.relock.tck.DriverTck;
import io.github.relock.tck.RuleSlice;
import org.junit.jupiter.api.Nested;

/**
 * The driver contract kit ({@link DriverTck}) plus the interop slice where the driver matters: the
 * Redisson interop rules tagged {@code interop-pubsub} — mixed contention, and relock waiters
 * (reentrant, fair, read-write, with a name prefix) woken by a Redisson unlock, which reaches them
 * only through the driver's pub/sub. One class for a driver author who wants both; the rest of
 * chapter 10 checks what both libraries write, which does not depend on the driver, and
 * {@link RedissonTck} runs all of it.
 *
 * <pre>{@code
 * class MyDriverTckTest extends RedissonDriverTck {
 *     protected RedisDriverProvider provider() { return new MyDriverProvider(); }
 *     protected Object newNativeClient(RedisServer server) { return new MyClient(server.uri()); }
 *     protected void closeNativeClient(Object client) { ((MyClient) client).close(); }
 * }
 * }</pre>
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class RedissonDriverTck extends DriverTck {

    /** Creates the kit (JUnit does this). */
    protected RedissonDriverTck() {
    }

    /** Chapter 10, the rules tagged {@code interop-pubsub}: {@link RedissonInteropChapter}. */
    @Nested
    @RuleSlice(value = "interop-pubsub", elsewhere = "RedissonTck runs the whole chapter")
    class RedissonInteropSlice extends RedissonInteropChapter {
        RedissonInteropSlice() {
            super(RedissonDriverTck.this);
        }
    }

    /** Chapter 33 with Redisson: {@link CohortInteropChapter}, run against this driver. */
    @Nested
    class CohortInterop extends CohortInteropChapter {
        CohortInterop() {
            super(RedissonDriverTck.this);
        }
    }
}
