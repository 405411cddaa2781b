package io.github.relock.core.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The public argument conventions and their checks, once for every lock type: a wait of -1 is one
 * attempt, a lease of -1 is the watchdog; inside, sentinels no public value converts to.
 */
class ArgsTest {

    private static void assertMessageHas(Throwable e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage() != null && e.getMessage().contains(part),
                    "message lacks '" + part + "': " + e.getMessage());
        }
    }

    @Test
    void sentinels_neverEqualAPublicValue() {
        assertNotEquals(-1, Args.WAIT_FOREVER);
        assertNotEquals(-1, Args.TTL_WATCHDOG);
        assertTrue(Args.WAIT_FOREVER < 0 && Args.TTL_WATCHDOG < 0, "every converted public value is >= 0");
        assertEquals(0, Args.TRY_ONCE);
    }

    // ---- waitMs

    @Test
    void waitMs_minusOne_isOneAttempt() {
        assertEquals(Args.TRY_ONCE, Args.waitMs(-1, TimeUnit.SECONDS));
        assertEquals(Args.TRY_ONCE, Args.waitMs(-1, TimeUnit.NANOSECONDS));
    }

    @Test
    void waitMs_zero_isOneAttempt() {
        assertEquals(Args.TRY_ONCE, Args.waitMs(0, TimeUnit.SECONDS));
        assertEquals(Args.TRY_ONCE, Args.waitMs(Duration.ZERO));
    }

    @Test
    void waitMs_positive_convertedToMilliseconds() {
        assertEquals(2000, Args.waitMs(2, TimeUnit.SECONDS));
        assertEquals(1, Args.waitMs(1, TimeUnit.MILLISECONDS));
        assertEquals(1500, Args.waitMs(Duration.ofMillis(1500)));
    }

    @Test
    void waitMs_subMillisecond_truncatesToOneAttempt() {
        assertEquals(Args.TRY_ONCE, Args.waitMs(999, TimeUnit.MICROSECONDS));
        assertEquals(Args.TRY_ONCE, Args.waitMs(Duration.ofNanos(999_999)));
    }

    @Test
    void waitMs_negativeOtherThanMinusOne_rejectedNamingValueUnitAndConvention() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.waitMs(-5, TimeUnit.SECONDS)),
                "waitTime", "was -5 SECONDS", "-1");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.waitMs(-2, TimeUnit.MILLISECONDS)),
                "was -2 MILLISECONDS");
        assertMessageHas(assertThrows(IllegalArgumentException.class,
                () -> Args.waitMs(Long.MIN_VALUE, TimeUnit.DAYS)), "was " + Long.MIN_VALUE + " DAYS");
    }

    @Test
    void waitMs_negativeDuration_rejectedNamingTheValue_noMinusOneConvention() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.waitMs(Duration.ofMillis(-1))),
                "waitTime", ">= 0", "was PT-0.001S");
        assertThrows(IllegalArgumentException.class, () -> Args.waitMs(Duration.ofSeconds(Long.MIN_VALUE)));
    }

    @Test
    void waitMs_overflowingLongWait_saturatesAtLongMaxValue() {
        assertEquals(Long.MAX_VALUE, Args.waitMs(Long.MAX_VALUE, TimeUnit.DAYS));
        assertEquals(Long.MAX_VALUE, Args.waitMs(Duration.ofSeconds(Long.MAX_VALUE)));
        assertEquals(Long.MAX_VALUE, Args.waitMs(Duration.ofMillis(Long.MAX_VALUE)));
    }

    @Test
    void waitMs_nullUnitOrDuration_nullPointerNamingIt() {
        assertMessageHas(assertThrows(NullPointerException.class, () -> Args.waitMs(1, null)), "unit");
        assertMessageHas(assertThrows(NullPointerException.class, () -> Args.waitMs(null)), "waitTime");
    }

    // ---- leaseMs

    @Test
    void leaseMs_minusOne_isTheWatchdog() {
        assertEquals(Args.TTL_WATCHDOG, Args.leaseMs(-1, TimeUnit.SECONDS));
        assertEquals(Args.TTL_WATCHDOG, Args.leaseMs(-1, TimeUnit.NANOSECONDS));
    }

    @Test
    void leaseMs_positive_convertedToMilliseconds() {
        assertEquals(1, Args.leaseMs(1, TimeUnit.MILLISECONDS));
        assertEquals(30_000, Args.leaseMs(30, TimeUnit.SECONDS));
        assertEquals(1500, Args.leaseMs(Duration.ofMillis(1500)));
        assertEquals(1, Args.leaseMs(Duration.ofNanos(1_999_999)));
    }

    @Test
    void leaseMs_zero_rejectedNamingValueAndConvention() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(0, TimeUnit.SECONDS)),
                "leaseTime", "> 0", "-1", "was 0 SECONDS");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(Duration.ZERO)),
                "leaseTime", "positive", "was PT0S");
    }

    @Test
    void leaseMs_negativeOtherThanMinusOne_rejectedNamingTheValue() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(-2, TimeUnit.SECONDS)),
                "leaseTime", "was -2 SECONDS");
        assertMessageHas(assertThrows(IllegalArgumentException.class,
                () -> Args.leaseMs(Long.MIN_VALUE, TimeUnit.MILLISECONDS)), "was " + Long.MIN_VALUE + " MILLISECONDS");
    }

    @Test
    void leaseMs_negativeDuration_rejected_notTheWatchdog() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(Duration.ofMillis(-1))),
                "leaseTime", "was PT-0.001S");
    }

    @Test
    void leaseMs_subMillisecond_rejectedAsBelowOneMs() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(10, TimeUnit.MICROSECONDS)),
                "at least 1 ms", "was 10 MICROSECONDS");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(Duration.ofNanos(999_999))),
                "at least 1 ms", "was PT0.000999999S");
    }

    @Test
    void maxLeaseMs_isTwoToThe53MinusOne() {
        assertEquals(9_007_199_254_740_991L, Args.MAX_LEASE_MS);
    }

    @Test
    void leaseMs_atMaxLease_accepted_oneMoreRejectedNamingTheLimitAndTheValue() {
        assertEquals(Args.MAX_LEASE_MS, Args.leaseMs(Args.MAX_LEASE_MS, TimeUnit.MILLISECONDS));
        assertEquals(Args.MAX_LEASE_MS, Args.leaseMs(Duration.ofMillis(Args.MAX_LEASE_MS)));
        assertMessageHas(assertThrows(IllegalArgumentException.class,
                () -> Args.leaseMs(Args.MAX_LEASE_MS + 1, TimeUnit.MILLISECONDS)),
                "leaseTime", "at most " + Args.MAX_LEASE_MS + " ms", "was " + (Args.MAX_LEASE_MS + 1) + " MILLISECONDS");
        assertMessageHas(assertThrows(IllegalArgumentException.class,
                () -> Args.leaseMs(Duration.ofMillis(Args.MAX_LEASE_MS + 1))),
                "at most " + Args.MAX_LEASE_MS + " ms", "was " + Duration.ofMillis(Args.MAX_LEASE_MS + 1));
    }

    @Test
    void leaseMs_maxLeaseInCoarserUnit_boundaryByTheConvertedMilliseconds() {
        long seconds = Args.MAX_LEASE_MS / 1000;
        assertEquals(seconds * 1000, Args.leaseMs(seconds, TimeUnit.SECONDS));
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(seconds + 1, TimeUnit.SECONDS)),
                "at most", "was " + (seconds + 1) + " SECONDS");
    }

    @Test
    void leaseMs_overflowingLease_rejected_neverWrapsToANegativeOrSentinel() {
        assertMessageHas(assertThrows(IllegalArgumentException.class,
                () -> Args.leaseMs(Long.MAX_VALUE, TimeUnit.DAYS)), "at most", "was " + Long.MAX_VALUE + " DAYS");
        assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(Long.MAX_VALUE, TimeUnit.MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(Duration.ofSeconds(Long.MAX_VALUE)));
    }

    @Test
    void leaseMs_nullUnitOrDuration_nullPointerNamingIt() {
        assertMessageHas(assertThrows(NullPointerException.class, () -> Args.leaseMs(1, null)), "unit");
        assertMessageHas(assertThrows(NullPointerException.class, () -> Args.leaseMs(null)), "leaseTime");
    }

    // ---- name

    @Test
    void name_nullOrBlank_rejected_otherwiseReturnedUnchanged() {
        assertEquals("a", Args.name("a"));
        assertEquals(" a ", Args.name(" a "));
        assertMessageHas(assertThrows(NullPointerException.class, () -> Args.name(null)), "lock name");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.name("  ")), "blank", "was '  '");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.name("")), "blank", "was ''");
    }

    @Test
    void name_unpairedSurrogate_rejectedNamingItAndItsIndex_pairsAccepted() {
        assertEquals("a\uD83D\uDD12", Args.name("a\uD83D\uDD12"));
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.name("a\uD800")),
                "unpaired surrogate", "\\uD800 at index 1", "UTF-8");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> Args.name("ab\uDC00\uD800")),
                "\\uDC00 at index 2");
    }

    @Test
    void name_hugeBlank_rejectedWithAShortMessage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Args.name(" ".repeat(1 << 20)));
        assertMessageHas(e, "must not be blank", "(1048576 chars)");
        assertTrue(e.getMessage().length() < 400, "the message repeats the whole name: " + e.getMessage().length());
    }
}
