package io.github.relock.benchmarks;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Scenarios (c) and (d): every benchmark thread (4 or 16, from the runner) takes and releases the
 * same lock, the reentrant one or the fair one, with an empty critical section. Throughput is
 * acquisitions per second over all threads; a {@link HandOffRecorder} measures the time from
 * the start of an {@code unlock()} to the return of {@code lock()} in the next, different, holder,
 * in measurement iterations only, and leaves their histogram as an HdrHistogram log in
 * {@code -Drelock.bench.out}, one per fork, for the report to merge.
 *
 * <p>Run through {@link BenchmarkReport}; see {@link UncontendedBenchmark} (also for scenario (i),
 * the same on a cluster).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ContendedBenchmark {

    /** Which library (the floor cannot wait, so it is not a contender here). */
    @Param({"relock-jedis", "relock-lettuce", "redisson"})
    public String contender;

    LockSource source;
    Lock reentrant;
    Lock fair;
    final HandOffRecorder recorder = new HandOffRecorder();
    volatile boolean recording;
    // The last holder writes these just before it starts unlock(); the next holder reads them
    // once lock() returned.
    volatile long releasedBy = -1;
    volatile long releasedAt;
    private Path summaryFile;

    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
        Contender c = Contender.of(contender);
        source = BenchEnv.open(c);
        String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        reentrant = source.lock("bench:" + contender + ":one");
        fair = source.fairLock("bench:" + contender + ":fair").orElse(null);
        if (method.equals("fairOneLock") && fair == null) {
            throw new UnsupportedOperationException(contender + " has no fair lock");
        }
        Path out = BenchEnv.out();
        if (out != null) {
            summaryFile = out.resolve(handOffFileName(method, contender, params.getThreads()));
        }
    }

    /** The file name the runner reads a fork's hand-off histogram from (an HdrHistogram log). */
    static String handOffFileName(String method, String contender, int threads) {
        return "handoff-" + method + "-" + contender + "-t" + threads + "-" + ProcessHandle.current().pid() + ".hlog";
    }

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        recording = params.getType() == IterationType.MEASUREMENT;
    }

    @TearDown(Level.Trial)
    public void close() {
        try {
            if (summaryFile != null) {
                recorder.summary().writeTo(summaryFile);
            }
        } finally {
            source.close();
        }
    }

    /** The benchmark thread's id, as the hand-off bookkeeping sees it. */
    @State(Scope.Thread)
    public static class Me {
        long id;

        @Setup(Level.Trial)
        public void setUp() {
            id = Thread.currentThread().getId(); // setup runs on the benchmark thread itself
        }
    }

    /** (c): the reentrant lock, shared by all threads. */
    @Benchmark
    public void oneLock(Me me) {
        cycle(reentrant, me.id);
    }

    /** (d): the fair lock, shared by all threads. */
    @Benchmark
    public void fairOneLock(Me me) {
        cycle(fair, me.id);
    }

    private void cycle(Lock lock, long me) {
        lock.lock();
        long now = System.nanoTime();
        if (recording) {
            recorder.acquired();
            if (releasedBy != me && releasedBy != -1) {
                recorder.record(now - releasedAt);
            }
        }
        releasedBy = me;
        releasedAt = System.nanoTime();
        lock.unlock();
    }
}
