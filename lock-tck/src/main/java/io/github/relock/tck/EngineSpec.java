package io.github.relock.tck;

import org.junit.jupiter.api.Nested;

/**
 * The engine spec: the chapters that specify relock's engine ({@code lock-core}) rather than a
 * driver — leases and the watchdog, the fair lock, multi-locks, the lock family, the read-write
 * lock, bad input, observability, local hand-off, liveness, lost replies, lock listeners and the
 * synchronizers (semaphores and the count-down latch). They
 * do not depend on how the client holds its connections, so relock runs them once per topology
 * on its reference driver (Jedis: {@code JedisTckTest}, {@code JedisTckSentinelTest} and
 * {@code JedisTckClusterTest} run {@link RelockTck}, on every topology with {@link Topologies}),
 * not on every driver.
 *
 * <p>A driver runs it as it runs {@link DriverTck} (extend it, implement {@link DriverKit}'s three
 * factory methods); a conforming driver passes it. Chapters 21 (liveness) and 23 (lock listeners)
 * are in both kits: they are about the engine and about how the driver delivers messages. The
 * others are declared once, in {@code EngineChapters}, which this class extends and
 * {@link RelockTck} nests.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class EngineSpec extends EngineChapters {

    /** Creates the kit (JUnit does this). */
    protected EngineSpec() {
    }

    /** Chapter 21: {@link LivenessChapter}. */
    @Nested
    class Liveness extends LivenessChapter {
        Liveness() {
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
}
