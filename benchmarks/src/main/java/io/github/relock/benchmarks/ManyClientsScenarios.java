package io.github.relock.benchmarks;

import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 37's scenario (n) of {@link BenchmarkReport}: the cost of one acquisition as the crowd of
 * contending clients grows. For 1, 2, 4, 8, 16, 32 and 64 clients, one thread each, on one
 * reentrant lock with an empty critical section, every contender of {@link ManyClientsProbe}
 * (relock on Jedis with directed wake-ups on and off, Redisson 4.7.0) in the report's own JVM on
 * its one Redis, one round at a time so the rounds interleave with the report's others;
 * acquisitions/s and the server's scripts per acquisition ({@code INFO commandstats}). Without
 * directed wake-ups a release wakes one waiter in every subscribed client, so the scripts grow
 * with the clients; with them, one client. Each run checks that no two threads were inside at once.
 *
 * <p>Thread-safety: not thread-safe; the report's one thread drives it.
 */
final class ManyClientsScenarios {
    /** The client counts of the curve. */
    static final List<Integer> CLIENTS = List.of(1, 2, 4, 8, 16, 32, 64);
    /** The directed contender the targets are read on. */
    static final String DIRECTED = "relock-jedis directed";
    /** The broadcast contender, today's behaviour, the throughput target compares with. */
    static final String BROADCAST = "relock-jedis broadcast";

    /** {acquisitions/s, scripts per acquisition} of every round, by "contender|clients". */
    private final Map<String, List<double[]>> runs = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    /** One round: every client count, every contender, {@code seconds} measured each. */
    void round(RedisServer redis, int seconds, int round) {
        try (RespClient admin = redis.admin()) {
            for (int clients : CLIENTS) {
                for (String c : ManyClientsProbe.MODES) {
                    String label = "(n) " + clients + " clients, one thread each — " + c + " [round " + round + "]";
                    try {
                        double[] m = ManyClientsProbe.run(redis, admin, c, clients, seconds,
                                "bench:n:" + round + ":" + clients + ":" + c.replace(' ', '-'));
                        runs.computeIfAbsent(c + "|" + clients, k -> new ArrayList<>()).add(m);
                        System.out.printf(Locale.ROOT, "  %s: %,.0f acquisitions/s, %.1f scripts per acquisition%n",
                                label, m[0], m[1]);
                    } catch (Exception e) {
                        failures.add(label + ": " + e);
                        System.out.println("  " + label + ": FAILED: " + e);
                    }
                }
            }
        }
    }

    /** Appends the curve's table. */
    void render(StringBuilder md) {
        md.append("\n#### (n) clients on one reentrant lock, one thread each: directed wake-ups and the crowd\n\n");
        md.append("| clients | contender | acquisitions/s, median [min–max] | scripts / acquisition, median [min–max] |\n");
        md.append("|---:|---|---:|---:|\n");
        for (int clients : CLIENTS) {
            for (String c : ManyClientsProbe.MODES) {
                List<double[]> l = runs.get(c + "|" + clients);
                md.append(String.format(Locale.ROOT, "| %d | %s | %s | %s |%n", clients, c,
                        CohortScenarios.spread(CohortScenarios.column(l, 0), "%,.0f"),
                        CohortScenarios.spread(CohortScenarios.column(l, 1), "%.1f")));
            }
        }
        md.append("\nEach client is a client of its own (its own connections), all in the report's JVM, "
                + "looping lock(); unlock(); after half a second of warm-up; scripts per acquisition is the "
                + "`INFO commandstats` delta of EVAL, EVALSHA and FCALL calls over the measured stretch ÷ "
                + "acquisitions. Directed wake-ups are switched per run with `-Drelock.directedWakes`.\n");
        if (!failures.isEmpty()) {
            md.append("\nFailed runs of (n):\n\n");
            failures.forEach(f -> md.append("- ").append(f).append('\n'));
        }
    }

    /** @return issue 37's target rows {what, measured, status} for the curve */
    List<String[]> targets() {
        List<String[]> rows = new ArrayList<>();
        double scripts = BenchmarkReport.median(CohortScenarios.column(runs.get(DIRECTED + "|32"), 1));
        rows.add(CohortScenarios.row("(n) 32 clients, " + DIRECTED + ": scripts per acquisition ≤ 5", scripts, "%.1f",
                scripts <= 5));
        double directed32 = BenchmarkReport.median(CohortScenarios.column(runs.get(DIRECTED + "|32"), 0));
        double broadcast8 = BenchmarkReport.median(CohortScenarios.column(runs.get(BROADCAST + "|8"), 0));
        rows.add(CohortScenarios.row("(n) acquisitions/s, 32 clients " + DIRECTED + " ÷ 8 clients " + BROADCAST
                + " (medians) ≥ 1", directed32 / broadcast8, "%.2f", directed32 >= broadcast8));
        boolean broken = failures.stream().anyMatch(f -> f.contains("mutual exclusion"));
        rows.add(new String[] {"(n) mutual exclusion", broken ? "broken (see the failed runs)" : "held",
                broken ? "**missed**" : "met"});
        return rows;
    }
}
