package io.github.relock.benchmarks;

import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one lock under contention costs Redis, second by second: {@code threads} threads of one
 * client loop {@code lock(); unlock();} on one lock, and every second the probe prints the
 * acquisitions, the scripts ({@code EVALSHA}/{@code EVAL}) and the {@code PUBLISH}es Redis served
 * per acquisition ({@code INFO commandstats} deltas). With local hand-off a release hands the lock
 * on in its own script and publishes only when a run ends, so it shows about one script per
 * acquisition and one publish per run; without it, a release, a message and at least one attempt
 * per hand-off. Not part of the report: the evidence behind the one-lock rows of RESULTS.md.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" io.github.relock.benchmarks.HandoffProbe relock-jedis 4 10
 * java -Drelock.localHandoff=off -cp ... io.github.relock.benchmarks.HandoffProbe relock-jedis 4 10
 * }</pre>
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class HandoffProbe {
    private static final Pattern CALLS = Pattern.compile("cmdstat_(evalsha|eval|publish):calls=(\\d+)");

    private HandoffProbe() {
    }

    /**
     * @param args {@code contender threads seconds}: a relock contender ({@code relock-jedis} or
     *     {@code relock-lettuce}), how many threads, how many one-second samples; an embedded Redis
     *     is started for the run
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: HandoffProbe <relock-jedis|relock-lettuce> <threads> <seconds>, was "
                    + String.join(" ", args));
        }
        Contender contender = Contender.of(args[0]);
        int threads = Integer.parseInt(args[1]);
        int seconds = Integer.parseInt(args[2]);
        try (RedisServer server = RedisServer.startEmbedded();
             LockSource source = contender.open(server.host(), server.port());
             RespClient admin = server.admin()) {
            Lock lock = source.lock("bench:probe:" + contender.id());
            AtomicLong acquisitions = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> loops = startLoops(threads, lock, acquisitions, stop, "probe-");
            long[] before = calls(admin);
            long acquiredBefore = acquisitions.get();
            for (int s = 0; s < seconds; s++) {
                Thread.sleep(1000); // sampling period, not a wait for an outcome
                long[] now = calls(admin);
                long acquired = acquisitions.get();
                double n = Math.max(1, acquired - acquiredBefore);
                System.out.printf(Locale.ROOT, "%s: %,d acquisitions/s, %.2f scripts and %.3f publishes per acquisition%n",
                        contender.id(), acquired - acquiredBefore, (now[0] - before[0]) / n, (now[1] - before[1]) / n);
                before = now;
                acquiredBefore = acquired;
            }
            stop.set(true);
            for (Thread t : loops) {
                t.join(Duration.ofSeconds(30).toMillis());
            }
        }
    }

    /**
     * Starts {@code threads} threads that loop {@code lock()}, count, {@code unlock()} until
     * {@code stop} (shared with CohortProbe).
     *
     * @return the started threads
     */
    static List<Thread> startLoops(int threads, Lock lock, AtomicLong acquisitions, AtomicBoolean stop, String name) {
        List<Thread> loops = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                while (!stop.get()) {
                    lock.lock();
                    acquisitions.incrementAndGet();
                    lock.unlock();
                }
            }, name + i);
            loops.add(t);
            t.start();
        }
        return loops;
    }

    /** @return {scripts, publishes} served so far */
    private static long[] calls(RespClient admin) {
        Matcher m = CALLS.matcher((String) admin.call("INFO", "commandstats"));
        long scripts = 0;
        long publishes = 0;
        while (m.find()) {
            long v = Long.parseLong(m.group(2));
            if (m.group(1).equals("publish")) {
                publishes += v;
            } else {
                scripts += v;
            }
        }
        return new long[] {scripts, publishes};
    }
}
