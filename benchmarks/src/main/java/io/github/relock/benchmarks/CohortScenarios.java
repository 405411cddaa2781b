package io.github.relock.benchmarks;

import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Issue 37's scenarios of {@link BenchmarkReport}, measured in the report's own JVM on its one
 * Redis, one round at a time so they interleave with the report's other rounds:
 * <ul>
 * <li>(k) cohort hand-off side by side: 4 and 16 threads of one client on one reentrant lock with
 *     an empty critical section, relock on Jedis and on Lettuce with cohorts on and off, and
 *     Redisson 4.7.0; acquisitions/s and Redis commands per acquisition ({@link CohortProbe}'s
 *     measured stretch, after one second of warm-up);</li>
 * <li>(m) the mixed fleet with cohorts on and off: two threads each of relock-jedis,
 *     relock-lettuce and Redisson 4.7.0 on one lock, a counter read and written under it
 *     ({@link MixedFleetProbe}'s run: it fails on a lost update); per round each client's share of
 *     the grants and Redisson's waits.</li>
 * </ul>
 * Cohorts are switched by the clients' options ({@code LockOptions.Builder.cohort()} and
 * {@code noCohort()}); the local hand-off stays as {@code -Drelock.localHandoff} sets it (off turns
 * cohorts off too).
 *
 * <p>Thread-safety: not thread-safe; the report's one thread drives it.
 */
final class CohortScenarios {
    /** Thread counts of (k). */
    static final List<Integer> THREADS = List.of(4, 16);
    /** (k)'s target: a relock contender with cohorts on against Redisson, same run. */
    static final double TARGET_VS_REDISSON = 20;
    private static final List<String> MODES = List.of("on", "off");

    /** (k): {acquisitions/s, commands per acquisition} of every round, by "contender|threads". */
    private final Map<String, List<double[]>> rates = new LinkedHashMap<>();
    /** (m): per round {Redisson's share %, its wait p99 ms, its wait max ms, jedis %, lettuce %, grants}, by mode. */
    private final Map<String, List<double[]>> fleet = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    /** One round of (k): every contender at every thread count, {@code seconds} measured each. */
    void cohortRound(RedisServer redis, int seconds, int round) {
        try (RespClient admin = redis.admin()) {
            for (int threads : THREADS) {
                for (String c : CohortProbe.CONTENDERS) {
                    String label = "(k) " + threads + " threads, one lock — " + c + " [round " + round + "]";
                    try {
                        double[] m = CohortProbe.run(redis, admin, c, threads, seconds, "bench:k:" + round + ":" + threads);
                        rates.computeIfAbsent(c + "|" + threads, k -> new ArrayList<>()).add(m);
                        System.out.printf(Locale.ROOT, "  %s: %,.0f acquisitions/s, %.3f commands per acquisition%n",
                                label, m[0], m[1]);
                    } catch (Exception e) {
                        failures.add(label + ": " + e);
                        System.out.println("  " + label + ": FAILED: " + e);
                    }
                }
            }
        }
    }

    /** One round of (m): cohorts on, then off, {@code seconds} each. */
    void fleetRound(RedisServer redis, int seconds, int round) {
        try (RespClient admin = redis.admin()) {
            for (String mode : MODES) {
                String label = "(m) mixed fleet, cohorts " + mode + " [round " + round + "]";
                try {
                    Map<String, MixedFleetProbe.Figures> f = MixedFleetProbe.run(redis, admin,
                            MixedFleetProbe.options(true, mode), seconds, "bench:m:" + round + ":" + mode);
                    long all = f.values().stream().mapToLong(x -> x.acquisitions).sum();
                    MixedFleetProbe.Figures r = f.get("redisson");
                    double[] row = {100.0 * r.acquisitions / Math.max(1, all), ms(r.waits.getValueAtPercentile(99)),
                            ms(r.waits.getMaxValue()), 100.0 * f.get("relock-jedis").acquisitions / Math.max(1, all),
                            100.0 * f.get("relock-lettuce").acquisitions / Math.max(1, all), all};
                    fleet.computeIfAbsent(mode, k -> new ArrayList<>()).add(row);
                    System.out.printf(Locale.ROOT, "  %s: Redisson %.1f %% of %,d grants, its wait p99 %.0f ms, max %.0f ms;"
                            + " relock-jedis %.1f %%, relock-lettuce %.1f %%; no lost update%n", label, row[0], all, row[1],
                            row[2], row[3], row[4]);
                } catch (Exception e) {
                    failures.add(label + ": " + e);
                    System.out.println("  " + label + ": FAILED: " + e);
                }
            }
        }
    }

    private static double ms(long nanos) {
        return nanos / (double) TimeUnit.MILLISECONDS.toNanos(1);
    }

    /** Appends the tables of the scenarios that ran. */
    void render(StringBuilder md, boolean k, boolean m) {
        if (k) {
            md.append("\n#### (k) cohort hand-off: threads of one client on one reentrant lock\n\n");
            md.append("| threads | contender | acquisitions/s, median [min–max] | × Redisson | commands / acquisition |\n");
            md.append("|---:|---|---:|---:|---:|\n");
            for (int threads : THREADS) {
                double redisson = median(column(rates.get("redisson|" + threads), 0));
                for (String c : CohortProbe.CONTENDERS) {
                    double[] r = column(rates.get(c + "|" + threads), 0);
                    md.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s |%n", threads, c, spread(r, "%,.0f"),
                            r.length == 0 || !(redisson > 0) ? "n/a" : String.format(Locale.ROOT, "%.1f", median(r) / redisson),
                            r.length == 0 ? "n/a" : String.format(Locale.ROOT, "%.3f",
                                    median(column(rates.get(c + "|" + threads), 1)))));
                }
            }
            md.append("\nEach figure is the median over the rounds of one measured stretch per round (after 1 s of "
                    + "warm-up), empty critical section; commands per acquisition is the `INFO commandstats` delta "
                    + "over the stretch (every command Redis ran, scripts' inner calls included) ÷ acquisitions. "
                    + "× Redisson divides by Redisson 4.7.0's median at the same thread count.\n");
        }
        if (m) {
            md.append("\n#### (m) mixed fleet, cohorts on and off: 2 threads each of relock-jedis, relock-lettuce, "
                    + "Redisson on one lock\n\n");
            md.append("| cohorts | rounds | Redisson's share, median [min–max] | Redisson wait p99, median [min–max] "
                    + "| Redisson worst wait, median [min–max] | relock-jedis share | relock-lettuce share |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (String mode : MODES) {
                List<double[]> l = fleet.getOrDefault(mode, List.of());
                md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s |%n", mode, l.size(),
                        spread(column(l, 0), "%.1f %%"), spread(column(l, 1), "%.0f ms"), spread(column(l, 2), "%.0f ms"),
                        spread(column(l, 3), "%.1f %%"), spread(column(l, 4), "%.1f %%")));
            }
            md.append("\nRounds alternate cohorts on and off in one JVM on one Redis; each run checks a counter "
                    + "written under the lock (a lost update or an overlap fails the run). The spread between "
                    + "rounds is wide on a shared machine: compare the medians and read the ranges.\n");
        }
        if (!failures.isEmpty()) {
            md.append("\nFailed runs of (k)/(m):\n\n");
            failures.forEach(f -> md.append("- ").append(f).append('\n'));
        }
    }

    /** @return the issue 37 target rows {what, measured, status} of the scenarios that ran */
    List<String[]> targets(boolean k, boolean m) {
        List<String[]> rows = new ArrayList<>();
        if (k) {
            for (int threads : THREADS) {
                double redisson = median(column(rates.get("redisson|" + threads), 0));
                for (String c : CohortProbe.CONTENDERS) {
                    if (c.endsWith("cohort on")) {
                        double x = median(column(rates.get(c + "|" + threads), 0)) / redisson;
                        rows.add(row("(k) " + threads + " threads, " + c + " ≥ " + (int) TARGET_VS_REDISSON
                                + "× Redisson 4.7.0", x, "%.1f×", x >= TARGET_VS_REDISSON));
                    }
                }
            }
        }
        if (m) {
            double on = median(column(fleet.getOrDefault("on", List.of()), 0));
            double off = median(column(fleet.getOrDefault("off", List.of()), 0));
            rows.add(row("(m) Redisson's share of grants, cohorts on ÷ off (medians) ≥ 1", on / off, "%.2f", on >= off));
            double onWait = median(column(fleet.getOrDefault("on", List.of()), 2));
            double offWait = median(column(fleet.getOrDefault("off", List.of()), 2));
            rows.add(row("(m) Redisson's worst wait, cohorts on ÷ off (medians) ≤ 1", onWait / offWait, "%.2f",
                    onWait <= offWait));
            boolean lost = failures.stream().anyMatch(f -> f.startsWith("(m)") && f.contains("mutual exclusion"));
            rows.add(new String[] {"(m) no lost update", lost ? "lost updates (see the failed runs)" : "none",
                    lost ? "**missed**" : "met"});
        }
        return rows;
    }

    static String[] row(String what, double v, String format, boolean met) {
        return Double.isNaN(v) || Double.isInfinite(v) ? new String[] {what, "n/a", "n/a"}
                : new String[] {what, String.format(Locale.ROOT, format, v), met ? "met" : "**missed**"};
    }

    static double[] column(List<double[]> l, int i) {
        return l == null ? new double[0] : l.stream().mapToDouble(a -> a[i]).toArray();
    }

    static String spread(double[] v, String format) {
        if (v.length == 0) {
            return "n/a";
        }
        double[] s = v.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, format, median(s)) + (s.length == 1 ? ""
                : " [" + String.format(Locale.ROOT, format, s[0]) + "–" + String.format(Locale.ROOT, format, s[s.length - 1]) + "]");
    }

    private static double median(double[] values) {
        return BenchmarkReport.median(values);
    }
}
