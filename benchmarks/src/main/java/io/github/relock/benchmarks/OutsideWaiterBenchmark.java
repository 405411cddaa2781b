package io.github.relock.benchmarks;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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
 * Scenario (j), the outside waiter under full local load: {@value #LOCAL} threads of one client
 * loop {@code lock(); unlock();} on one lock while one thread of a <em>second</em> client of the
 * same library (its own client id, its own connections; same JVM) loops {@code lock(); unlock();}
 * on the same lock. JMH reports the group's throughput per method: {@code local} (acquisitions/s
 * of the four local threads together) and {@code outside}.
 *
 * <p>The figure that matters is the outside waiter's wait: a {@link HandOffRecorder} records, for
 * every outside acquisition in a measurement iteration, the time from just before its
 * {@code lock()} call to its return; the report shows its p50 / p99 / p99.9 and <b>max</b>. A
 * client that hands its lock from one of its own threads to the next in the release script
 * (relock's local hand-off, {@code LockOptions.localHandoff}, on by default) could starve the
 * outside waiter; the option's bounds (16 consecutive hand-offs, 20 ms, by default) exist to cap
 * this wait, and this scenario shows whether they do. Set the relock contenders' option with {@code -Drelock.localHandoff}
 * (see {@link Contender#relockOptions}).
 *
 * <p>Each fork leaves the histogram as an HdrHistogram log in {@code -Drelock.bench.out} under
 * {@link ContendedBenchmark#handOffFileName}'s name, for the report to merge.
 *
 * <p>Run through {@link BenchmarkReport} ({@code --scenarios=j}); see {@link UncontendedBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class OutsideWaiterBenchmark {
    static final int LOCAL = 4;
    static final int OUTSIDE = 1;
    /** The JMH group: its benchmark name is {@code OutsideWaiterBenchmark.outsideWaiter}. */
    static final String GROUP = "outsideWaiter";

    /** Which library (the floor cannot wait). */
    @Param({"relock-jedis", "relock-lettuce", "redisson"})
    public String contender;

    LockSource local;
    LockSource outside;
    Lock localLock;
    Lock outsideLock;
    final HandOffRecorder outsideWaits = new HandOffRecorder();
    volatile boolean recording;
    private Path summaryFile;

    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
        Contender c = Contender.of(contender);
        String name = "bench:" + contender + ":outside-waiter";
        local = BenchEnv.open(c);
        outside = BenchEnv.open(c);
        localLock = local.lock(name);
        outsideLock = outside.lock(name);
        Path out = BenchEnv.out();
        if (out != null) {
            summaryFile = out.resolve(ContendedBenchmark.handOffFileName(GROUP, contender, params.getThreads()));
        }
    }

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        recording = params.getType() == IterationType.MEASUREMENT;
    }

    @TearDown(Level.Trial)
    public void close() {
        try {
            if (summaryFile != null) {
                outsideWaits.summary().writeTo(summaryFile);
            }
        } finally {
            try {
                outside.close();
            } finally {
                local.close();
            }
        }
    }

    /** Four threads of the first client: the full local load. */
    @Benchmark
    @Group(GROUP)
    @GroupThreads(LOCAL)
    public void local() {
        localLock.lock();
        localLock.unlock();
    }

    /** One thread of the second client: its wait from call to return is recorded. */
    @Benchmark
    @Group(GROUP)
    @GroupThreads(OUTSIDE)
    public void outside() {
        long start = System.nanoTime();
        outsideLock.lock();
        long waited = System.nanoTime() - start;
        if (recording) {
            outsideWaits.acquired();
            outsideWaits.record(waited);
        }
        outsideLock.unlock();
    }
}
