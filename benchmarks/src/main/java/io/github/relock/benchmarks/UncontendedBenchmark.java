package io.github.relock.benchmarks;

import io.github.relock.tck.fixtures.RespClient;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
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

/**
 * Scenarios without contention: (a)/(b) {@code lock()} + {@code unlock()} with each thread on its
 * own lock (1, 4 and 16 threads: the thread count comes from the runner), and (e) {@code tryLock()}
 * on a lock another owner holds. Throughput is cycles (or attempts) per second over all threads.
 *
 * <p>Run through {@link BenchmarkReport} ({@code java -jar benchmarks/target/benchmarks.jar}), which
 * starts Redis and passes its port; JMH's own launcher works too with {@code -jvmArgsAppend
 * -Drelock.bench.port=<port>} of a Redis you started. With {@code -Drelock.bench.cluster=host:port,...}
 * (scenario i) the clients are cluster clients and the locks spread over the masters by hash slot.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class UncontendedBenchmark {
    private static final AtomicInteger NAMES = new AtomicInteger();

    /** Which library. */
    @Param({"relock-jedis", "relock-lettuce", "redisson", "floor"})
    public String contender;

    LockSource source;

    @Setup(Level.Trial)
    public void open() {
        source = BenchEnv.open(Contender.of(contender));
    }

    @TearDown(Level.Trial)
    public void close() {
        source.close();
    }

    /** A lock of this thread's own: never contended. */
    @State(Scope.Thread)
    public static class OwnLock {
        Lock lock;

        @Setup(Level.Trial)
        public void setUp(UncontendedBenchmark b) {
            lock = b.source.lock("bench:" + b.contender + ":own:" + NAMES.incrementAndGet());
        }
    }

    /** A lock held, for the whole trial, by an owner that is not this client. */
    @State(Scope.Thread)
    public static class HeldLock {
        String name;
        Lock lock;
        final LongAdder acquired = new LongAdder();

        @Setup(Level.Trial)
        public void setUp(UncontendedBenchmark b) {
            name = "bench:" + b.contender + ":held:" + NAMES.incrementAndGet();
            try (RespClient admin = new RespClient(BenchEnv.host(), BenchEnv.port(), 5000)) {
                admin.call("HSET", name, "another-client:1", "1");
                admin.call("PEXPIRE", name, Long.toString(TimeUnit.HOURS.toMillis(1)));
            }
            lock = b.source.lock(name);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            try (RespClient admin = new RespClient(BenchEnv.host(), BenchEnv.port(), 5000)) {
                admin.call("DEL", name);
            }
            if (acquired.sum() > 0) {
                throw new IllegalStateException("tryLock() acquired a lock held by another owner "
                        + acquired.sum() + " time(s): the lock is broken");
            }
        }
    }

    /** (a) and (b): one uncontended lock+unlock cycle. */
    @Benchmark
    public void lockUnlock(OwnLock own) {
        own.lock.lock();
        own.lock.unlock();
    }

    /** (e): one failed attempt on a held lock. */
    @Benchmark
    public boolean tryLockHeld(HeldLock held) {
        boolean got = held.lock.tryLock();
        if (got) {
            held.acquired.increment();
            held.lock.unlock();
        }
        return got;
    }
}
