package io.github.relock.core.internal.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.core.internal.protocol.MessageWakes;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How the synchronizers' messages wake waiters, their names, and their argument checks, without Redis. */
class SyncPolicyTest {

    @Test
    void semaphoreMessage_wakesAsManyAsItAnnounces_noneForZeroNegativeOrForeign() {
        assertEquals(3, SyncPolicy.PERMITS.wakes("3"));
        assertEquals(0, SyncPolicy.PERMITS.wakes("0"));
        assertEquals(0, SyncPolicy.PERMITS.wakes("-2"), "Redisson's addPermits below zero publishes a negative count");
        assertEquals(0, SyncPolicy.PERMITS.wakes("x"));
        assertEquals(Integer.MAX_VALUE, SyncPolicy.PERMITS.wakes("99999999999"));
    }

    @Test
    void latchMessage_zeroWakesAll_newCountNone() {
        assertEquals(MessageWakes.ALL, SyncPolicy.LATCH.wakes("0"));
        assertEquals(0, SyncPolicy.LATCH.wakes("1"));
    }

    @Test
    void names_areRedissons() {
        assertEquals("redisson_sc:{sem}", SyncCalls.semaphoreChannel("sem"));
        assertEquals("redisson_sc:{app}:sem", SyncCalls.semaphoreChannel("{app}:sem"));
        assertEquals("{sem}:timeout", SyncCalls.leasesKey("sem"));
        assertEquals("{app}:sem:timeout", SyncCalls.leasesKey("{app}:sem"));
        assertEquals("redisson_countdownlatch__channel__{{app}:sem}", SyncCalls.latchChannel("{app}:sem"));
    }

    @Test
    void permitIds_are32HexCharacters_badOnesRefusedWithWhatWasPassed() {
        List<String> ids = SyncArgs.newIds(3);
        assertEquals(3, ids.stream().distinct().count());
        ids.forEach(id -> assertTrue(id.matches("[0-9a-f]{32}"), id));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SyncArgs.permitId("abc"));
        assertTrue(e.getMessage().contains("'abc'"), e.getMessage());
    }

    @Test
    void leases_minusOneIsNever_zeroRefused_deadlineIsRedissons() {
        assertEquals(SyncArgs.NO_LEASE, SyncArgs.leaseMs(-1, TimeUnit.SECONDS));
        assertEquals(SyncCalls.NEVER, SyncArgs.deadline(1_000, SyncArgs.NO_LEASE));
        assertEquals(31_000, SyncArgs.deadline(1_000, SyncArgs.leaseMs(30, TimeUnit.SECONDS)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SyncArgs.leaseMs(0, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("0 SECONDS"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SyncArgs.deadline(1_000, SyncCalls.NEVER));
    }
}
