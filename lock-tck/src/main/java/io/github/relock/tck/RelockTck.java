package io.github.relock.tck;

import io.github.relock.tck.fixtures.RedisServer;
import org.junit.jupiter.api.Nested;

/**
 * The whole relock compatibility kit: the driver contract ({@link DriverTck}, whose chapters this
 * class inherits) and the engine spec (the chapters of {@link EngineSpec}, nested here too), for a
 * driver author who wants everything. A driver needs to pass {@link DriverTck}; the engine's
 * chapters do not depend on the client and relock runs them once per topology on its reference
 * driver, but a conforming driver passes them as well.
 *
 * <pre>{@code
 * class MyDriverTckTest extends RelockTck {
 *     protected RedisDriverProvider provider() { return new MyDriverProvider(); }
 *     protected Object newNativeClient(RedisServer server) { return new MyClient(server.uri()); }
 *     protected void closeNativeClient(Object client) { ((MyClient) client).close(); }
 * }
 * }</pre>
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class RelockTck extends DriverTck {

    /** Creates the kit (JUnit does this). */
    protected RelockTck() {
    }

    /** Chapter 4: {@link LeaseWatchdogChapter}, run against this driver. */
    @Nested
    class LeasesAndWatchdog extends LeaseWatchdogChapter {
        LeasesAndWatchdog() {
            super(RelockTck.this);
        }
    }

    /** Chapter 9: {@link FairLockChapter}, run against this driver. */
    @Nested
    class FairLock extends FairLockChapter {
        FairLock() {
            super(RelockTck.this);
        }
    }

    /** Chapter 11: {@link MultiLockChapter}, run against this driver. */
    @Nested
    class MultiAndRedLock extends MultiLockChapter {
        MultiAndRedLock() {
            super(RelockTck.this);
        }
    }

    /** Chapter 13: {@link LockFamilyChapter}, run against this driver. */
    @Nested
    class LockFamily extends LockFamilyChapter {
        LockFamily() {
            super(RelockTck.this);
        }
    }

    /** Chapter 14: {@link ReadWriteLockChapter}, run against this driver. */
    @Nested
    class ReadWriteLock extends ReadWriteLockChapter {
        ReadWriteLock() {
            super(RelockTck.this);
        }
    }

    /** Chapter 17: {@link BadInputChapter}, run against this driver. */
    @Nested
    class BadInput extends BadInputChapter {
        BadInput() {
            super(RelockTck.this);
        }
    }

    /** Chapter 19: {@link ObservabilityChapter}, run against this driver. */
    @Nested
    class Observability extends ObservabilityChapter {
        Observability() {
            super(RelockTck.this);
        }
    }

    /** Chapter 20: {@link LocalHandoffChapter}, run against this driver. */
    @Nested
    class LocalHandoff extends LocalHandoffChapter {
        LocalHandoff() {
            super(RelockTck.this);
        }
    }

    /** Chapter 22: {@link LostReplyChapter}, run against this driver. */
    @Nested
    class LostReplies extends LostReplyChapter {
        LostReplies() {
            super(RelockTck.this);
        }
    }

    /** Chapter 24: {@link SemaphoreChapter}, run against this driver. */
    @Nested
    class Semaphore extends SemaphoreChapter {
        Semaphore() {
            super(RelockTck.this);
        }
    }

    /** Chapter 25: {@link PermitExpirableSemaphoreChapter}, run against this driver. */
    @Nested
    class PermitExpirableSemaphore extends PermitExpirableSemaphoreChapter {
        PermitExpirableSemaphore() {
            super(RelockTck.this);
        }
    }

    /** Chapter 26: {@link CountDownLatchChapter}, run against this driver. */
    @Nested
    class CountDownLatch extends CountDownLatchChapter {
        CountDownLatch() {
            super(RelockTck.this);
        }
    }
}
