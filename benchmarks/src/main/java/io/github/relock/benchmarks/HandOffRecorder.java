package io.github.relock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Records hand-off latencies on a contended lock: the time from the moment a holder starts its
 * {@code unlock()} to the moment {@code lock()} returns in a <em>different</em> thread (a thread
 * that takes the lock again right after releasing it did not receive a hand-off). Lock-free and
 * allocation-free while recording; percentiles are computed once, at the end of the trial.
 *
 * <p>Thread-safety: {@link #record} and {@link #acquired} may be called from any thread; the
 * other methods after the recording threads have stopped.
 */
final class HandOffRecorder {
    private static final int CAPACITY = 1 << 21;

    private final AtomicLongArray samples = new AtomicLongArray(CAPACITY);
    private final AtomicInteger next = new AtomicInteger();
    private final LongAdder acquisitions = new LongAdder();

    void acquired() {
        acquisitions.increment();
    }

    void record(long nanos) {
        int i = next.getAndIncrement();
        if (i < CAPACITY) {
            samples.set(i, nanos);
        }
    }

    /** Summary of what was recorded. */
    record Summary(long handOffs, long acquisitions, double p50Micros, double p99Micros, double maxMicros) {
        void writeTo(Path file) {
            Properties p = new Properties();
            p.setProperty("handOffs", Long.toString(handOffs));
            p.setProperty("acquisitions", Long.toString(acquisitions));
            p.setProperty("p50us", Double.toString(p50Micros));
            p.setProperty("p99us", Double.toString(p99Micros));
            p.setProperty("maxus", Double.toString(maxMicros));
            try {
                Files.createDirectories(file.getParent());
                try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                    p.store(w, "hand-off latency");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        static Summary readFrom(Path file) {
            Properties p = new Properties();
            try (var r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new Summary(Long.parseLong(p.getProperty("handOffs")), Long.parseLong(p.getProperty("acquisitions")),
                    Double.parseDouble(p.getProperty("p50us")), Double.parseDouble(p.getProperty("p99us")),
                    Double.parseDouble(p.getProperty("maxus")));
        }

        /** Several forks of one benchmark: weighted by hand-offs (percentiles are approximated so). */
        static Summary combine(List<Summary> parts) {
            long h = 0;
            long a = 0;
            double p50 = 0;
            double p99 = 0;
            double max = 0;
            for (Summary s : parts) {
                h += s.handOffs;
                a += s.acquisitions;
                p50 += s.p50Micros * s.handOffs;
                p99 += s.p99Micros * s.handOffs;
                max = Math.max(max, s.maxMicros);
            }
            return h == 0 ? new Summary(0, a, Double.NaN, Double.NaN, Double.NaN)
                    : new Summary(h, a, p50 / h, p99 / h, max);
        }
    }

    Summary summary() {
        int n = Math.min(next.get(), CAPACITY);
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = samples.get(i);
        }
        Arrays.sort(v);
        long total = acquisitions.sum();
        if (n == 0) {
            return new Summary(0, total, Double.NaN, Double.NaN, Double.NaN);
        }
        return new Summary(next.get(), total, percentile(v, 0.50) / 1e3, percentile(v, 0.99) / 1e3, v[n - 1] / 1e3);
    }

    private static double percentile(long[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }
}
