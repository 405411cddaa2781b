package io.github.relock.tck;

import org.junit.jupiter.api.Nested;

/**
 * The relock compatibility kit. A driver certifies itself by extending this class in its own
 * tests and implementing the three factory methods of {@link DriverKit}; every chapter then runs
 * against it on a real Redis ({@link RedisFixture}).
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
public abstract class RelockTck extends DriverKit {

    /** Creates the kit (JUnit does this). */
    protected RelockTck() {
    }

    /** Chapter 2: {@link ReentrantLockChapter}, run against this driver. */
    @Nested
    class ReentrantLock extends ReentrantLockChapter {
        ReentrantLock() {
            super(RelockTck.this);
        }
    }

    /** Chapter 4: {@link LeaseWatchdogChapter}, run against this driver. */
    @Nested
    class LeasesAndWatchdog extends LeaseWatchdogChapter {
        LeasesAndWatchdog() {
            super(RelockTck.this);
        }
    }

    /** Chapter 5: {@link WaitingChapter}, run against this driver. */
    @Nested
    class Waiting extends WaitingChapter {
        Waiting() {
            super(RelockTck.this);
        }
    }

    /** Chapter 6: {@link ConcurrencyChapter}, run against this driver. */
    @Nested
    class Concurrency extends ConcurrencyChapter {
        Concurrency() {
            super(RelockTck.this);
        }
    }

    /** Chapter 7: {@link FailureChapter}, run against this driver. */
    @Nested
    class FailureSignalling extends FailureChapter {
        FailureSignalling() {
            super(RelockTck.this);
        }
    }

    /** Chapter 1: driver conformance ({@link DriverConformanceChapter}). */
    @Nested
    class DriverConformance extends DriverConformanceChapter {
        DriverConformance() {
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

    /** Chapter 12: {@link CancellationChapter}, run against this driver. */
    @Nested
    class CancellationAndPartialFailure extends CancellationChapter {
        CancellationAndPartialFailure() {
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

    /** Chapter 18: {@link FaultChapter}, run against this driver. */
    @Nested
    class Faults extends FaultChapter {
        Faults() {
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

    /** Chapter 21: {@link LivenessChapter}, run against this driver. */
    @Nested
    class Liveness extends LivenessChapter {
        Liveness() {
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

    /** Chapter 23: {@link LockListenerChapter}, run against this driver. */
    @Nested
    class LockListeners extends LockListenerChapter {
        LockListeners() {
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
