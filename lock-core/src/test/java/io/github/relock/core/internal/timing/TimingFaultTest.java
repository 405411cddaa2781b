package io.github.relock.core.internal.timing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The timing-fault chapter of lock-core (issue 33 item 6): seeded schedules of stalled, reordered,
 * lost, timed-out and refused script calls, duplicated and lost pub/sub messages, cancelled calls
 * and timers firing, driving two clients' real engines against an in-memory model of the lock
 * scripts ({@link TimingSimulation} states the invariants). {@value #DEFAULT_SEEDS} seeds run in the
 * default build; {@code -Drelock.timing.seeds=N} (the {@code relock-timing} profile: 20,000) runs
 * more, {@code -Drelock.timing.firstSeed=S} starts elsewhere, and a failing seed prints its
 * schedule and replays alone, with every step printed, under {@code -Drelock.timing.seed=S}.
 */
class TimingFaultTest {
    static final int DEFAULT_SEEDS = 400;
    /** {@code -Drelock.timing.lock=reentrant|fair|mixed}: the lock the seeds use (mixed: every third seed fair). */
    private static final String LOCK_KIND = System.getProperty("relock.timing.lock", "mixed");
    /**
     * {@code -Drelock.timing.close=never|mixed|always}: whether one client closes during the seed
     * (mixed, the default: every second seed).
     */
    private static final String CLOSE_KIND = System.getProperty("relock.timing.close", "mixed");
    /**
     * {@code -Drelock.timing.sameOwnerAfterCancel=never|mixed|always}: whether an owner that cancelled
     * its call locks again under the same id (the same thread) while the cancelled wait may still run
     * (mixed, the default: half the seeds; {@code true} means always, {@code false} never).
     */
    private static final String SAME_OWNER = sameOwnerKind(System.getProperty("relock.timing.sameOwnerAfterCancel",
            "mixed"));
    /** How many failing seeds a run lists before it stops looking. */
    private static final int MAX_FAILURES = Integer.getInteger("relock.timing.maxFailures", 20);

    @Test
    void everySeed_keepsOneHolder_holdsMatchRedis_noWaiterSleepsOnAFreeLock_nothingLeaks() {
        int seeds = Integer.getInteger("relock.timing.seeds", DEFAULT_SEEDS);
        long first = Long.getLong("relock.timing.firstSeed", 1);
        List<Long> failed = new ArrayList<>();
        String firstReport = null;
        Map<String, Integer> exercised = new TreeMap<>();
        long start = System.nanoTime();
        for (long s = first; s < first + seeds && failed.size() < MAX_FAILURES; s++) {
            TimingSimulation sim = new TimingSimulation(s, false, SAME_OWNER, LOCK_KIND, CLOSE_KIND);
            List<String> violations = sim.run();
            sim.counts().forEach((k, v) -> exercised.merge(k, v, Integer::sum));
            if (!violations.isEmpty()) {
                System.out.println("timing seed " + s + ": " + violations);
                failed.add(s);
                if (firstReport == null) {
                    firstReport = sim.report(150);
                }
            }
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println("timing seeds " + first + ".." + (first + seeds - 1) + ": " + failed.size() + " failed, "
                + ms + " ms; exercised " + exercised);
        if (!failed.isEmpty()) {
            fail(failed.size() + " seed(s) failed" + (failed.size() == MAX_FAILURES ? " (stopped looking)" : "")
                    + ": " + failed + "\n" + firstReport);
        }
    }

    /** A seed is its schedule: run twice, it makes the same steps (what a replay relies on). */
    @Test
    void sameSeed_replaysTheSameSchedule() {
        int seeds = Integer.getInteger("relock.timing.replaySeeds", 24);
        for (long s = 1; s <= seeds; s++) {
            List<String> first = schedule(new TimingSimulation(s, false, "always", "mixed", "mixed"));
            List<String> again = schedule(new TimingSimulation(s, false, "always", "mixed", "mixed"));
            int i = 0;
            while (i < Math.min(first.size(), again.size()) && first.get(i).equals(again.get(i))) {
                i++;
            }
            if (i < Math.max(first.size(), again.size())) {
                fail("seed " + s + " ran differently the second time, from schedule line " + i + ":\n  first: "
                        + (i < first.size() ? first.get(i) : "(end)") + "\n  again: "
                        + (i < again.size() ? again.get(i) : "(end)") + "\n  after: "
                        + (i > 0 ? first.get(i - 1) : ""));
            }
        }
    }

    private static String sameOwnerKind(String value) {
        return switch (value) {
            case "true" -> "always";
            case "false" -> "never";
            default -> value;
        };
    }

    private static List<String> schedule(TimingSimulation sim) {
        sim.run();
        return sim.schedule();
    }

    @Test
    @EnabledIfSystemProperty(named = "relock.timing.seed", matches = "-?\\d+")
    void replayOneSeed() {
        long seed = Long.getLong("relock.timing.seed");
        TimingSimulation sim = new TimingSimulation(seed, true, SAME_OWNER, LOCK_KIND, CLOSE_KIND);
        if (!sim.run().isEmpty()) {
            fail(sim.report(Integer.MAX_VALUE));
        }
    }
}
