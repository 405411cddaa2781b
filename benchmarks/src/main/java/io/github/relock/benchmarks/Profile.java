package io.github.relock.benchmarks;

import java.util.Locale;

/**
 * How long each measurement runs. {@code short} answers "did anything regress?" in about five
 * minutes on 2 cores; {@code long} is for careful runs on a quiet machine (about 50 minutes);
 * {@code quick} only checks that every scenario runs.
 *
 * <p>Measured iterations are short and many: the report keeps the best one (see
 * {@link BenchmarkReport}), and on a small virtual machine a loopback round trip switches between
 * a fast and a slow mode every few seconds, so more samples find each contender's fast mode.
 *
 * @param name {@code short}, {@code long} or {@code quick}
 * @param rounds how many times every (scenario, contender) pair runs, interleaved: round 1 runs
 *     every pair once, then round 2...
 * @param forks JMH forks per pair and round
 * @param warmupIterations JMH warm-up iterations per fork, of {@code warmupMillis}
 * @param warmupMillis length of a warm-up iteration
 * @param measurementIterations JMH measurement iterations per fork, of {@code measurementMillis}
 * @param measurementMillis length of a measured iteration
 * @param heldLocks locks held in scenario (f)
 * @param renewalPeriods renewal periods scenario (f) counts commands over
 */
record Profile(String name, int rounds, int forks, int warmupIterations, int warmupMillis, int measurementIterations,
               int measurementMillis, int heldLocks, int renewalPeriods) {

    static final Profile SHORT = new Profile("short", 1, 1, 3, 1000, 6, 500, 10_000, 5);
    static final Profile LONG = new Profile("long", 2, 2, 5, 2000, 15, 1000, 10_000, 20);
    /** Checks that every scenario runs (seconds per pair); its figures mean nothing. */
    static final Profile QUICK = new Profile("quick", 1, 1, 0, 1000, 1, 1000, 1_000, 2);

    static Profile named(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "short" -> SHORT;
            case "long" -> LONG;
            case "quick" -> QUICK;
            default -> throw new IllegalArgumentException("profile must be 'short', 'long' or 'quick', was '" + name + "'");
        };
    }

    Profile withRounds(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("rounds must be >= 1, was " + n);
        }
        return new Profile(name, n, forks, warmupIterations, warmupMillis, measurementIterations, measurementMillis,
                heldLocks, renewalPeriods);
    }

    /**
     * The iterations of the scenarios added for issue 15 ((h), (i), (j)), which keep the runs from
     * growing by half: in the {@code short} profile at most 2 warm-up and 4 measured iterations; in
     * {@code long} one fork instead of two (rounds and iterations unchanged); {@code quick} unchanged.
     *
     * @return this profile, briefer
     */
    Profile brief() {
        return switch (name) {
            case "short" -> new Profile(name, rounds, forks, Math.min(2, warmupIterations), warmupMillis,
                    Math.min(4, measurementIterations), measurementMillis, heldLocks, renewalPeriods);
            case "long" -> new Profile(name, rounds, 1, warmupIterations, warmupMillis, measurementIterations,
                    measurementMillis, heldLocks, renewalPeriods);
            default -> this;
        };
    }

    String describe() {
        return name + ": " + rounds + " round(s) of JMH " + forks + " fork(s) × (" + warmupIterations + " × "
                + warmupMillis + " ms warm-up + " + measurementIterations + " × " + measurementMillis
                + " ms measured) per contender and scenario; (f) " + heldLocks + " locks, " + renewalPeriods
                + " renewal periods";
    }
}
