package io.github.relock.tck;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting on conditions with deadlines, so tests stay deterministic on a loaded machine.
 *
 * <p>Thread-safety: stateless.
 */
public final class Await {
    /**
     * System property multiplying every deadline of {@link #until}: a slower machine or a slower
     * driver passes {@code -Drelock.tck.timeoutFactor=3} instead of editing the kit. Windows of
     * {@link #holdsFor} are what a rule asserts, so they are never scaled.
     */
    public static final String TIMEOUT_FACTOR_PROPERTY = "relock.tck.timeoutFactor";
    private static final long FACTOR = factor();

    private Await() {
    }

    private static long factor() {
        String v = System.getProperty(TIMEOUT_FACTOR_PROPERTY, "1");
        try {
            long f = Long.parseLong(v.trim());
            if (f >= 1 && f <= 100) {
                return f;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("-D" + TIMEOUT_FACTOR_PROPERTY + " must be a whole number from 1 to 100, was '" + v + "'");
    }

    /**
     * @param deadline a deadline as a rule states it
     * @return that deadline times {@value #TIMEOUT_FACTOR_PROPERTY} (1 by default)
     */
    public static Duration scaled(Duration deadline) {
        return deadline.multipliedBy(FACTOR);
    }

    /**
     * Polls {@code condition} every 10 ms until it holds.
     *
     * @param deadline the longest wait, times {@value #TIMEOUT_FACTOR_PROPERTY}
     * @param condition what must become true
     * @param what describes the condition, for the failure message
     * @throws AssertionError if it is still false at the deadline
     */
    public static void until(Duration deadline, BooleanSupplier condition, Supplier<String> what) {
        deadline = scaled(deadline);
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not true within " + deadline.toMillis() + " ms: " + what.get());
            }
            pause();
        }
    }

    /**
     * Checks {@code invariant} every 10 ms for the whole {@code window}: for rules of the form
     * "X stays true while time passes" (a lock outlives its timeout, ...).
     *
     * @param window how long the invariant must hold
     * @param invariant what must stay true
     * @param what describes it, for the failure message
     * @throws AssertionError the first time it is false
     */
    public static void holdsFor(Duration window, BooleanSupplier invariant, Supplier<String> what) {
        long start = System.nanoTime();
        long end = start + window.toNanos();
        do {
            if (!invariant.getAsBoolean()) {
                throw new AssertionError("stopped being true after " + (System.nanoTime() - start) / 1_000_000
                        + " ms of " + window.toMillis() + " ms: " + what.get());
            }
            pause();
        } while (System.nanoTime() - end < 0);
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}
