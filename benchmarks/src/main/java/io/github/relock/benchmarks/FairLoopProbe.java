package io.github.relock.benchmarks;

import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * The loop behind the 30-second fair-lock stall of 7fcae35, run long: {@code threads} threads of
 * one client loop {@code lock(); unlock();} on one fair lock, in rounds of {@code seconds}; odd
 * rounds on a fresh lock name, even rounds reusing one name. Reports, per round, the acquisitions
 * and the longest gap between two grants, and at the end the worst gap over every round. With
 * local hand-off on (the default), a lost wake-up shows as a gap of the holder's lease (30 s).
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" io.github.relock.benchmarks.FairLoopProbe relock-lettuce 200 2 4
 * }</pre>
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class FairLoopProbe {

    private FairLoopProbe() {
    }

    /**
     * @param args {@code contender rounds seconds threads}
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        Contender contender = Contender.of(args.length > 0 ? args[0] : "relock-lettuce");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        long worst = 0;
        long total = 0;
        int over = 0;
        try (RedisServer server = RedisServer.startEmbedded();
             LockSource source = contender.open(server.host(), server.port())) {
            for (int r = 0; r < rounds; r++) {
                String name = "bench:fair-loop:" + (r % 2 == 0 ? "round" + r : "reused");
                Lock lock = source.fairLock(name).orElseThrow();
                AtomicLong lastGrant = new AtomicLong(System.nanoTime());
                AtomicLong maxGap = new AtomicLong();
                AtomicLong grants = new AtomicLong();
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> loops = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    Thread t = new Thread(() -> {
                        while (!stop.get()) {
                            lock.lock();
                            long now = System.nanoTime();
                            long gap = now - lastGrant.getAndSet(now);
                            maxGap.accumulateAndGet(gap, Math::max);
                            grants.incrementAndGet();
                            lock.unlock();
                        }
                    }, "fair-loop-" + i);
                    loops.add(t);
                    t.start();
                }
                Thread.sleep(TimeUnit.SECONDS.toMillis(seconds)); // the round's length
                stop.set(true);
                for (Thread t : loops) {
                    t.join(Duration.ofSeconds(120).toMillis());
                }
                long gapMs = TimeUnit.NANOSECONDS.toMillis(maxGap.get());
                worst = Math.max(worst, gapMs);
                total += grants.get();
                if (gapMs > 1000) {
                    over++;
                }
                System.out.printf(Locale.ROOT, "round %d (%s): %,d grants, longest gap %d ms%n", r + 1, name, grants.get(),
                        gapMs);
            }
        }
        System.out.printf(Locale.ROOT, "%n%s, %s hand-off, %d rounds of %d s, %d threads: %,d grants; longest gap between"
                        + " grants %d ms; rounds with a gap over 1 s: %d%n", contender.id(), Contender.localHandOff(), rounds,
                seconds, threads, total, worst, over);
    }
}
