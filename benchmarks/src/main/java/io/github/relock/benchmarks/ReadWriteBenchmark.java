package io.github.relock.benchmarks;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
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
 * Scenario (rw): one read-write lock ({@code getReadWriteLock}), {@value #READERS} reader threads
 * each looping {@code readLock().lock(); readLock().unlock();} and one writer thread looping
 * {@code writeLock().lock(); writeLock().unlock();}, empty critical sections. JMH reports the
 * group's throughput per method: {@code reader} (read acquisitions/s over all four readers) and
 * {@code writer} (write acquisitions/s).
 *
 * <p>Writer wait, not hand-off: a {@link HandOffRecorder} records, for every write acquisition in
 * a measurement iteration, the time from just before the writer calls {@code writeLock().lock()}
 * to just after it returns. It includes the writer's own acquire round trip(s) and any time spent
 * waiting for readers to drain; it is not the time from the last reader's {@code unlock()} to the
 * writer's return (which reader released last is not known without adding shared bookkeeping to
 * the readers' path). Each fork leaves the histogram as an HdrHistogram log in
 * {@code -Drelock.bench.out} under {@link ContendedBenchmark#handOffFileName}'s name, for the
 * report to merge.
 *
 * <p>Neither library makes readers yield to a waiting writer (Redisson's read lock is taken
 * whenever the lock is in read mode), so the writer gets in only when all four readers happen to
 * be out at once; its wait measures that.
 *
 * <p>Run through {@link BenchmarkReport} ({@code --scenarios=rw}); see {@link UncontendedBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ReadWriteBenchmark {
    static final int READERS = 4;
    static final int WRITERS = 1;
    /** The JMH group: its benchmark name is {@code ReadWriteBenchmark.readWrite}. */
    static final String GROUP = "readWrite";

    /** Which library (the floor has no read-write lock). */
    @Param({"relock-jedis", "relock-lettuce", "redisson"})
    public String contender;

    LockSource source;
    Lock read;
    Lock write;
    final HandOffRecorder writerWaits = new HandOffRecorder();
    volatile boolean recording;
    private Path summaryFile;

    @Setup(Level.Trial)
    public void open(BenchmarkParams params) {
        source = Contender.of(contender).open(BenchEnv.host(), BenchEnv.port());
        ReadWriteLock rw = source.readWriteLock("bench:" + contender + ":rw")
                .orElseThrow(() -> new UnsupportedOperationException(contender + " has no read-write lock"));
        read = rw.readLock();
        write = rw.writeLock();
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
                writerWaits.summary().writeTo(summaryFile);
            }
        } finally {
            source.close();
        }
    }

    /** Four threads: shared read lock, taken and released. */
    @Benchmark
    @Group(GROUP)
    @GroupThreads(READERS)
    public void reader() {
        read.lock();
        read.unlock();
    }

    /** One thread: exclusive write lock; its wait from call to return is recorded. */
    @Benchmark
    @Group(GROUP)
    @GroupThreads(WRITERS)
    public void writer() {
        long start = System.nanoTime();
        write.lock();
        long waited = System.nanoTime() - start;
        if (recording) {
            writerWaits.acquired();
            writerWaits.record(waited);
        }
        write.unlock();
    }
}
