package io.github.relock.tck.selftest;

import static io.github.relock.tck.selftest.KitRun.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.tck.CancellationChapter;
import io.github.relock.tck.ConcurrencyChapter;
import io.github.relock.tck.DriverConformanceChapter;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.DriverUnderFaultsChapter;
import io.github.relock.tck.FailureChapter;
import io.github.relock.tck.FaultChapter;
import io.github.relock.tck.LivenessChapter;
import io.github.relock.tck.LockListenerChapter;
import io.github.relock.tck.QueuedCallsChapter;
import io.github.relock.tck.ReentrantLockChapter;
import io.github.relock.tck.RuleStrength.Strength;
import io.github.relock.tck.TimingFaultChapter;
import io.github.relock.tck.WaitingChapter;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.selftest.KitRun.Rule;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kit tests itself: each {@link BrokenDriver} runs the rules that guard the part of the
 * driver contract it breaks, and exactly the rules named must fail; the others run beside them
 * as controls, which the defect must not break. Every rule the catalogue marks required
 * ({@code @RuleStrength(REQUIRED)}) must be shown failing by at least one broken driver, here or
 * in {@link BrokenDriverSlowKitTest} ({@code -Pfull}), so a required rule is known to be able to
 * fail. The unbroken driver passes all of them in the same build (driver-jedis runs the driver
 * contract kit on every topology and on a pool).
 */
class BrokenDriverKitTest {
    /** How long a case's clients may take to go once its rules ended (their own clean-up already ran). */
    private static final Duration LEFTOVERS = Duration.ofSeconds(10);

    /**
     * A broken driver, the rules it must fail, and the rules run beside them that it must pass.
     *
     * @param driver the defect
     * @param mustFail the rules that guard what it breaks
     * @param controls rules it must not break
     */
    record Case(BrokenDriver driver, List<Rule> mustFail, List<Rule> controls) {
        @Override
        public String toString() {
            return driver + " (" + driver.defect + ") fails " + mustFail;
        }
    }

    private static List<Rule> rules(Class<?> chapter, String... ids) {
        return Arrays.stream(ids).map(id -> rule(chapter, id)).toList();
    }

    private static List<Rule> conformance(String... ids) {
        return rules(DriverConformanceChapter.class, ids);
    }

    private static List<Rule> reentrant(String... ids) {
        return rules(ReentrantLockChapter.class, ids);
    }

    private static List<Rule> concat(List<Rule> a, List<Rule> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }

    /**
     * @return the cases that fail within seconds, run by the default build: one or more per broken
     *     driver, grouped by the part of the contract it breaks
     */
    static List<Case> cases() {
        return List.of(
                // replies: types, nesting, charset
                new Case(BrokenDriver.MANGLED_INTEGERS,
                        concat(conformance("1.1.1"), reentrant("2.1.3", "2.1.9", "2.1.10", "2.1.11")),
                        conformance("1.3.1")),
                new Case(BrokenDriver.INTEGERS_AS_NIL,
                        concat(reentrant("2.1.1", "2.1.2", "2.1.4", "2.1.5", "2.1.6", "2.1.8"),
                                rules(ConcurrencyChapter.class, "6.1")),
                        conformance("1.3.1")),
                new Case(BrokenDriver.NESTED_ARRAYS_UNNORMALISED, conformance("1.1.2", "1.4.1"), conformance("1.1.1")),
                new Case(BrokenDriver.LATIN1, conformance("1.1.3"), conformance("1.1.1")),
                // scripts
                new Case(BrokenDriver.NOSCRIPT_IGNORED, conformance("1.2.1", "1.2.2"), conformance("1.1.1")),
                new Case(BrokenDriver.RESENT_SCRIPTS, reentrant("2.1.3"), conformance("1.1.1")),
                // a release applied twice: an inner unlock frees a re-entered lock under its holder
                new Case(BrokenDriver.RELEASES_APPLIED_TWICE, rules(TimingFaultChapter.class, "29.1"),
                        conformance("1.1.1")),
                // the fair lock's seeded run: a release applied twice frees it only when its seed
                // re-enters in time (beside two CPU hogs 29.2 once passed); a script sent twice
                // counts every acquisition twice, so its holds never match Redis
                new Case(BrokenDriver.RESENT_SCRIPTS, rules(TimingFaultChapter.class, "29.2"), conformance("1.1.1")),
                // errors
                new Case(BrokenDriver.ERRORS_UNTYPED, conformance("1.3.1", "1.4.1"), conformance("1.1.1")),
                new Case(BrokenDriver.UNAVAILABLE_UNTYPED, rules(FailureChapter.class, "7.1"),
                        rules(FailureChapter.class, "7.2")),
                // the caller's thread
                // not 2.1.12 (an interrupted tryLock) as the control: it fails too whenever the
                // interrupt lands while the waiter is inside a script call, which this driver swallows
                new Case(BrokenDriver.INTERRUPTIBLE_CALLS, concat(conformance("1.3.2"), reentrant("2.1.13")),
                        reentrant("2.1.9")),
                new Case(BrokenDriver.ASYNC_UNNORMALISED, concat(conformance("1.4.1"), reentrant("2.1.14")),
                        conformance("1.1.1")),
                new Case(BrokenDriver.BLOCKING_ASYNC, conformance("1.4.2"), conformance("1.4.1")),
                new Case(BrokenDriver.THREAD_PER_ASYNC_CALL, rules(WaitingChapter.class, "5.5"), conformance("1.4.1")),
                // queued calls and the renewal lane
                new Case(BrokenDriver.QUEUED_WITHOUT_DEADLINE, rules(QueuedCallsChapter.class, "27.1"),
                        conformance("1.4.1")),
                new Case(BrokenDriver.RENEWALS_SHARE_LANE, rules(QueuedCallsChapter.class, "27.2"),
                        rules(QueuedCallsChapter.class, "27.1")),
                // pub/sub
                new Case(BrokenDriver.CONNECTION_PER_BATCH, conformance("1.5.1"), conformance("1.5.2")),
                new Case(BrokenDriver.EARLY_UNSUBSCRIBE, conformance("1.5.1", "1.5.2", "1.5.3", "1.5.6"),
                        conformance("1.5.5")),
                new Case(BrokenDriver.NO_RESUBSCRIBE, conformance("1.5.4"), conformance("1.1.1")),
                new Case(BrokenDriver.SHARDED_DEGRADED_QUIETLY, conformance("1.5.5"), conformance("1.1.1")),
                // replica acknowledgement
                new Case(BrokenDriver.WAIT_DROPPED, conformance("1.5.8"), conformance("1.5.5")),
                // close
                new Case(BrokenDriver.CLOSES_HANDED_CLIENT, conformance("1.6.1"), List.of()),
                // the world's faults
                new Case(BrokenDriver.REFUSED_SUBSCRIPTION_POOLED, rules(DriverUnderFaultsChapter.class, "28.3"),
                        conformance("1.5.2")),
                new Case(BrokenDriver.TRANSIENT_AS_REFUSED, rules(DriverUnderFaultsChapter.class, "28.7"),
                        conformance("1.3.1")));
    }

    /**
     * @return the cases whose rules fail only once a deadline ran out (a TTL, a reconnect timeout,
     *     a whole soak): about four minutes, so {@link BrokenDriverSlowKitTest} runs them in
     *     {@code -Pfull}; {@link #everyRequiredRule_isShownFailingByABrokenDriver} counts them
     */
    static List<Case> slowCases() {
        return List.of(
                new Case(BrokenDriver.UNCONFIRMED_SUBSCRIBE, rules(WaitingChapter.class, "5.1"),
                        rules(WaitingChapter.class, "5.2")),
                new Case(BrokenDriver.DROPPED_MESSAGES,
                        concat(rules(LivenessChapter.class, "21.1", "21.2", "21.3", "21.4", "21.5", "21.6", "21.7"),
                                rules(LockListenerChapter.class, "23.1")),
                        rules(LivenessChapter.class, "21.8")),
                new Case(BrokenDriver.NO_RESUBSCRIBE, rules(WaitingChapter.class, "5.3"), List.of()),
                new Case(BrokenDriver.NEVER_RECONNECTS,
                        concat(rules(FailureChapter.class, "7.2"), rules(FaultChapter.class, "18.4", "18.7")),
                        rules(FailureChapter.class, "7.1")),
                new Case(BrokenDriver.LEAKED_THREADS, conformance("1.6.1"), List.of()),
                // on the cluster, and 28.1 waits out its deadline; the control shows core's guard:
                // the lock is still told lost in time although the driver blocks its timer's call
                new Case(BrokenDriver.NODE_OF_SLOT_BORROWS, rules(DriverUnderFaultsChapter.class, "28.1"),
                        rules(DriverUnderFaultsChapter.class, "28.2")),
                // each waits out its 10 s deadline
                new Case(BrokenDriver.PUBSUB_NEVER_PROBED, rules(DriverUnderFaultsChapter.class, "28.10", "28.11"),
                        rules(DriverUnderFaultsChapter.class, "28.3")),
                // an engine rule (optional for a driver) fails too: a release acknowledged unrun
                new Case(BrokenDriver.SWALLOWED_RELEASES, rules(CancellationChapter.class, "12.4"),
                        rules(CancellationChapter.class, "12.19")),
                // 28.17 waits out its deadline for the reconnect core is never told of
                new Case(BrokenDriver.SILENT_AFTER_RECONNECT, rules(DriverUnderFaultsChapter.class, "28.17"),
                        rules(DriverUnderFaultsChapter.class, "28.3")),
                // 28.17 waits out its deadline for a message on the channel the user may still read
                new Case(BrokenDriver.DEAF_AFTER_REFUSED_RESUBSCRIBE, rules(DriverUnderFaultsChapter.class, "28.17"),
                        rules(DriverUnderFaultsChapter.class, "28.3")));
    }

    /**
     * Each case runs on the JVM's one Redis, after the others: what a broken driver leaves behind
     * (a thread, a connection still subscribed) would fail the next case's controls, blamed on
     * the wrong driver. So a case ends only once it left nothing, or fails itself, naming it.
     */
    @AfterEach
    void closeWhatTheBrokenDriversLeft() {
        BrokenDriver.closeLeaked();
        Await.until(LEFTOVERS, () -> DriverKit.relockThreads().isEmpty(),
                () -> "the case left relock threads running: " + DriverKit.relockThreads());
        Await.until(LEFTOVERS, () -> channels().isEmpty(),
                () -> "the case left channels subscribed on the server: " + channels());
    }

    private static List<?> channels() {
        return (List<?>) RedisFixture.shared().call("PUBSUB", "CHANNELS");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void brokenDriver_failsExactlyTheRulesThatGuardWhatItBreaks(Case c) {
        check(c);
    }

    /** Runs the case's rules against its broken driver: exactly {@code mustFail} must fail. */
    static void check(Case c) {
        List<Rule> all = concat(c.mustFail(), c.controls());
        Map<String, Throwable> failed = KitRun.failed(BrokenKits.of(c.driver()), all);
        Set<String> expected = ids(c.mustFail());
        assertEquals(expected, failed.keySet(), () -> "a driver that " + c.driver().defect + " must fail exactly "
                + c.mustFail() + " of " + all + unexpected(failed, expected));
    }

    /** @return why each rule that was not to fail failed, with where, for the assertion's message */
    private static String unexpected(Map<String, Throwable> failed, Set<String> expected) {
        StringWriter out = new StringWriter();
        failed.forEach((id, why) -> {
            if (!expected.contains(id)) {
                out.append("\n--- ").append(id).append(" failed: ");
                why.printStackTrace(new PrintWriter(out));
            }
        });
        return out.toString();
    }

    @Test
    void everyRequiredRule_isShownFailingByABrokenDriver() {
        Set<String> shown = Stream.concat(cases().stream(), slowCases().stream()).flatMap(c -> c.mustFail().stream())
                .map(Rule::id)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> required = RuleCatalogue.rules().stream().filter(r -> r.strength() == Strength.REQUIRED)
                .map(RuleCatalogue.Rule::id).collect(Collectors.toCollection(TreeSet::new));
        required.removeAll(shown);
        assertEquals(Set.of(), required, "required rules no broken driver here is shown to fail: add a case");
    }

    private static Set<String> ids(List<Rule> rules) {
        return rules.stream().map(Rule::id).collect(Collectors.toCollection(TreeSet::new));
    }
}
