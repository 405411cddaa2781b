package io.github.relock.tck;

import org.junit.jupiter.api.Nested;

/**
 * The chapters of {@link EngineSpec} that {@link DriverTck} does not have: leases and the watchdog,
 * the fair lock, multi-locks, the lock family, the read-write lock, bad input, observability,
 * local hand-off, lost replies and the synchronizers. Declared once, here: {@link EngineSpec}
 * extends this class and adds the two chapters it shares with {@link DriverTck} (21 liveness, 23
 * lock listeners), and {@link RelockTck} nests it beside {@link DriverTck}'s chapters, so that
 * {@code RelockTck} runs {@code DriverTck} ∪ {@code EngineSpec}, each chapter once
 * ({@code RelockCompositionTest} in {@code verification/tck-selftest} checks it).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
abstract class EngineChapters extends DriverKit {

    /** Creates the kit (JUnit does this). */
    EngineChapters() {
    }

    /** Chapter 4: {@link LeaseWatchdogChapter}. */
    @Nested
    class LeasesAndWatchdog extends LeaseWatchdogChapter {
        LeasesAndWatchdog() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 9: {@link FairLockChapter}. */
    @Nested
    class FairLock extends FairLockChapter {
        FairLock() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 11: {@link MultiLockChapter}. */
    @Nested
    class MultiAndRedLock extends MultiLockChapter {
        MultiAndRedLock() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 13: {@link LockFamilyChapter}. */
    @Nested
    class LockFamily extends LockFamilyChapter {
        LockFamily() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 14: {@link ReadWriteLockChapter}. */
    @Nested
    class ReadWriteLock extends ReadWriteLockChapter {
        ReadWriteLock() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 17: {@link BadInputChapter}. */
    @Nested
    class BadInput extends BadInputChapter {
        BadInput() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 19: {@link ObservabilityChapter}. */
    @Nested
    class Observability extends ObservabilityChapter {
        Observability() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 20: {@link LocalHandoffChapter}. */
    @Nested
    class LocalHandoff extends LocalHandoffChapter {
        LocalHandoff() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 22: {@link LostReplyChapter}. */
    @Nested
    class LostReplies extends LostReplyChapter {
        LostReplies() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 24: {@link SemaphoreChapter}. */
    @Nested
    class Semaphore extends SemaphoreChapter {
        Semaphore() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 25: {@link PermitExpirableSemaphoreChapter}. */
    @Nested
    class PermitExpirableSemaphore extends PermitExpirableSemaphoreChapter {
        PermitExpirableSemaphore() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 26: {@link CountDownLatchChapter}. */
    @Nested
    class CountDownLatch extends CountDownLatchChapter {
        CountDownLatch() {
            super(EngineChapters.this);
        }
    }

    /** Chapter 31: {@link InspectionChapter}. */
    @Nested
    class Inspection extends InspectionChapter {
        Inspection() {
            super(EngineChapters.this);
        }
    }
}
