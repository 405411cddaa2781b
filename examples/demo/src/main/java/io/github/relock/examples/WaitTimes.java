package io.github.relock.examples;

import java.util.Arrays;

/**
 * The waits (from calling {@code tryLock} to holding the lock) of one client's workers.
 *
 * <p>Thread-safety: safe for use by several threads (synchronized; a few hundred adds a second).
 */
final class WaitTimes {
    private long[] nanos = new long[1024];
    private int size;

    synchronized void add(long waitedNanos) {
        if (size == nanos.length) {
            nanos = Arrays.copyOf(nanos, size * 2);
        }
        nanos[size++] = waitedNanos;
    }

    synchronized int count() {
        return size;
    }

    /**
     * @param p the percentile, in (0, 100]
     * @return the nearest-rank percentile in milliseconds, or NaN without samples
     */
    synchronized double percentileMs(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(nanos, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size, rank) - 1)] / 1_000_000.0;
    }
}
