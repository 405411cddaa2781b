package io.github.relock.tck.selftest;

import io.github.relock.tck.selftest.BrokenDriverKitTest.Case;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link BrokenDriverKitTest}'s cases whose rules fail only when a deadline runs out (a waiter
 * sleeping out a TTL, a reconnect that never comes, a liveness soak): about four minutes, so they
 * carry the tag {@code selftest-slow}, which the default build leaves out and {@code -Pfull} runs.
 */
@Tag("selftest-slow")
class BrokenDriverSlowKitTest {

    @AfterEach
    void closeWhatTheBrokenDriversLeft() {
        BrokenDriver.closeLeaked();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.github.relock.tck.selftest.BrokenDriverKitTest#slowCases")
    void brokenDriver_failsExactlyTheRulesThatGuardWhatItBreaks(Case c) {
        BrokenDriverKitTest.check(c);
    }
}
