package io.github.relock.benchmarks;

import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cohort hand-off side by side (issue 37): 4 and 16 threads of one client take and release one
 * reentrant lock with an empty critical section, for relock on Jedis and on Lettuce with cohorts
 * on ({@code LockOptions.cohort()}) and off, and for Redisson 4.7.0, in interleaved rounds on one
 * embedded Redis. Reports acquisitions per second and the Redis commands per acquisition (the
 * {@code INFO commandstats} delta over the measured stretch: every command Redis ran, scripts'
 * inner calls included, divided by the acquisitions), median over the rounds.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" io.github.relock.benchmarks.CohortProbe 3 3
 * }</pre>
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class CohortProbe {
    private static final Pattern CALLS = Pattern.compile("cmdstat_([a-z|_-]+):calls=(\\d+)");
    static final List<String> CONTENDERS = List.of("relock-jedis cohort on", "relock-jedis cohort off",
            "relock-lettuce cohort on", "relock-lettuce cohort off", "redisson");

    private CohortProbe() {
    }

    /**
     * @param args {@code seconds rounds [threads...]}: how long each measured stretch lasts (after
     *     one second of warm-up), how many interleaved rounds, and the thread counts (4 16)
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        List<Integer> threadCounts = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            threadCounts.add(Integer.parseInt(args[i]));
        }
        if (threadCounts.isEmpty()) {
            threadCounts = List.of(4, 16);
        }
        Map<String, List<double[]>> results = new LinkedHashMap<>();
        try (RedisServer server = RedisServer.startEmbedded(); RespClient admin = server.admin()) {
            for (int r = 0; r < rounds; r++) {
                for (int threads : threadCounts) {
                    for (String c : CONTENDERS) {
                        double[] m = run(server, admin, c, threads, seconds, "bench:cohort:" + r + ":" + threads);
                        results.computeIfAbsent(c + "|" + threads, k -> new ArrayList<>()).add(m);
                        System.out.printf(Locale.ROOT, "round %d, %d threads, %s: %,.0f acquisitions/s, %.3f commands"
                                + " per acquisition%n", r + 1, threads, c, m[0], m[1]);
                    }
                }
            }
        }
        System.out.println();
        System.out.println("| threads | contender | acquisitions/s (median) | × Redisson | commands / acquisition |");
        System.out.println("|---:|---|---:|---:|---:|");
        for (int threads : threadCounts) {
            double redisson = median(results.get("redisson|" + threads), 0);
            for (String c : CONTENDERS) {
                List<double[]> l = results.get(c + "|" + threads);
                System.out.printf(Locale.ROOT, "| %d | %s | %,.0f | %.1f | %.3f |%n", threads, c, median(l, 0),
                        median(l, 0) / redisson, median(l, 1));
            }
        }
    }

    private static double median(List<double[]> l, int i) {
        double[] v = l.stream().mapToDouble(a -> a[i]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** @return {acquisitions per second, commands per acquisition} of one measured stretch (after 1 s of warm-up) */
    static double[] run(RedisServer server, RespClient admin, String contender, int threads, int seconds,
            String name) throws Exception {
        LockOptions on = LockOptions.builder().cohort().build();
        LockOptions off = LockOptions.builder().noCohort().build();
        LockSource source = switch (contender) {
            case "relock-jedis cohort on" -> RelockSource.onJedis(server.host(), server.port(), on);
            case "relock-jedis cohort off" -> RelockSource.onJedis(server.host(), server.port(), off);
            case "relock-lettuce cohort on" -> RelockSource.onLettuce(server.host(), server.port(), on);
            case "relock-lettuce cohort off" -> RelockSource.onLettuce(server.host(), server.port(), off);
            default -> RedissonSource.open(server.host(), server.port(), LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT);
        };
        try (source) {
            Lock lock = source.lock(name + ":" + contender.replace(' ', '-'));
            AtomicLong acquisitions = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> loops = HandoffProbe.startLoops(threads, lock, acquisitions, stop, "cohort-probe-");
            Thread.sleep(1000); // warm-up, not a wait for an outcome
            long commandsBefore = commands(admin);
            long acquiredBefore = acquisitions.get();
            long start = System.nanoTime();
            Thread.sleep(seconds * 1000L); // the measured stretch
            long acquired = acquisitions.get() - acquiredBefore;
            double elapsed = (System.nanoTime() - start) / 1e9;
            long ran = commands(admin) - commandsBefore - 1; // less this INFO's own count
            stop.set(true);
            for (Thread t : loops) {
                t.join(Duration.ofSeconds(60).toMillis());
            }
            return new double[] {acquired / elapsed, (double) ran / Math.max(1, acquired)};
        }
    }

    /** @return every command Redis has run so far (INFO commandstats, summed) */
    private static long commands(RespClient admin) {
        Matcher m = CALLS.matcher((String) admin.call("INFO", "commandstats"));
        long total = 0;
        while (m.find()) {
            total += Long.parseLong(m.group(2));
        }
        return total;
    }
}
