package io.github.relock.tck;

import org.junit.jupiter.api.Nested;

/**
 * The engine spec: the chapters that specify relock's engine ({@code lock-core}) rather than a
 * driver — leases and the watchdog, the fair lock, multi-locks, the lock family, the read-write
 * lock, bad input, observability, local hand-off, liveness, lost replies, lock listeners and the
 * synchronizers (semaphores and the count-down latch). They
 * do not depend on how the client holds its connections, so relock runs them once per topology
 * on its reference driver (Jedis: {@code JedisTckTest} and {@code JedisClusterTckTest} run
 * {@link RelockTck}, {@code JedisSentinelEngineSpecTest} runs this class), not on every driver.
 *
 * <p>A driver runs it as it runs {@link DriverTck} (extend it, implement {@link DriverKit}'s three
 * factory methods); a conforming driver passes it. Chapters 21 (liveness) and 23 (lock listeners)
 * are in both kits: they are about the engine and about how the driver delivers messages.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class EngineSpec extends DriverKit {

    /** Creates the kit (JUnit does this). */
    protected EngineSpec() {
    }

    /** Chapter 4: {@link LeaseWatchdogChapter}. */
    @Nested
    class LeasesAndWatchdog extends LeaseWatchdogChapter {
        LeasesAndWatchdog() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 9: {@link FairLockChapter}. */
    @Nested
    class FairLock extends FairLockChapter {
        FairLock() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 11: {@link MultiLockChapter}. */
    @Nested
    class MultiAndRedLock extends MultiLockChapter {
        MultiAndRedLock() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 13: {@link LockFamilyChapter}. */
    @Nested
    class LockFamily extends LockFamilyChapter {
        LockFamily() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 14: {@link ReadWriteLockChapter}. */
    @Nested
    class ReadWriteLock extends ReadWriteLockChapter {
        ReadWriteLock() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 17: {@link BadInputChapter}. */
    @Nested
    class BadInput extends BadInputChapter {
        BadInput() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 19: {@link ObservabilityChapter}. */
    @Nested
    class Observability extends ObservabilityChapter {
        Observability() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 20: {@link LocalHandoffChapter}. */
    @Nested
    class LocalHandoff extends LocalHandoffChapter {
        LocalHandoff() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 21: {@link LivenessChapter}. */
    @Nested
    class Liveness extends LivenessChapter {
        Liveness() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 22: {@link LostReplyChapter}. */
    @Nested
    class LostReplies extends LostReplyChapter {
        LostReplies() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 23: {@link LockListenerChapter}. */
    @Nested
    class LockListeners extends LockListenerChapter {
        LockListeners() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 24: {@link SemaphoreChapter}. */
    @Nested
    class Semaphore extends SemaphoreChapter {
        Semaphore() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 25: {@link PermitExpirableSemaphoreChapter}. */
    @Nested
    class PermitExpirableSemaphore extends PermitExpirableSemaphoreChapter {
        PermitExpirableSemaphore() {
            super(EngineSpec.this);
        }
    }

    /** Chapter 26: {@link CountDownLatchChapter}. */
    @Nested
    class CountDownLatch extends CountDownLatchChapter {
        CountDownLatch() {
            super(EngineSpec.this);
        }
    }
}
