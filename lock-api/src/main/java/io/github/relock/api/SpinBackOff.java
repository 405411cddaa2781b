package io.github.relock.api;

import java.time.Duration;
import java.util.Objects;

/**
 * How a spin lock's waiter pauses between attempts ({@link LockClient#getSpinLock(String, SpinBackOff)};
 * Redisson's {@code LockOptions.BackOff}): exponential (each pause the last times a multiplier, up
 * to a maximum, plus a little at random so waiters do not poll in step) or constant.
 *
 * <pre>{@code
 * DistributedLock lock = locks.getSpinLock("reports", SpinBackOff.exponential(Duration.ofMillis(2), Duration.ofMillis(64), 2));
 * DistributedLock steady = locks.getSpinLock("jobs", SpinBackOff.constant(Duration.ofMillis(20)));
 * }</pre>
 *
 * <p>Thread-safety: immutable.
 *
 * @since 0.1.0
 */
public final class SpinBackOff {
    private final Duration initial;
    private final Duration max;
    private final int multiplier;

    private SpinBackOff(Duration initial, Duration max, int multiplier) {
        this.initial = initial;
        this.max = max;
        this.multiplier = multiplier;
    }

    /**
     * @param initial the first pause; at least 1 ms
     * @param max the longest pause; at least {@code initial}
     * @param multiplier how much each pause grows; at least 1 (1: constant, with a little jitter)
     * @return an exponential back-off (Redisson's default: 1 ms, 128 ms, 2)
     * @throws IllegalArgumentException naming the value passed and what is allowed
     */
    public static SpinBackOff exponential(Duration initial, Duration max, int multiplier) {
        Objects.requireNonNull(initial, "initial must not be null");
        Objects.requireNonNull(max, "max must not be null");
        if (initial.toMillis() < 1) {
            throw new IllegalArgumentException("spin back-off initial delay must be at least 1 ms, was " + initial.toMillis() + " ms");
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("spin back-off max delay must be at least the initial delay ("
                    + initial.toMillis() + " ms), was " + max.toMillis() + " ms");
        }
        if (multiplier < 1) {
            throw new IllegalArgumentException("spin back-off multiplier must be at least 1, was " + multiplier);
        }
        return new SpinBackOff(initial, max, multiplier);
    }

    /**
     * @param delay every pause; at least 1 ms
     * @return a constant back-off (Redisson's {@code ConstantBackOff}; its default is 64 ms)
     * @throws IllegalArgumentException naming the value passed and what is allowed
     */
    public static SpinBackOff constant(Duration delay) {
        Objects.requireNonNull(delay, "delay must not be null");
        if (delay.toMillis() < 1) {
            throw new IllegalArgumentException("spin back-off delay must be at least 1 ms, was " + delay.toMillis() + " ms");
        }
        return new SpinBackOff(delay, delay, 0);
    }

    /** @return the first pause */
    public Duration initialDelay() {
        return initial;
    }

    /** @return the longest pause */
    public Duration maxDelay() {
        return max;
    }

    /** @return how much each pause grows; 0 for a constant back-off */
    public int multiplier() {
        return multiplier;
    }

    @Override
    public String toString() {
        return multiplier == 0 ? "SpinBackOff.constant(" + initial.toMillis() + " ms)"
                : "SpinBackOff.exponential(" + initial.toMillis() + " ms, " + max.toMillis() + " ms, x" + multiplier + ")";
    }
}
