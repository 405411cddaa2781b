package io.github.relock.tck.redisson;

import io.github.relock.tck.DriverKit;
import org.junit.jupiter.api.Nested;

/**
 * The Redisson interop chapter of the relock compatibility kit, in its own artifact so that the
 * base kit ({@code lock-tck}) carries no Redisson. A driver runs it as it runs
 * {@link io.github.relock.tck.RelockTck}: extend it and implement {@link DriverKit}'s three
 * factory methods. Redisson's version is the one on the test class path (4.7.0 through this
 * artifact; exclude it and add another to test that one).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class RedissonTck extends DriverKit {

    /** Creates the kit (JUnit does this). */
    protected RedissonTck() {
    }

    /** Chapter 10: {@link RedissonInteropChapter}, run against this driver. */
    @Nested
    class RedissonInterop extends RedissonInteropChapter {
        RedissonInterop() {
            super(RedissonTck.this);
        }
    }

    /** Chapter 11 with Redisson: {@link MultiLockInteropChapter}, run against this driver. */
    @Nested
    class MultiLockInterop extends MultiLockInteropChapter {
        MultiLockInterop() {
            super(RedissonTck.this);
        }
    }

    /** Chapter 20 with Redisson: {@link HandoffInteropChapter}, run against this driver. */
    @Nested
    class HandoffInterop extends HandoffInteropChapter {
        HandoffInterop() {
            super(RedissonTck.this);
        }
    }

    /** Chapters 24-26 with Redisson: {@link SynchronizerInteropChapter}, run against this driver. */
    @Nested
    class SynchronizerInterop extends SynchronizerInteropChapter {
        SynchronizerInterop() {
            super(RedissonTck.this);
        }
    }

    /** Chapter 31 with Redisson: {@link InspectionInteropChapter}, run against this driver. */
    @Nested
    class InspectionInterop extends InspectionInteropChapter {
        InspectionInterop() {
            super(RedissonTck.this);
        }
    }

    /** Chapter 33 with Redisson: {@link CohortInteropChapter}, run against this driver. */
    @Nested
    class CohortInterop extends CohortInteropChapter {
        CohortInterop() {
            super(RedissonTck.this);
        }
    }

    /** Chapter 15, with Redisson: {@link ReplicaInteropChapter}. */
    @Nested
    class ReplicaInterop extends ReplicaInteropChapter {
        ReplicaInterop() {
            super(RedissonTck.this);
        }
    }
}
