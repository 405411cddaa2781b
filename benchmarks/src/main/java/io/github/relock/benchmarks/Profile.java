package io.github.relock.benchmarks;

import java.util.Locale;

/**
 * How long each measurement runs. {@code short} answers "did anything regress?" in a few minutes
 * on 2 cores; {@code long} is for careful runs on a quiet machine (about an hour); {@code quick}
 * only checks that every scenario runs.
 *
 * @param name {@code short} or {@code long}
 * @param rounds how many times every (scenario, contender) pair runs, interleaved: round 1 runs
 *     every pair once, then round 2... The report keeps each pair's best round, so a burst of
 *     load from another process on a shared machine costs a round, not the comparison
 * @param forks JMH forks per pair and round
 * @param warmupIterations JMH warm-up iterations per fork
 * @param measurementIterations JMH measurement iterations per fork
 * @param iterationSeconds length of every JMH iteration
 * @param heldLocks locks held in scenario (f)
 * @param renewalPeriods renewal periods scenario (f) counts commands over
 */
record Profile(String name, int rounds, int forks, int warmupIterations, int measurementIterations, int iterationSeconds,
               int heldLocks, int renewalPeriods) {

    static final Profile SHORT = new Profile("short", 2, 1, 1, 2, 1, 10_000, 5);
    /** Checks that every scenario runs (seconds per pair); its figures mean nothing. */
    static final Profile QUICK = new Profile("quick", 1, 1, 0, 1, 1, 1_000, 2);
    static final Profile LONG = new Profile("long", 3, 1, 4, 5, 5, 10_000, 20);

    static Profile named(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "short" -> SHORT;
            case "long" -> LONG;
            case "quick" -> QUICK;
            default -> throw new IllegalArgumentException("profile must be 'short', 'long' or 'quick', was '" + name + "'");
        };
    }

    String describe() {
        return name + ": " + rounds + " interleaved rounds (best kept) of JMH " + forks + " fork(s) × (" + warmupIterations + " warm-up + " + measurementIterations
                + " measured) iterations of " + iterationSeconds + " s per contender and scenario; (f) "
                + heldLocks + " locks, " + renewalPeriods + " renewal periods";
    }
}
