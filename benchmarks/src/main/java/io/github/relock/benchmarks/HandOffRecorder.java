package io.github.relock.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

/**
 * Records hand-off latencies on a contended lock: the time from the moment a holder starts its
 * {@code unlock()} to the moment {@code lock()} returns in a <em>different</em> thread (a thread
 * that takes the lock again right after releasing it did not receive a hand-off). The latencies go
 * into an HdrHistogram {@link Recorder} (nanoseconds, 3 significant digits: every sample is
 * counted, each within 0.1%); recording is wait-free and allocates nothing.
 *
 * <p>Each benchmark JVM writes its {@link Summary} as an HdrHistogram log ({@code .hlog}); the
 * report reads the logs of every fork and round back and {@linkplain Summary#merge merges the
 * histograms} before it takes percentiles, since percentiles of parts cannot be combined into the
 * percentiles of the whole.
 *
 * <p>Thread-safety: {@link #record} and {@link #acquired} may be called from any thread;
 * {@link #summary} after the recording threads have stopped.
 */
final class HandOffRecorder {
    /** Longer hand-offs are counted as this long (one hour: none in practice). */
    static final long HIGHEST_NANOS = TimeUnit.HOURS.toNanos(1);
    static final int SIGNIFICANT_DIGITS = 3;

    private final Recorder latencies = new Recorder(1, HIGHEST_NANOS, SIGNIFICANT_DIGITS);
    private final LongAdder acquisitions = new LongAdder();

    void acquired() {
        acquisitions.increment();
    }

    void record(long nanos) {
        latencies.recordValue(Math.max(0, Math.min(nanos, HIGHEST_NANOS)));
    }

    /** @return everything recorded so far */
    Summary summary() {
        return new Summary(latencies.getIntervalHistogram(), acquisitions.sum());
    }

    /**
     * Hand-off latencies (a histogram in nanoseconds) and the acquisitions they were part of, from
     * one benchmark JVM or merged from several.
     *
     * <p>Thread-safety: immutable (it keeps a copy of the histogram and never hands it out).
     */
    static final class Summary {
        private static final String ACQUISITIONS = "acquisitions=";

        private final Histogram latencies;
        private final long acquisitions;

        Summary(Histogram latencies, long acquisitions) {
            this.latencies = latencies.copy();
            this.acquisitions = acquisitions;
        }

        /** @return the number of hand-offs: every recorded sample */
        long handOffs() {
            return latencies.getTotalCount();
        }

        long acquisitions() {
            return acquisitions;
        }

        double p50Micros() {
            return percentileMicros(50);
        }

        double p99Micros() {
            return percentileMicros(99);
        }

        double p999Micros() {
            return percentileMicros(99.9);
        }

        /** @return the longest hand-off in µs (to the histogram's precision), NaN without any */
        double maxMicros() {
            return handOffs() == 0 ? Double.NaN : latencies.getMaxValue() / 1e3;
        }

        /**
         * @param percentile in [0, 100]
         * @return the latency at that percentile in µs (to the histogram's precision), NaN without hand-offs
         */
        double percentileMicros(double percentile) {
            return handOffs() == 0 ? Double.NaN : latencies.getValueAtPercentile(percentile) / 1e3;
        }

        /**
         * Several forks or rounds of one benchmark as one: the histograms are added, so the
         * percentiles are those of all samples together.
         *
         * @param parts the summaries to merge (may be empty)
         * @return their merged summary
         */
        static Summary merge(List<Summary> parts) {
            Histogram all = new Histogram(SIGNIFICANT_DIGITS); // auto-resizing: takes any part's range
            long a = 0;
            for (Summary s : parts) {
                all.add(s.latencies);
                a += s.acquisitions;
            }
            return new Summary(all, a);
        }

        /**
         * Writes an HdrHistogram log (one interval, values in nanoseconds) that HdrHistogram's own
         * tools read as well; the acquisition count goes in a comment line.
         *
         * @param file the {@code .hlog} file to (re)write
         */
        void writeTo(Path file) {
            try {
                Files.createDirectories(file.getParent());
                try (OutputStream o = Files.newOutputStream(file)) {
                    HistogramLogWriter w = new HistogramLogWriter(o);
                    w.outputComment("relock benchmark hand-off latencies, nanoseconds");
                    w.outputComment(ACQUISITIONS + acquisitions);
                    w.outputLogFormatVersion();
                    long start = latencies.getStartTimeStamp(); // set on a recorder's histogram, not on a merge
                    if (start > 0) {
                        w.outputStartTime(start);
                        w.setBaseTime(start);
                    }
                    w.outputLegend();
                    w.outputIntervalHistogram(latencies);
                    w.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * @param file a log {@link #writeTo} wrote (a log of several intervals is read as their merge)
         * @return what it holds
         */
        static Summary readFrom(Path file) {
            try {
                long a = 0;
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (line.startsWith("#" + ACQUISITIONS)) {
                        a += Long.parseLong(line.substring(1 + ACQUISITIONS.length()).trim());
                    }
                }
                Histogram all = new Histogram(SIGNIFICANT_DIGITS);
                try (HistogramLogReader r = new HistogramLogReader(Files.newInputStream(file))) {
                    for (EncodableHistogram h = r.nextIntervalHistogram(); h != null; h = r.nextIntervalHistogram()) {
                        all.add((Histogram) h);
                    }
                }
                return new Summary(all, a);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
