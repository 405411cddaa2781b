package io.github.relock.benchmarks;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
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

/**
 * Scenario (g): {@value #IN_FLIGHT} async lock/unlock pairs in flight at all times, each on its
 * own lock with its own owner id: {@code lockAsync(id).thenCompose(unlockAsync(id))}. One
 * benchmark thread starts a pair whenever one of the {@value #IN_FLIGHT} slots is free (and
 * waits when none is), so the throughput is completed pairs per second at a steady window.
 *
 * <p>Run through {@link BenchmarkReport}; see {@link UncontendedBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AsyncBenchmark {
    static final int IN_FLIGHT = 1000;

    /** Which library ({@code relock-jedis} runs its async calls on a small blocking pool). */
    @Param({"relock-lettuce", "redisson", "relock-jedis"})
    public String contender;

    LockSource source;
    AsyncLock[] locks;
    final ArrayBlockingQueue<Integer> free = new ArrayBlockingQueue<>(IN_FLIGHT);
    final LongAdder failures = new LongAdder();
    final AtomicReference<Throwable> firstFailure = new AtomicReference<>();

    @Setup(Level.Trial)
    public void open() {
        source = Contender.of(contender).open(BenchEnv.host(), BenchEnv.port());
        locks = new AsyncLock[IN_FLIGHT];
        for (int i = 0; i < IN_FLIGHT; i++) {
            locks[i] = source.asyncLock("bench:" + contender + ":async:" + i);
            free.add(i);
        }
    }

    @TearDown(Level.Trial)
    public void close() throws InterruptedException {
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (free.size() < IN_FLIGHT && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            if (free.size() < IN_FLIGHT) {
                throw new IllegalStateException((IN_FLIGHT - free.size()) + " async pairs did not complete within 30 s");
            }
            if (failures.sum() > 0) {
                throw new IllegalStateException(failures.sum() + " async pairs failed", firstFailure.get());
            }
        } finally {
            source.close();
        }
    }

    /** Starts one pair (after waiting for a free slot). */
    @Benchmark
    public void lockUnlockPair() throws InterruptedException {
        int slot = free.take();
        AsyncLock lock = locks[slot];
        long owner = slot + 1L;
        lock.lock(owner).thenCompose(v -> lock.unlock(owner)).whenComplete((v, error) -> {
            if (error != null) {
                failures.increment();
                firstFailure.compareAndSet(null, error);
            }
            free.add(slot);
        });
    }
}
