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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.HdrHistogram.Histogram;

/**
 * A mixed fleet on one reentrant lock, local hand-off on and off, interleaved: two threads each of
 * relock on Jedis, relock on Lettuce and Redisson 4.7.0 loop on one lock; inside it each does a
 * {@code GET} of a counter, re-enters the lock, and {@code SET}s the counter plus one. Reports per
 * client its share of the acquisitions and its waits (p50 / p99 / max, from just before
 * {@code lock()} to its return), and checks the counter (no lost update). The figures that matter
 * are the outside waiters' (another client's, Redisson's above all): with hand-off on, their share
 * must be at least a third of their share with it off, and their longest wait no worse.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" io.github.relock.benchmarks.MixedFleetProbe 8 3
 * }</pre>
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class MixedFleetProbe {
    static final List<String> CLIENTS = List.of("relock-jedis", "relock-lettuce", "redisson");
    private static final int THREADS_PER_CLIENT = 2;

    private MixedFleetProbe() {
    }

    /** One client's figures in one run. */
    static final class Figures {
        final Histogram waits = new Histogram(TimeUnit.MINUTES.toNanos(5), 3);
        long acquisitions;

        synchronized void add(long waitNanos) {
            waits.recordValue(Math.min(waitNanos, TimeUnit.MINUTES.toNanos(5)));
            acquisitions++;
        }
    }

    /**
     * @param args {@code seconds rounds [handoff|cohort]}: how long each run lasts, how many rounds of
     *     (on, off), and what is switched: the local hand-off (cohorts follow their options' default),
     *     or cohorts (local hand-off on in both)
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        boolean cohort = args.length > 2 && args[2].equals("cohort");
        Map<String, Map<String, Figures>> totals = new LinkedHashMap<>();
        try (RedisServer server = RedisServer.startEmbedded(); RespClient admin = server.admin()) {
            for (int r = 0; r < rounds; r++) {
                for (String mode : List.of("on", "off")) {
                    Map<String, Figures> run = run(server, admin, options(cohort, mode), seconds,
                            "bench:mixed:" + r + ":" + mode);
                    Map<String, Figures> sum = totals.computeIfAbsent(mode, m -> new LinkedHashMap<>());
                    run.forEach((client, f) -> {
                        Figures t = sum.computeIfAbsent(client, c -> new Figures());
                        t.waits.add(f.waits);
                        t.acquisitions += f.acquisitions;
                    });
                    System.out.printf(Locale.ROOT, "round %d, %s %s: %s%n", r + 1, cohort ? "cohort" : "hand-off", mode,
                            shares(run));
                }
            }
        }
        System.out.println();
        System.out.printf("| hand-off | client | acquisitions | share | wait p50 | wait p99 | wait max |%n");
        System.out.printf("|---|---|---:|---:|---:|---:|---:|%n");
        for (Map.Entry<String, Map<String, Figures>> mode : totals.entrySet()) {
            long all = mode.getValue().values().stream().mapToLong(f -> f.acquisitions).sum();
            for (Map.Entry<String, Figures> c : mode.getValue().entrySet()) {
                Figures f = c.getValue();
                System.out.printf(Locale.ROOT, "| %s | %s | %,d | %.1f %% | %s | %s | %s |%n", mode.getKey(), c.getKey(),
                        f.acquisitions, 100.0 * f.acquisitions / Math.max(1, all), ms(f.waits.getValueAtPercentile(50)),
                        ms(f.waits.getValueAtPercentile(99)), ms(f.waits.getMaxValue()));
            }
        }
        double onShare = share(totals.get("on"), "redisson");
        double offShare = share(totals.get("off"), "redisson");
        long onMax = totals.get("on").get("redisson").waits.getMaxValue();
        long offMax = totals.get("off").get("redisson").waits.getMaxValue();
        System.out.printf(Locale.ROOT, "%nRedisson's share with hand-off on ÷ off: %.2f (target ≥ 0.33); "
                + "its longest wait on %s vs off %s (target: no worse)%n", onShare / offShare, ms(onMax), ms(offMax));
    }

    private static double share(Map<String, Figures> run, String client) {
        long all = run.values().stream().mapToLong(f -> f.acquisitions).sum();
        return (double) run.get(client).acquisitions / Math.max(1, all);
    }

    private static String shares(Map<String, Figures> run) {
        long all = run.values().stream().mapToLong(f -> f.acquisitions).sum();
        StringBuilder b = new StringBuilder();
        run.forEach((c, f) -> b.append(String.format(Locale.ROOT, "%s %.1f %% (max wait %s)  ", c,
                100.0 * f.acquisitions / Math.max(1, all), ms(f.waits.getMaxValue()))));
        return b.toString();
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    /** @return relock's options for one run: {@code mode} on or off of the local hand-off or of cohorts */
    static LockOptions options(boolean cohort, String mode) {
        if (cohort) {
            return mode.equals("on") ? LockOptions.builder().cohort().build() : LockOptions.builder().noCohort().build();
        }
        return mode.equals("on") ? LockOptions.defaults() : LockOptions.builder().noLocalHandoff().build();
    }

    /**
     * One run: every client's figures, by {@link #CLIENTS}' names.
     *
     * @throws IllegalStateException if an update was lost or two holders overlapped
     */
    static Map<String, Figures> run(RedisServer server, RespClient admin, LockOptions options, int seconds,
            String name) throws Exception {
        List<LockSource> sources = List.of(RelockSource.onJedis(server.host(), server.port(), options),
                RelockSource.onLettuce(server.host(), server.port(), options),
                RedissonSource.open(server.host(), server.port(), LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT));
        Map<String, Figures> figures = new LinkedHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        String counter = name + ":counter";
        List<Thread> threads = new ArrayList<>();
        try {
            for (int c = 0; c < CLIENTS.size(); c++) {
                Figures f = new Figures();
                figures.put(CLIENTS.get(c), f);
                Lock lock = sources.get(c).lock(name);
                for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                    Thread thread = new Thread(() -> {
                        try (RespClient redis = server.admin()) {
                            while (!stop.get()) {
                                long start = System.nanoTime();
                                lock.lock();
                                f.add(System.nanoTime() - start);
                                try {
                                    if (inside.incrementAndGet() != 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    Object v = redis.call("GET", counter);
                                    lock.lock(); // re-entry
                                    try {
                                        redis.call("SET", counter, Long.toString((v == null ? 0 : Long.parseLong((String) v)) + 1));
                                    } finally {
                                        lock.unlock();
                                    }
                                    inside.decrementAndGet();
                                } finally {
                                    lock.unlock();
                                }
                            }
                        }
                    }, CLIENTS.get(c) + "-" + t);
                    threads.add(thread);
                }
            }
            threads.forEach(Thread::start);
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds)); // the run's length
            stop.set(true);
            for (Thread t : threads) {
                t.join(Duration.ofSeconds(120).toMillis());
            }
        } finally {
            for (LockSource s : sources) {
                s.close();
            }
        }
        long total = figures.values().stream().mapToLong(f -> f.acquisitions).sum();
        Object v = admin.call("GET", counter);
        long count = v == null ? 0 : Long.parseLong((String) v);
        if (count != total || overlaps.get() != 0) {
            throw new IllegalStateException("mutual exclusion broken: counter " + count + ", acquisitions " + total
                    + ", overlaps " + overlaps.get());
        }
        admin.call("DEL", counter);
        return figures;
    }
}
