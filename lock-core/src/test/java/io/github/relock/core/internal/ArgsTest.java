package io.github.relock.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The public argument conventions and their checks, once for every lock type. */
class ArgsTest {

    @Test
    void waitMs_minusOne_isOneAttempt_andSentinelsNeverCollideWithPublicValues() {
        assertEquals(Args.TRY_ONCE, Args.waitMs(-1, TimeUnit.SECONDS));
        assertEquals(2000, Args.waitMs(2, TimeUnit.SECONDS));
        assertNotEquals(-1, Args.WAIT_FOREVER);
        assertNotEquals(-1, Args.TTL_WATCHDOG);
    }

    @Test
    void waitMs_negative_rejectedNamingTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Args.waitMs(-5, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("-5") && e.getMessage().contains("-1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Args.waitMs(Duration.ofMillis(-1)));
        assertThrows(NullPointerException.class, () -> Args.waitMs(1, null));
        assertThrows(NullPointerException.class, () -> Args.waitMs(null));
    }

    @Test
    void waitMs_hugeDuration_saturates() {
        assertEquals(Long.MAX_VALUE, Args.waitMs(Duration.ofSeconds(Long.MAX_VALUE)));
    }

    @Test
    void leaseMs_minusOne_isTheWatchdog_zeroAndSubMillisecondRejected() {
        assertEquals(Args.TTL_WATCHDOG, Args.leaseMs(-1, TimeUnit.SECONDS));
        assertEquals(1500, Args.leaseMs(Duration.ofMillis(1500)));
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(0, TimeUnit.SECONDS));
        assertTrue(zero.getMessage().contains("0 SECONDS"), zero.getMessage());
        IllegalArgumentException tiny = assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(10, TimeUnit.MICROSECONDS));
        assertTrue(tiny.getMessage().contains("at least 1 ms"), tiny.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(Duration.ZERO));
        assertThrows(NullPointerException.class, () -> Args.leaseMs(null));
    }

    @Test
    void leaseMs_aboveTheMaximum_rejectedBeforeAnythingIsSent() {
        assertEquals(Args.MAX_LEASE_MS, Args.leaseMs(Args.MAX_LEASE_MS, TimeUnit.MILLISECONDS));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Args.leaseMs(Args.MAX_LEASE_MS + 1, TimeUnit.MILLISECONDS));
        assertTrue(e.getMessage().contains("at most") && e.getMessage().contains(Long.toString(Args.MAX_LEASE_MS + 1)),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(Long.MAX_VALUE, TimeUnit.MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> Args.leaseMs(Duration.ofSeconds(Long.MAX_VALUE)));
    }

    @Test
    void name_nullOrBlank_rejected() {
        assertEquals("a", Args.name("a"));
        assertThrows(NullPointerException.class, () -> Args.name(null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Args.name("  "));
        assertTrue(e.getMessage().contains("blank"), e.getMessage());
    }
}
