package io.github.relock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hand-off latencies: every sample counts, and the percentiles of several forks are those of
 * their merged histogram, not an average of each fork's percentiles. Pure; no Redis.
 */
class HandOffRecorderTest {
    private static final long MICROS = 1_000;
    private static final long MILLIS = 1_000_000;

    /** HdrHistogram with 3 significant digits reports a value within 0.1% of the recorded one. */
    private static void assertMicros(double expected, double actual, String what) {
        assertEquals(expected, actual, expected * 0.001, what);
    }

    private static HandOffRecorder.Summary fork(long acquisitions, long[]... valuesAndCounts) {
        HandOffRecorder r = new HandOffRecorder();
        for (long i = 0; i < acquisitions; i++) {
            r.acquired();
        }
        for (long[] vc : valuesAndCounts) {
            for (long i = 0; i < vc[1]; i++) {
                r.record(vc[0]);
            }
        }
        return r.summary();
    }

    @Test
    void merge_twoForksOfKnownValues_percentilesOfAllSamplesTogether() {
        // Fork A: 900 hand-offs of 100 µs; fork B: 100 of 10 ms. Of the 1,000 together, the 990th
        // is 10 ms. Averaging the forks' p99 weighted by hand-offs would say 1.09 ms.
        HandOffRecorder.Summary a = fork(1_800, new long[] {100 * MICROS, 900});
        HandOffRecorder.Summary b = fork(200, new long[] {10 * MILLIS, 100});

        HandOffRecorder.Summary merged = HandOffRecorder.Summary.merge(List.of(a, b));

        assertEquals(1_000, merged.handOffs());
        assertEquals(2_000, merged.acquisitions());
        assertMicros(100, merged.p50Micros(), "p50");
        assertMicros(10_000, merged.p99Micros(), "p99");
        assertMicros(10_000, merged.p999Micros(), "p99.9");
        assertMicros(10_000, merged.maxMicros(), "max");
    }

    @Test
    void merge_oneToThousandMicrosSplitUnevenly_nearestRankPercentiles() {
        long[][] first = new long[900][];
        long[][] second = new long[100][];
        for (int i = 1; i <= 1_000; i++) {
            long[] sample = {i * MICROS, 1};
            if (i <= 900) {
                first[i - 1] = sample;
            } else {
                second[i - 901] = sample;
            }
        }
        HandOffRecorder.Summary merged = HandOffRecorder.Summary.merge(List.of(fork(900, first), fork(100, second)));

        assertEquals(1_000, merged.handOffs());
        assertMicros(500, merged.p50Micros(), "p50");
        assertMicros(990, merged.p99Micros(), "p99 (fork A alone: 891, fork B alone: 999)");
        assertMicros(999, merged.p999Micros(), "p99.9");
        assertMicros(1_000, merged.maxMicros(), "max");
    }

    @Test
    void record_moreThanTwoMillionSamples_everySampleCounts() {
        // The slow tail comes last: a buffer that stops at 2^21 samples would never see it.
        HandOffRecorder.Summary s = fork(0, new long[] {100 * MICROS, 2_500_000}, new long[] {5 * MILLIS, 500_000});

        assertEquals(3_000_000, s.handOffs());
        assertMicros(100, s.p50Micros(), "p50");
        assertMicros(5_000, s.p99Micros(), "p99");
        assertMicros(5_000, s.maxMicros(), "max");
    }

    @Test
    void writeToThenReadFrom_hdrHistogramLog_keepsSamplesAndAcquisitions(@TempDir Path dir) throws Exception {
        HandOffRecorder.Summary written = fork(4_321, new long[] {250 * MICROS, 3_000}, new long[] {2 * MILLIS, 30});
        Path file = dir.resolve("fork.hlog");

        written.writeTo(file);
        HandOffRecorder.Summary read = HandOffRecorder.Summary.readFrom(file);

        assertTrue(Files.readString(file).contains("\"StartTimestamp\",\"Interval_Length\""), "an HdrHistogram log");
        assertEquals(3_030, read.handOffs());
        assertEquals(4_321, read.acquisitions());
        assertEquals(written.p50Micros(), read.p50Micros());
        assertEquals(written.p99Micros(), read.p99Micros());
        assertEquals(written.maxMicros(), read.maxMicros());
    }

    @Test
    void handOffCell_mergedForks_showsTheMergedPercentilesAndCounts() {
        HandOffRecorder.Summary merged = HandOffRecorder.Summary.merge(List.of(
                fork(1_800, new long[] {100 * MICROS, 900}), fork(200, new long[] {10 * MILLIS, 100})));

        BenchmarkReport.Cell cell = BenchmarkReport.handOffCell(merged);

        assertMicros(10_000, cell.value(), "the cell's value is the merged p99");
        assertEquals("100 µs / 10.00 ms (p99.9 10.00 ms, max 10.00 ms; 1,000 hand-offs, 50% of acquisitions)",
                cell.text());
    }

    @Test
    void merge_noHandOffs_noPercentilesAndNoFigure() {
        HandOffRecorder.Summary none = HandOffRecorder.Summary.merge(List.of(fork(7), fork(3)));

        assertEquals(0, none.handOffs());
        assertEquals(10, none.acquisitions());
        assertTrue(Double.isNaN(none.p99Micros()));
        assertTrue(Double.isNaN(none.maxMicros()));
        assertEquals("no hand-off recorded", BenchmarkReport.handOffCell(none).text());
    }
}
