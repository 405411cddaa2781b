package io.github.relock.benchmarks;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;
import java.util.stream.Stream;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every scenario against every contender on ONE embedded Redis and prints a markdown table
 * with the ratios relock/Redisson and relock/floor, then checks the performance targets.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests &amp;&amp; java -jar benchmarks/target/benchmarks.jar
 * java -jar benchmarks/target/benchmarks.jar long            # careful run, ~50 min
 * java -jar benchmarks/target/benchmarks.jar --scenarios=a,c --rounds=3 # a subset, 3 interleaved rounds
 *                                                                    # (RESULTS.md left alone)
 * java -jar benchmarks/target/benchmarks.jar --pin           # Redis on a CPU of its own (see CpuPinning)
 * java -jar benchmarks/target/benchmarks.jar --scenarios=h,i,j # issue 15's scenarios only
 * java -jar benchmarks/target/benchmarks.jar --scenarios=k,m --rounds=6 # issue 37's: cohorts on/off
 * java -jar benchmarks/target/benchmarks.jar --scenarios=n --rounds=3 # issue 37's: 1 to 64 clients
 * java -Drelock.localHandoff=off -jar benchmarks/target/benchmarks.jar # relock's local hand-off setting
 * </pre>
 *
 * <p>Each JMH benchmark runs in forked JVMs that get the Redis port as a system property; scenario
 * (f) runs {@link HeldLocksProbe} in a JVM of its own, scenario (h) two {@link CrossJvmProbe} JVMs
 * side by side; scenario (i) runs (b) and (c) again on a 3-master {@link RedisCluster} started for
 * it. Scenarios (k) and (m) run in this JVM ({@link CohortScenarios}), and so does (n) ({@link ManyClientsScenarios}). The report goes to standard output and to
 * {@code benchmarks/target/benchmark-report.md}; a full run also rewrites the generated block of
 * {@code benchmarks/RESULTS.md} (unless {@code -Dresults.update=false}). Logs of every JMH run are
 * in {@code benchmarks/target/jmh-logs/}; every fork's hand-off histogram, as an HdrHistogram log, in
 * {@code benchmarks/target/bench-out/<time>/round-N/} (the report merges them before it takes percentiles).
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class BenchmarkReport {
    static final String COMMAND = "mvn -B -q -pl benchmarks -am package -DskipTests && java -jar benchmarks/target/benchmarks.jar";
    static final String BEGIN = "<!-- BEGIN GENERATED RESULTS: BenchmarkReport rewrites this block -->";
    static final String END = "<!-- END GENERATED RESULTS -->";
    static final long PROBE_WATCHDOG_MS = 3_000;

    /**
     * Issue 15's baseline for target (1): relock-jedis in (c), one client, one lock, acquisitions/s,
     * from the 2026-11-23 short run (RESULTS.md at b9aa892), by thread count.
     */
    static final Map<Integer, Double> PREVIOUS_ONE_LOCK_JEDIS = Map.of(4, 7_102.0, 16, 7_313.0);
    /** Where the previous figures of target (1) come from, as the report names it. */
    static final String PREVIOUS_ONE_LOCK_SOURCE = "2026-11-23 short run";
    /**
     * The previous cross-JVM hand-off p99 in µs, by contender, for target (5): scenario (h) with
     * local hand-off off ({@code --scenarios=h --local-handoff=off}), on the quiet 2-core machine of
     * the 2026-11-23 report, just before that report's run: what a hand-off between processes cost
     * before local hand-off existed (it never applies across processes).
     */
    static final Map<Contender, Double> PREVIOUS_CROSS_JVM_P99_MICROS =
            Map.of(Contender.RELOCK_JEDIS, 246.0, Contender.RELOCK_LETTUCE, 4_490.0);
    /** Threads in each of the two JVMs of scenario (h). */
    static final int CROSS_JVM_THREADS = 2;
    /** Masters of scenario (i)'s cluster. */
    static final int CLUSTER_MASTERS = 3;

    private static final List<Contender> ALL = List.of(Contender.RELOCK_JEDIS, Contender.RELOCK_LETTUCE,
            Contender.REDISSON, Contender.FLOOR);
    private static final List<Contender> WAITING = List.of(Contender.RELOCK_JEDIS, Contender.RELOCK_LETTUCE,
            Contender.REDISSON);
    private static final List<Contender> ASYNC = List.of(Contender.RELOCK_LETTUCE, Contender.REDISSON,
            Contender.RELOCK_JEDIS);
    private static final List<Contender> RELOCK = List.of(Contender.RELOCK_JEDIS, Contender.RELOCK_LETTUCE);

    /**
     * One line of the table: a scenario measured by one JMH benchmark (or by the probe, for f).
     *
     * @param method the benchmark method, or the {@code @Group} name of a group benchmark
     * @param handOff whether the forks leave a latency histogram ({@link HandOffRecorder}) to report
     * @param parts the methods of a group benchmark reported each on its own row (their JMH
     *     secondary results) instead of the group's total; empty for a plain benchmark
     * @param latency what the histogram holds, as the row names it
     * @param onCluster whether it runs on the cluster (scenario i) instead of the one Redis
     * @param brief whether it runs with the profile's {@linkplain Profile#brief() brief} iterations
     */
    record Scenario(String key, String label, Class<?> benchmark, String method, int threads, List<Contender> contenders,
                    String unit, boolean handOff, List<String> parts, String latency, boolean onCluster,
                    boolean brief) {
        /** A plain benchmark: one figure; its latency histogram, if any, holds hand-offs. */
        Scenario(String key, String label, Class<?> benchmark, String method, int threads, List<Contender> contenders,
                 String unit, boolean handOff) {
            this(key, label, benchmark, method, threads, contenders, unit, handOff, List.of(), "hand-off", false, false);
        }

        /**
         * @return what {@code --scenarios} selects it by: its key without the thread count (c4, c16: c;
         *     rw: rw), or the part before a dash (i-b4: i)
         */
        String group() {
            int dash = key.indexOf('-');
            return dash > 0 ? key.substring(0, dash) : key.replaceFirst("[0-9]+$", "");
        }

        /** @return the same scenario on the cluster: key {@code i-<key>}, label prefixed, brief */
        Scenario onTheCluster() {
            return new Scenario("i-" + key, "(i) " + CLUSTER_MASTERS + "-master cluster: " + label, benchmark, method,
                    threads, WAITING, unit, handOff, parts, latency, true, true);
        }
    }

    private static final Scenario B4 = new Scenario("b4", "(b) lock+unlock, 4 threads, own locks",
            UncontendedBenchmark.class, "lockUnlock", 4, ALL, "cycles/s", false);
    private static final Scenario B16 = new Scenario("b16", "(b) lock+unlock, 16 threads, own locks",
            UncontendedBenchmark.class, "lockUnlock", 16, ALL, "cycles/s", false);
    private static final Scenario C4 = new Scenario("c4", "(c) 4 threads, one lock", ContendedBenchmark.class,
            "oneLock", 4, WAITING, "acquisitions/s", true);
    private static final Scenario C16 = new Scenario("c16", "(c) 16 threads, one lock", ContendedBenchmark.class,
            "oneLock", 16, WAITING, "acquisitions/s", true);

    static final List<Scenario> SCENARIOS = List.of(
            new Scenario("a", "(a) lock+unlock, 1 thread", UncontendedBenchmark.class, "lockUnlock", 1, ALL,
                    "cycles/s", false),
            B4, B16, C4, C16,
            new Scenario("d4", "(d) fair lock, 4 threads, one lock", ContendedBenchmark.class, "fairOneLock", 4,
                    WAITING, "acquisitions/s", true),
            new Scenario("e", "(e) tryLock() on a held lock, 1 thread", UncontendedBenchmark.class, "tryLockHeld", 1,
                    ALL, "attempts/s", false),
            new Scenario("g", "(g) async, " + AsyncBenchmark.IN_FLIGHT + " lock/unlock pairs in flight",
                    AsyncBenchmark.class, "lockUnlockPair", 1, ASYNC, "pairs/s", false),
            new Scenario("rw", "(rw) read-write lock, " + ReadWriteBenchmark.READERS + " readers + "
                    + ReadWriteBenchmark.WRITERS + " writer, one lock", ReadWriteBenchmark.class, ReadWriteBenchmark.GROUP,
                    ReadWriteBenchmark.READERS + ReadWriteBenchmark.WRITERS, WAITING, "acquisitions/s", true,
                    List.of("reader", "writer"), "writer wait", false, false),
            // (h) is not a JMH benchmark: two CrossJvmProbe JVMs, see crossJvm().
            B4.onTheCluster(), B16.onTheCluster(), C4.onTheCluster(), C16.onTheCluster(),
            new Scenario("j", "(j) one lock: " + OutsideWaiterBenchmark.LOCAL + " threads of one client + "
                    + OutsideWaiterBenchmark.OUTSIDE + " thread of another", OutsideWaiterBenchmark.class,
                    OutsideWaiterBenchmark.GROUP, OutsideWaiterBenchmark.LOCAL + OutsideWaiterBenchmark.OUTSIDE, WAITING,
                    "acquisitions/s", true, List.of("local", "outside"), "outside wait", false, true));

    /** A measured figure; {@code value} is NaN when there is none, and {@code text} says why. */
    record Cell(double value, String text) {
        static Cell na(String why) {
            return new Cell(Double.NaN, why);
        }

        boolean ok() {
            return !Double.isNaN(value);
        }
    }

    private final Profile profile;
    private final Set<String> only;
    private final boolean pin;
    private String placement = "not pinned (the scheduler places Redis and the benchmark threads)";
    private final String machine = Machine.describe(); // before any pinning narrows the CPUs this JVM sees
    private final Path target;
    private final Path out;
    private final Path logs;
    private final Map<String, Map<Contender, Cell>> cells = new LinkedHashMap<>();
    private final Map<String, Map<Contender, List<Round>>> rounds = new HashMap<>();
    private final Map<String, Map<Contender, String>> failures = new HashMap<>();
    private final Map<Contender, String> probeDetails = new EnumMap<>(Contender.class);
    /** The merged latency histogram behind every latency cell, by cell key. */
    private final Map<String, Map<Contender, HandOffRecorder.Summary>> latencies = new HashMap<>();
    /** Scenario (h): every round's histograms and throughput, by contender. */
    private final Map<Contender, List<HandOffRecorder.Summary>> crossJvm = new EnumMap<>(Contender.class);
    private final Map<Contender, List<Double>> crossJvmRates = new EnumMap<>(Contender.class);
    /** Scenarios (k) and (m): cohort hand-off on and off (issue 37). */
    private final CohortScenarios cohorts = new CohortScenarios();
    private final ManyClientsScenarios manyClients = new ManyClientsScenarios();
    private RedisServer redis;
    private RedisCluster cluster;

    private BenchmarkReport(Profile profile, Set<String> only, boolean pin, Path target) {
        this.profile = profile;
        this.only = only;
        this.pin = pin;
        this.target = target;
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(LocalDateTime.now());
        this.out = target.resolve("bench-out").resolve(stamp);
        this.logs = target.resolve("jmh-logs");
    }

    /**
     * @param args {@code [short|long|quick] [--scenarios=a,b,c,d,e,f,g,h,i,j,k,m,n,rw] [--rounds=N] [--pin]
     *     [--local-handoff=off]}; also {@code -Dprofile=long}, {@code -Dscenarios=a,c}, {@code -Drounds=3},
     *     {@code -Dpin=true}, {@code -Dresults.update=false}, {@code -Drelock.localHandoff=off}
     * @throws Exception when Redis cannot start or the report cannot be written
     */
    public static void main(String[] args) throws Exception {
        String profileName = System.getProperty("profile", "short");
        String scenarios = System.getProperty("scenarios", "");
        String rounds = System.getProperty("rounds");
        boolean pin = Boolean.getBoolean("pin");
        for (String a : args) {
            if (a.equals("--no-pin")) {
                pin = false;
            } else if (a.equals("--pin")) {
                pin = true;
            } else if (a.startsWith("--rounds=")) {
                rounds = a.substring("--rounds=".length());
            } else if (a.startsWith("--scenarios=")) {
                scenarios = a.substring("--scenarios=".length());
            } else if (a.startsWith("--profile=")) {
                profileName = a.substring("--profile=".length());
            } else if (a.startsWith("--local-handoff=")) {
                System.setProperty(Contender.LOCAL_HANDOFF, a.substring("--local-handoff=".length()));
            } else if (!a.isBlank()) {
                profileName = a;
            }
        }
        Set<String> only = new LinkedHashSet<>();
        for (String s : scenarios.split(",")) {
            if (!s.isBlank()) {
                only.add(s.trim().toLowerCase(Locale.ROOT));
            }
        }
        if (!scenarioNames().containsAll(only)) {
            throw new IllegalArgumentException("--scenarios takes a comma-separated list of " + scenarioNames()
                    + "; was '" + scenarios + "'");
        }
        Profile profile = Profile.named(profileName);
        if (rounds != null) {
            profile = profile.withRounds(Integer.parseInt(rounds.trim()));
        }
        Contender.relockOptions(Duration.ofSeconds(30)); // a bad -Drelock.localHandoff fails here, not in every fork
        new BenchmarkReport(profile, only, pin, targetDir()).run();
        System.exit(0); // client libraries may leave non-daemon threads in this JVM
    }

    private void run() throws Exception {
        Files.createDirectories(out);
        Files.createDirectories(logs);
        String loadBefore = Machine.loadAverage();
        long started = System.nanoTime();
        redis = RedisServer.startEmbedded();
        Runtime.getRuntime().addShutdownHook(new Thread(redis::stop, "stop-redis"));
        if (pin) {
            placement = CpuPinning.apply();
        }
        System.out.println("relock benchmarks, " + profile.describe());
        System.out.println("embedded redis-server 7.0.15 on 127.0.0.1:" + redis.port() + ", " + placement
                + "; relock local hand-off: " + Contender.localHandOff() + "; JMH logs in " + logs);
        try {
            if (selected("i")) {
                cluster = RedisCluster.start(CLUSTER_MASTERS, 0, 2000);
                System.out.println("scenario (i): " + CLUSTER_MASTERS + "-master cluster (no replicas) on "
                        + cluster.uris() + (only.contains("i") ? "; (i) brings (b) and (c) along, for its "
                        + "cluster ÷ standalone ratio" : ""));
            }
            for (int round = 1; round <= profile.rounds(); round++) {
                for (Scenario s : SCENARIOS) {
                    if (selected(s.group())) {
                        for (Contender c : s.contenders()) {
                            measure(s, c, round);
                        }
                    }
                }
                if (selected("h")) {
                    for (Contender c : WAITING) {
                        crossJvm(c, round);
                    }
                }
                long measureSeconds = (long) profile.measurementIterations() * profile.measurementMillis() / 1000;
                if (selected("k")) {
                    flushRedis();
                    cohorts.cohortRound(redis, (int) Math.max(1, measureSeconds), round);
                }
                if (selected("m")) {
                    flushRedis();
                    cohorts.fleetRound(redis, (int) Math.max(2, 2 * measureSeconds), round);
                }
                if (selected("n")) {
                    flushRedis();
                    manyClients.round(redis, (int) Math.max(1, measureSeconds), round);
                }
            }
            for (Scenario s : SCENARIOS) {
                if (selected(s.group())) {
                    for (Contender c : s.contenders()) {
                        summarise(s, c);
                    }
                }
            }
            if (selected("h")) {
                WAITING.forEach(this::summariseCrossJvm);
            }
            if (selected("f")) {
                for (Contender c : WAITING) {
                    probe(c);
                }
            }
        } finally {
            try {
                if (cluster != null) {
                    cluster.close();
                }
            } finally {
                redis.stop();
            }
        }
        double minutes = (System.nanoTime() - started) / 60e9;
        String report = render(loadBefore, Machine.loadAverage(), minutes);
        System.out.println();
        System.out.println(report);
        Path file = target.resolve("benchmark-report.md");
        Files.writeString(file, report, StandardCharsets.UTF_8);
        System.out.println("written to " + file);
        updateResults(report);
    }

    /**
     * @param group a scenario's {@link Scenario#group()}, or {@code f} or {@code h}
     * @return whether this run measures it: every scenario when none was named; (i) brings (b) and
     *     (c) along, whose figures its cluster ÷ standalone ratio divides by
     */
    private boolean selected(String group) {
        return only.isEmpty() || only.contains(group)
                || only.contains("i") && (group.equals("b") || group.equals("c"));
    }

    /** @return what {@code --scenarios} accepts */
    static Set<String> scenarioNames() {
        Set<String> names = new LinkedHashSet<>();
        SCENARIOS.forEach(s -> names.add(s.group()));
        names.add("f");
        names.add("h");
        names.add("k");
        names.add("m");
        names.add("n");
        return names;
    }

    // ---------------------------------------------------------------- JMH scenarios

    /**
     * One round of one (scenario, contender) pair.
     *
     * @param iterations the score of every measured iteration (all forks)
     * @param parts for a group benchmark, each reported method's score in every measured iteration
     * @param handOff hand-off latencies over all measured iterations (the forks' histograms merged), or null
     */
    record Round(double[] iterations, Map<String, double[]> parts, HandOffRecorder.Summary handOff) {
    }

    private void measure(Scenario s, Contender c, int round) {
        String label = s.label() + " — " + c.id() + " [round " + round + "/" + profile.rounds() + "]";
        flushRedis();
        Path log = logs.resolve(s.key() + "-" + c.id() + "-round" + round + ".log");
        Profile p = s.brief() ? profile.brief() : profile;
        List<String> jvmArgs = new ArrayList<>(List.of("-Xms1g", "-Xmx1g", "-D" + BenchEnv.HOST + "=" + redis.host(),
                "-D" + BenchEnv.PORT + "=" + redis.port(), "-D" + BenchEnv.OUT + "=" + out, localHandOffArg()));
        if (s.onCluster()) {
            jvmArgs.add("-D" + BenchEnv.CLUSTER + "=" + cluster.uris().stream().map(u -> u.getHost() + ":" + u.getPort())
                    .collect(Collectors.joining(",")));
        }
        Options options = new OptionsBuilder()
                .include("^" + Pattern.quote(s.benchmark().getName() + "." + s.method()) + "$")
                .param("contender", c.id())
                .threads(s.threads())
                .forks(p.forks())
                .warmupIterations(p.warmupIterations())
                .warmupTime(TimeValue.milliseconds(p.warmupMillis()))
                .measurementIterations(p.measurementIterations())
                .measurementTime(TimeValue.milliseconds(p.measurementMillis()))
                .jvmArgsAppend(jvmArgs.toArray(String[]::new))
                .shouldFailOnError(true)
                .output(log.toString())
                .build();
        try {
            Collection<RunResult> results = new Runner(options).run();
            RunResult result = results.iterator().next();
            double[] iterations = result.getBenchmarkResults().stream()
                    .flatMap(b -> b.getIterationResults().stream())
                    .mapToDouble(i -> i.getPrimaryResult().getScore())
                    .toArray();
            Map<String, double[]> parts = new LinkedHashMap<>();
            for (String part : s.parts()) {
                parts.put(part, result.getBenchmarkResults().stream()
                        .flatMap(b -> b.getIterationResults().stream())
                        .mapToDouble(i -> {
                            Result<?> r = i.getSecondaryResults().get(part);
                            if (r == null) {
                                throw new IllegalStateException("JMH reported no '" + part + "' result, only "
                                        + i.getSecondaryResults().keySet());
                            }
                            return r.getScore();
                        })
                        .toArray());
            }
            HandOffRecorder.Summary h = s.handOff() ? handOffs(s, c, round) : null;
            rounds.computeIfAbsent(s.key(), k -> new EnumMap<>(Contender.class))
                    .computeIfAbsent(c, k -> new ArrayList<>()).add(new Round(iterations, parts, h));
            String figure = parts.isEmpty() ? "median " + perSecond(median(iterations)) + " " + s.unit()
                    : parts.entrySet().stream().map(e -> e.getKey() + " median " + perSecond(median(e.getValue())))
                            .collect(Collectors.joining(", ")) + " " + s.unit();
            System.out.println("  " + label + ": " + figure
                    + (h == null || h.handOffs() == 0 ? "" : ", " + s.latency() + " p50 / p99 " + millis(h.p50Micros())
                            + " / " + millis(h.p99Micros())));
        } catch (RunnerException | IOException | RuntimeException e) {
            failures.computeIfAbsent(s.key(), k -> new EnumMap<>(Contender.class)).put(c, log.getFileName().toString());
            System.out.println("  " + label + ": FAILED, see " + log + ": " + e);
        }
    }

    /** Turns the rounds of every pair into the table's cells: the median iteration, and the range. */
    private void summarise(Scenario s, Contender c) {
        List<Round> rs = rounds.getOrDefault(s.key(), Map.of()).getOrDefault(c, List.of());
        String failed = failures.getOrDefault(s.key(), Map.of()).get(c);
        if (rs.isEmpty()) {
            for (String key : figureKeys(s)) {
                put(key, c, Cell.na("failed (see target/jmh-logs/" + failed + ")"));
            }
            if (s.handOff()) {
                put(s.key() + "-handoff", c, Cell.na("failed"));
            }
            return;
        }
        if (s.parts().isEmpty()) {
            put(s.key(), c, throughputCell(s, rs.stream().flatMapToDouble(r -> Arrays.stream(r.iterations())), failed));
        } else {
            for (String part : s.parts()) {
                put(s.key() + "-" + part, c, throughputCell(s,
                        rs.stream().flatMapToDouble(r -> Arrays.stream(r.parts().get(part))), failed));
            }
        }
        if (s.handOff()) {
            List<HandOffRecorder.Summary> parts = rs.stream().map(Round::handOff).filter(Objects::nonNull).toList();
            HandOffRecorder.Summary h = HandOffRecorder.Summary.merge(parts);
            put(s.key() + "-handoff", c, s.latency().equals("hand-off") ? handOffCell(h) : waitCell(h, s.latency()));
            latencies.computeIfAbsent(s.key() + "-handoff", k -> new EnumMap<>(Contender.class)).put(c, h);
        }
        if (s.onCluster() && s.parts().isEmpty()) {
            String standalone = s.key().substring("i-".length());
            Cell here = cell(s.key(), c);
            Cell there = cell(standalone, c);
            put(s.key() + "-scaling", c, here.ok() && there.ok()
                    ? new Cell(here.value() / there.value(), String.format(Locale.ROOT, "%.2f× (%s ÷ %s %s)",
                            here.value() / there.value(), perSecond(here.value()), perSecond(there.value()), s.unit()))
                    : Cell.na("n/a: needs scenario " + standalone.replaceFirst("[0-9]+$", "") + " in the same run"));
        }
    }

    /** @return the keys of a scenario's throughput cells: its own, or one per reported group method */
    private static List<String> figureKeys(Scenario s) {
        return s.parts().isEmpty() ? List.of(s.key()) : s.parts().stream().map(p -> s.key() + "-" + p).toList();
    }

    /** A throughput figure: the median iteration, and the slowest and fastest in brackets. */
    private static Cell throughputCell(Scenario s, DoubleStream iterations, String failed) {
        double[] all = iterations.sorted().toArray();
        double median = median(all);
        StringBuilder text = new StringBuilder(perSecond(median) + " " + s.unit());
        if (s.key().equals("a")) {
            text.append(String.format(Locale.ROOT, " (%.1f µs per cycle)", 1e6 / median));
        }
        text.append(" [").append(perSecond(all[0])).append("–").append(perSecond(all[all.length - 1])).append(']');
        if (failed != null) {
            text.append(" (a round failed: ").append(failed).append(')');
        }
        return new Cell(median, text.toString());
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** The hand-off row's figure: p50 / p99 of the merged histogram, then p99.9, max and the counts. */
    static Cell handOffCell(HandOffRecorder.Summary h) {
        if (h.handOffs() == 0) {
            return Cell.na("no hand-off recorded");
        }
        return new Cell(h.p99Micros(), millis(h.p50Micros()) + " / " + millis(h.p99Micros())
                + " (p99.9 " + millis(h.p999Micros()) + ", max " + millis(h.maxMicros())
                + String.format(Locale.ROOT, "; %,d hand-offs, %.0f%% of acquisitions)", h.handOffs(),
                100.0 * h.handOffs() / Math.max(1, h.acquisitions())));
    }

    /**
     * A latency row that is not a hand-off (the writer's wait in (rw)): every acquisition is a sample.
     *
     * @param h the merged histogram
     * @param what the latency's name, e.g. {@code writer wait}
     */
    static Cell waitCell(HandOffRecorder.Summary h, String what) {
        if (h.handOffs() == 0) {
            return Cell.na("no " + what + " recorded");
        }
        return new Cell(h.p99Micros(), millis(h.p50Micros()) + " / " + millis(h.p99Micros())
                + " (p99.9 " + millis(h.p999Micros()) + ", max " + millis(h.maxMicros())
                + String.format(Locale.ROOT, "; %,d samples)", h.handOffs()));
    }

    /**
     * Reads the hand-off logs the forks of one round left in {@link #out} and merges them; the logs
     * move to {@code round-N/} beside them, for HdrHistogram's tools.
     */
    private HandOffRecorder.Summary handOffs(Scenario s, Contender c, int round) throws IOException {
        String prefix = "handoff-" + s.method() + "-" + c.id() + "-t" + s.threads() + "-";
        Path kept = Files.createDirectories(out.resolve("round-" + round));
        List<HandOffRecorder.Summary> parts = new ArrayList<>();
        try (Stream<Path> files = Files.list(out)) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList()) {
                parts.add(HandOffRecorder.Summary.readFrom(f));
                Files.move(f, kept.resolve(f.getFileName()));
            }
        }
        return HandOffRecorder.Summary.merge(parts);
    }

    // ---------------------------------------------------------------- scenario (f)

    private void probe(Contender c) {
        flushRedis();
        Path log = logs.resolve("f-" + c.id() + ".log");
        String label = "(f) " + profile.heldLocks() + " held watchdog locks — " + c.id();
        try {
            Map<String, String> kv = ProgramRun.start(List.of("-Xms1g", "-Xmx1g", "-XX:+UseSerialGC", localHandOffArg()),
                    HeldLocksProbe.class, List.of(redis.host(), Integer.toString(redis.port()), c.id(),
                            Integer.toString(profile.heldLocks()), Long.toString(PROBE_WATCHDOG_MS),
                            Integer.toString(profile.renewalPeriods())), log)
                    .result(Duration.ofMinutes(5));
            double sentPerPeriod = Double.parseDouble(kv.get("sentPerPeriod"));
            double ranPerPeriod = Double.parseDouble(kv.get("ranPerPeriod"));
            double per100 = sentPerPeriod / (profile.heldLocks() / 100.0);
            double heap = Double.parseDouble(kv.get("heapPerLockBytes"));
            put("f-cmds", c, new Cell(per100, String.format(Locale.ROOT,
                    "%.2f sent per 100 locks (%,.0f sent, %,.0f run incl. inside scripts, per %d ms period)",
                    per100, sentPerPeriod, ranPerPeriod, Long.parseLong(kv.get("periodMs")))));
            put("f-heap", c, new Cell(heap, String.format(Locale.ROOT, "%,.0f bytes", heap)));
            probeDetails.put(c, "sent over " + kv.get("renewalRounds") + " whole renewal rounds in "
                    + kv.get("windowPeriods") + " periods: " + kv.get("sent") + "; INFO commandstats delta over "
                    + kv.get("commandstatsPeriods") + " periods: " + kv.get("commandstats") + "; " + kv.get("locks")
                    + " locks taken in " + kv.get("acquireSeconds") + " s; " + kv.get("lost")
                    + " found expired at unlock");
            System.out.println("  " + label + ": " + cells.get("f-cmds").get(c).text() + "; "
                    + cells.get("f-heap").get(c).text() + " per held lock");
        } catch (IOException | RuntimeException e) {
            put("f-cmds", c, Cell.na("failed (see target/jmh-logs/" + log.getFileName() + ")"));
            put("f-heap", c, Cell.na("failed"));
            System.out.println("  " + label + ": FAILED, see " + log + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return the JVM option that passes relock's local hand-off setting on */
    private static String localHandOffArg() {
        return "-D" + Contender.LOCAL_HANDOFF + "=" + Contender.localHandOff();
    }

    // ---------------------------------------------------------------- scenario (h)

    /**
     * One round of scenario (h) for one contender: two {@link CrossJvmProbe} JVMs, {@value
     * #CROSS_JVM_THREADS} threads each, on one lock, started together; brief warm-up, the profile's
     * measured time. Their histograms of cross-JVM hand-offs are kept in {@code round-N/}.
     */
    private void crossJvm(Contender c, int round) {
        flushRedis();
        String label = "(h) 2 JVMs × " + CROSS_JVM_THREADS + " threads, one lock — " + c.id() + " [round " + round + "/"
                + profile.rounds() + "]";
        Profile p = profile.brief();
        long warmupMs = (long) p.warmupIterations() * p.warmupMillis();
        long measureMs = (long) profile.measurementIterations() * profile.measurementMillis();
        List<ProgramRun> sides = new ArrayList<>();
        List<Path> sideLogs = new ArrayList<>();
        try {
            Path kept = Files.createDirectories(out.resolve("round-" + round));
            Path shared = out.resolve("crossjvm-" + c.id() + "-round" + round + ".shared");
            CrossJvmProbe.createSharedFile(shared);
            List<Path> histograms = new ArrayList<>();
            for (int side = 0; side < 2; side++) {
                Path log = logs.resolve("h-" + c.id() + "-round" + round + "-jvm" + side + ".log");
                Path histogram = kept.resolve("handoff-crossJvm-" + c.id() + "-jvm" + side + ".hlog");
                sideLogs.add(log);
                histograms.add(histogram);
                sides.add(ProgramRun.start(List.of("-Xms1g", "-Xmx1g", localHandOffArg()), CrossJvmProbe.class,
                        List.of(redis.host(), Integer.toString(redis.port()), c.id(), Integer.toString(CROSS_JVM_THREADS),
                                Long.toString(warmupMs), Long.toString(measureMs), shared.toString(),
                                Integer.toString(side), histogram.toString()), log));
            }
            long acquisitions = 0;
            double seconds = measureMs / 1e3;
            for (ProgramRun side : sides) {
                Map<String, String> kv = side.result(Duration.ofMillis(warmupMs + measureMs).plusMinutes(3));
                acquisitions += Long.parseLong(kv.get("acquisitions"));
            }
            List<HandOffRecorder.Summary> parts = new ArrayList<>();
            for (Path h : histograms) {
                parts.add(HandOffRecorder.Summary.readFrom(h));
            }
            Files.deleteIfExists(shared);
            HandOffRecorder.Summary merged = HandOffRecorder.Summary.merge(parts);
            crossJvm.computeIfAbsent(c, k -> new ArrayList<>()).add(merged);
            crossJvmRates.computeIfAbsent(c, k -> new ArrayList<>()).add(acquisitions / seconds);
            System.out.println("  " + label + ": " + perSecond(acquisitions / seconds) + " acquisitions/s"
                    + (merged.handOffs() == 0 ? ", no cross-JVM hand-off" : ", cross-JVM hand-off p50 / p99 "
                            + millis(merged.p50Micros()) + " / " + millis(merged.p99Micros())));
        } catch (IOException | RuntimeException e) {
            sides.forEach(ProgramRun::destroy);
            failures.computeIfAbsent("h", k -> new EnumMap<>(Contender.class)).put(c,
                    sideLogs.stream().map(l -> l.getFileName().toString()).collect(Collectors.joining(", ")));
            System.out.println("  " + label + ": FAILED, see " + sideLogs + ": " + e);
        } catch (InterruptedException e) {
            sides.forEach(ProgramRun::destroy);
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void summariseCrossJvm(Contender c) {
        List<HandOffRecorder.Summary> rs = crossJvm.getOrDefault(c, List.of());
        if (rs.isEmpty()) {
            String failed = failures.getOrDefault("h", Map.of()).get(c);
            put("h", c, Cell.na("failed (see target/jmh-logs/" + failed + ")"));
            put("h-handoff", c, Cell.na("failed"));
            return;
        }
        double[] rates = crossJvmRates.get(c).stream().mapToDouble(Double::doubleValue).toArray();
        put("h", c, new Cell(median(rates), perSecond(median(rates)) + " acquisitions/s"
                + (rates.length > 1 ? " (median of " + rates.length + " rounds)" : "")));
        HandOffRecorder.Summary h = HandOffRecorder.Summary.merge(rs);
        put("h-handoff", c, handOffCell(h));
        latencies.computeIfAbsent("h-handoff", k -> new EnumMap<>(Contender.class)).put(c, h);
    }

    // ---------------------------------------------------------------- report

    private void put(String key, Contender c, Cell cell) {
        cells.computeIfAbsent(key, k -> new EnumMap<>(Contender.class)).put(c, cell);
    }

    private Cell cell(String key, Contender c) {
        Map<Contender, Cell> m = cells.get(key);
        return m == null || !m.containsKey(c) ? Cell.na("not run") : m.get(c);
    }

    private String render(String loadBefore, String loadAfter, double minutes) {
        StringBuilder md = new StringBuilder();
        md.append("### Results (").append(profile.name()).append(" profile)\n\n");
        md.append("- Date: ").append(DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
                LocalDateTime.now(ZoneOffset.UTC).withNano(0))).append(" UTC; run took ")
                .append(String.format(Locale.ROOT, "%.1f", minutes)).append(" min\n");
        md.append("- Command: `").append(COMMAND).append(profile.name().equals("short") ? "" : " " + profile.name())
                .append(only.isEmpty() ? "" : " --scenarios=" + String.join(",", only))
                .append(profile.rounds() == Profile.named(profile.name()).rounds() ? "" : " --rounds=" + profile.rounds())
                .append(pin ? " --pin" : "")
                .append("`\n");
        md.append("- relock source: ").append(Machine.sourceRevision(target.getParent().getParent()))
                .append(" (the tree `-am` built the jar from)\n");
        md.append(machine);
        md.append("- Load average (1 min) before / after: ").append(loadBefore).append(" / ").append(loadAfter)
                .append(" (other builds may share the machine)\n");
        md.append("- Redis: embedded redis-server 7.0.15 (org.signal:embedded-redis) on loopback, one instance for "
                + "every contender; contenders run one after another, each in its own JVM; CPU placement: "
                + placement + "\n");
        if (cluster != null) {
            md.append("- Cluster of (i): ").append(CLUSTER_MASTERS).append(" masters, no replicas (the one Redis has none "
                    + "either), embedded redis-server 7.0.15 on loopback, slots spread evenly; relock on a Jedis "
                    + "`RedisClusterClient` (pool of ").append(Contender.JEDIS_POOL_SIZE).append(" per node) and a Lettuce "
                    + "`RedisClusterClient`, Redisson `useClusterServers()` with its defaults\n");
        }
        md.append("- relock options: watchdog 30 s (3 s in (f)), local hand-off `-D").append(Contender.LOCAL_HANDOFF)
                .append("=").append(Contender.localHandOff()).append("`\n");
        md.append("- Profile: ").append(profile.describe());
        if (SCENARIOS.stream().anyMatch(s -> s.brief() && selected(s.group())) || selected("h")) {
            Profile b = profile.brief();
            md.append(String.format(Locale.ROOT, "; (i), (j) brief: %d fork(s) × (%d × %d ms warm-up + %d × %d ms "
                    + "measured); (h): one pair of JVMs per round, %d ms warm-up + %d ms measured", b.forks(),
                    b.warmupIterations(), b.warmupMillis(), b.measurementIterations(), b.measurementMillis(),
                    b.warmupIterations() * b.warmupMillis(), profile.measurementIterations() * profile.measurementMillis()));
        }
        md.append("\n\n");

        md.append("| Scenario | Contender | Figure | relock / Redisson | relock / floor |\n");
        md.append("|---|---|---|---|---|\n");
        boolean crossJvmShown = false;
        for (Scenario s : SCENARIOS) {
            if (!crossJvmShown && s.brief()) { // (h) goes before (i) and (j)
                crossJvmRows(md);
                crossJvmShown = true;
            }
            if (!selected(s.group())) {
                continue;
            }
            if (s.parts().isEmpty()) {
                rows(md, s.label() + ", " + s.unit(), s.key(), s.contenders(), s.contenders().contains(Contender.FLOOR));
            } else {
                for (String part : s.parts()) {
                    rows(md, s.label() + ", " + part + " " + s.unit(), s.key() + "-" + part, s.contenders(),
                            s.contenders().contains(Contender.FLOOR));
                }
            }
            if (s.handOff()) {
                rows(md, s.label() + ", " + s.latency() + " p50 / p99 (lower is better)", s.key() + "-handoff",
                        s.contenders(), false);
            }
            if (s.onCluster() && s.parts().isEmpty()) {
                plainRows(md, s.label() + ", cluster ÷ standalone " + s.unit(), s.key() + "-scaling", s.contenders());
            }
        }
        if (selected("f")) {
            rows(md, "(f) " + String.format(Locale.ROOT, "%,d", profile.heldLocks())
                    + " held watchdog locks: renewal commands per period (lower is better)", "f-cmds", WAITING, false);
            rows(md, "(f) client heap per held lock (lower is better)", "f-heap", WAITING, false);
        }
        md.append("\nRatios divide relock's figure by the other contender's in the same row: above 1 is better "
                + "for relock in throughput rows (/s), below 1 in latency, command and heap rows. A throughput figure "
                + "is the median of the measured " + profile.measurementMillis() + "-ms iterations (after warm-up; "
                + "all forks and rounds), the slowest and fastest iteration in brackets: on a small shared VM a "
                + "few iterations are disturbed by other processes or by the scheduler placing Redis and the "
                + "client on different CPUs, and the median keeps them from deciding the figure. Hand-off "
                + "percentiles cover all measured iterations: every fork records an HdrHistogram (3 significant "
                + "digits), and the percentiles are read from the histograms of all forks and rounds merged "
                + "(logs in target/bench-out/).\n");
        if (selected("h")) {
            md.append("\n(h) runs two JVMs (each its own client) with " + CROSS_JVM_THREADS + " threads each looping "
                    + "lock()+unlock() on one lock. A cross-JVM hand-off is the time from the start of a holder's "
                    + "unlock() in one JVM to the return of lock() in the other JVM when that JVM holds it next "
                    + "(both read the same system monotonic clock; the last release is shared through a memory-mapped "
                    + "file); its share of all acquisitions is shown. Acquisitions that follow a release in the same "
                    + "JVM are not hand-offs here.\n");
        }
        if (selected("i")) {
            md.append("\n(i) repeats (b) and (c) on the " + CLUSTER_MASTERS + "-master cluster: own locks spread over "
                    + "the masters by hash slot, one lock lives on one master. Cluster ÷ standalone divides each "
                    + "contender's (i) figure by its (b) or (c) figure of the same run; with Redis and the clients on "
                    + "one 2-core machine the masters share those cores, so the ratio shows the client's scaling, not "
                    + "what separate hosts would give.\n");
        }
        if (selected("j")) {
            md.append("\n(j) local and outside acquisitions/s are JMH's per-method throughput of the one group. Outside "
                    + "wait is the time from the outside client's call of lock() to its return, for every outside "
                    + "acquisition in the measured iterations (p99.9 and max in brackets): how long a waiter of another "
                    + "client can be kept out while one client's " + OutsideWaiterBenchmark.LOCAL
                    + " threads keep the lock busy.\n");
        }
        if (selected("rw")) {
            md.append("\n(rw) reader and writer acquisitions/s are JMH's per-method throughput of the one group "
                    + "(all four readers together; the writer). Writer wait is not a hand-off: it is the time from just "
                    + "before the writer calls writeLock().lock() to its return, for every write acquisition in the "
                    + "measured iterations, so it includes the writer's own round trip(s) as well as any wait for "
                    + "the readers to drain.\n");
        }
        if (!probeDetails.isEmpty()) {
            md.append("\n(f) details — commands clients sent (MONITOR, top level, whole renewal rounds) and the "
                    + "INFO commandstats delta (every command Redis ran, scripts' inner calls included):\n\n");
            probeDetails.forEach((c, d) -> md.append("- ").append(c.id()).append(": ").append(d).append('\n'));
        }
        cohorts.render(md, selected("k"), selected("m"));
        if (selected("n")) {
            manyClients.render(md);
        }
        if (selected("k") || selected("m") || selected("n")) {
            md.append("\n#### Targets of issue 37 (cohort hand-off, directed wake-ups; ratios from one run)\n\n");
            List<String[]> rows = new ArrayList<>(cohorts.targets(selected("k"), selected("m")));
            if (selected("n")) {
                rows.addAll(manyClients.targets());
            }
            table(md, rows);
        }
        md.append("\n#### Targets of issue 15 (2-core loopback machine, ratios from one run)\n\n");
        table(md, issue15Targets());
        List<String[]> earlier = targets();
        if (!earlier.isEmpty()) {
            md.append("\n#### Earlier targets\n\n");
            table(md, earlier);
        }
        return md.toString();
    }

    private void crossJvmRows(StringBuilder md) {
        if (selected("h")) {
            String h = "(h) 2 JVMs × " + CROSS_JVM_THREADS + " threads, one lock";
            rows(md, h + ", acquisitions/s (both JVMs)", "h", WAITING, false);
            rows(md, h + ", cross-JVM hand-off p50 / p99 (lower is better)", "h-handoff", WAITING, false);
        }
    }

    private static void table(StringBuilder md, List<String[]> rows) {
        md.append("| Target | Measured | Status |\n|---|---|---|\n");
        for (String[] t : rows) {
            md.append("| ").append(t[0]).append(" | ").append(t[1]).append(" | ").append(t[2]).append(" |\n");
        }
    }

    /** Rows without ratio columns (the figure is itself a ratio). */
    private void plainRows(StringBuilder md, String label, String key, List<Contender> contenders) {
        for (Contender c : contenders) {
            md.append("| ").append(label).append(" | ").append(c.id()).append(" | ").append(cell(key, c).text())
                    .append(" |  |  |\n");
        }
    }

    private void rows(StringBuilder md, String label, String key, List<Contender> contenders, boolean floor) {
        Cell redisson = cell(key, Contender.REDISSON);
        Cell floorCell = cell(key, Contender.FLOOR);
        for (Contender c : contenders) {
            Cell x = cell(key, c);
            String vsRedisson = c.isRelock() ? ratio(x, redisson) : "";
            String vsFloor = c.isRelock() && floor ? ratio(x, floorCell) : "";
            md.append("| ").append(label).append(" | ").append(c.id()).append(" | ").append(x.text()).append(" | ")
                    .append(vsRedisson).append(" | ").append(vsFloor).append(" |\n");
        }
    }

    private List<String[]> targets() {
        List<String[]> t = new ArrayList<>();
        Cell floorA = cell("a", Contender.FLOOR);
        Cell jedisA = cell("a", Contender.RELOCK_JEDIS);
        if (selected("a")) {
            double timeRatio = floorA.value() / jedisA.value();
            t.add(check("(a) relock-jedis time per cycle ≤ 1.25 × floor's", timeRatio, "×", shown(timeRatio) <= 1.25));
            t.add(atLeast("(a) relock-jedis throughput ≥ 2.5 × Redisson's", "a", Contender.RELOCK_JEDIS, 2.5));
            t.add(atLeast("(a) relock-lettuce throughput ≥ 1.0 × Redisson's", "a", Contender.RELOCK_LETTUCE, 1.0));
        }
        if (selected("c")) {
            for (Contender c : RELOCK) {
                t.add(atLeast("(c) " + c.id() + ", 4 threads on one lock: acquisitions/s ≥ 2 × Redisson's", "c4", c, 2.0));
            }
            for (String k : List.of("c4", "c16")) {
                for (Contender c : List.of(Contender.RELOCK_JEDIS, Contender.RELOCK_LETTUCE)) {
                    double p99 = cell(k + "-handoff", c).value();
                    t.add(check("(c) " + c.id() + ", " + k.substring(1) + " threads on one lock: p99 hand-off ≤ 5 ms",
                            p99 / 1000, " ms", shown(p99 / 1000) <= 5));
                }
            }
        }
        if (selected("d")) {
            for (Contender c : List.of(Contender.RELOCK_JEDIS, Contender.RELOCK_LETTUCE)) {
                t.add(atLeast("(d) " + c.id() + ", fair lock, 4 threads: ≥ 2 × Redisson's", "d4", c, 2.0));
            }
        }
        return t;
    }

    /**
     * Issue 15's targets, each computed from this run's figures (a row only for what ran):
     * (1) one lock, one client, relock-jedis ≥ 2× its previous figure, ≥ 8× Redisson, relock-lettuce
     * ≥ 5× Redisson; (2) fair lock ≥ 4× Redisson; (3) relock-lettuce ≥ 0.8× relock-jedis; (4) renewal
     * commands and heap per held lock; (5) cross-JVM hand-off p99 no worse than before; (6) the outside
     * waiter's wait, reported.
     */
    private List<String[]> issue15Targets() {
        List<String[]> t = new ArrayList<>();
        if (selected("c")) {
            for (int threads : List.of(4, 16)) {
                String key = "c" + threads;
                String what = "(1) " + threads + " threads on one lock, one client: ";
                double previous = PREVIOUS_ONE_LOCK_JEDIS.get(threads);
                Cell jedis = cell(key, Contender.RELOCK_JEDIS);
                double r = jedis.value() / previous;
                String[] row = check(what + "relock-jedis ≥ 2 × its previous " + perSecond(previous) + "/s ("
                        + PREVIOUS_ONE_LOCK_SOURCE + ")", r, "×", shown(r) >= 2);
                if (jedis.ok()) {
                    row[1] = perSecond(jedis.value()) + "/s = " + row[1];
                }
                t.add(row);
                t.add(atLeast(what + "relock-jedis ≥ 8 × Redisson's", key, Contender.RELOCK_JEDIS, 8));
                t.add(atLeast(what + "relock-lettuce ≥ 5 × Redisson's", key, Contender.RELOCK_LETTUCE, 5));
            }
        }
        if (selected("d")) {
            for (Contender c : RELOCK) {
                t.add(atLeast("(2) fair lock, 4 threads: " + c.id() + " ≥ 4 × Redisson's", "d4", c, 4));
            }
        }
        for (String key : List.of("a", "b4", "b16", "c4", "c16", "d4")) {
            if (selected(key.replaceFirst("[0-9]+$", ""))) {
                double r = cell(key, Contender.RELOCK_LETTUCE).value() / cell(key, Contender.RELOCK_JEDIS).value();
                t.add(check("(3) (" + key + ") relock-lettuce ≥ 0.8 × relock-jedis", r, "×", shown(r) >= 0.8));
            }
        }
        if (selected("f")) {
            for (Contender c : RELOCK) {
                double v = cell("f-cmds", c).value();
                t.add(check("(4) " + c.id() + ": ≤ 0.25 renewal commands per 100 held locks per period", v, "",
                        shown(v) <= 0.25));
                double h = cell("f-heap", c).value();
                t.add(check("(4) " + c.id() + ": ≤ 384 B client heap per held lock", h, " bytes", h <= 384));
            }
        }
        if (selected("h")) {
            for (Contender c : RELOCK) {
                t.add(crossJvmTarget(c));
            }
        }
        if (selected("j")) {
            for (Contender c : RELOCK) {
                HandOffRecorder.Summary w = latencies.getOrDefault("j-handoff", Map.of()).get(c);
                HandOffRecorder.Summary r = latencies.getOrDefault("j-handoff", Map.of()).get(Contender.REDISSON);
                String what = "(6) " + c.id() + ", " + OutsideWaiterBenchmark.LOCAL
                        + " local threads on one lock: the outside waiter's max wait, reported";
                if (w == null || w.handOffs() == 0) {
                    t.add(new String[] {what, "n/a", "n/a"});
                    continue;
                }
                t.add(new String[] {what, "max " + millis(w.maxMicros()) + ", p99 " + millis(w.p99Micros())
                        + (r == null || r.handOffs() == 0 ? "" : " (Redisson: max " + millis(r.maxMicros()) + ", p99 "
                                + millis(r.p99Micros()) + ")"), "reported"});
            }
        }
        return t;
    }

    /** Target (5): the cross-JVM hand-off p99 against {@link #PREVIOUS_CROSS_JVM_P99_MICROS}. */
    private String[] crossJvmTarget(Contender c) {
        Double previous = PREVIOUS_CROSS_JVM_P99_MICROS.get(c);
        String what = "(5) " + c.id() + ": cross-JVM hand-off p99 no worse than the previous"
                + (previous == null ? "" : " " + millis(previous));
        Cell p99 = cell("h-handoff", c);
        if (!p99.ok()) {
            return new String[] {what, p99.text(), "n/a"};
        }
        if (previous == null) {
            return new String[] {what, "p99 " + millis(p99.value()), "baseline (no previous figure)"};
        }
        return check(what, p99.value() / 1000, " ms", shown(p99.value() / 1000) <= shown(previous / 1000));
    }

    private String[] atLeast(String what, String key, Contender c, double factor) {
        Cell x = cell(key, c);
        Cell r = cell(key, Contender.REDISSON);
        if (!x.ok()) {
            return new String[] {what, x.text(), "n/a"};
        }
        double ratio = x.value() / r.value();
        return check(what, ratio, "×", shown(ratio) >= factor);
    }

    /** Compares at the precision the report shows, so timing jitter below it cannot flip a verdict. */
    private static double shown(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static String[] check(String what, double value, String unit, boolean met) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return new String[] {what, "n/a", "n/a"};
        }
        String v = unit.equals(" bytes") ? String.format(Locale.ROOT, "%,.0f%s", value, unit)
                : String.format(Locale.ROOT, "%.2f%s", value, unit);
        return new String[] {what, v, met ? "met" : "**missed**"};
    }

    private static String ratio(Cell x, Cell other) {
        if (!x.ok() || !other.ok() || other.value() == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f×", x.value() / other.value());
    }

    private static String perSecond(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String millis(double micros) {
        return micros < 1000 ? String.format(Locale.ROOT, "%.0f µs", micros)
                : String.format(Locale.ROOT, "%.2f ms", micros / 1000);
    }

    private void flushRedis() {
        try (RespClient admin = new RespClient(redis.host(), redis.port(), 5000)) {
            admin.call("FLUSHALL");
        }
    }

    private void updateResults(String report) throws IOException {
        if (!only.isEmpty() || pin || !profile.name().equals("short") && !profile.name().equals("long")
                || "false".equals(System.getProperty("results.update"))) {
            return;
        }
        Path results = target.getParent().resolve("RESULTS.md");
        if (!Files.exists(results)) {
            return;
        }
        String text = Files.readString(results, StandardCharsets.UTF_8);
        int b = text.indexOf(BEGIN);
        int e = text.indexOf(END);
        if (b < 0 || e < b) {
            System.out.println(results + " has no generated block (" + BEGIN + " ... " + END + "): left alone");
            return;
        }
        String updated = text.substring(0, b + BEGIN.length()) + "\n" + report + text.substring(e);
        Files.writeString(results, updated, StandardCharsets.UTF_8);
        System.out.println("updated the generated block of " + results);
    }

    /** @return benchmarks/target: the folder of this jar (or of target/classes) */
    private static Path targetDir() throws URISyntaxException {
        Path code = Path.of(BenchmarkReport.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return code.toAbsolutePath().getParent();
    }
}
