package io.github.relock.core.internal.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The offer state machine and its lines ({@link Handoff}), without Redis or threads. */
class HandoffTest {
    private static final String LINE = Handoff.line("RedisLock", "a");
    private final Handoff handoff = new Handoff(3, TimeUnit.SECONDS.toNanos(10));
    private final AtomicInteger wakes = new AtomicInteger();

    private Handoff.Offer armed(long owner) {
        Handoff.Offer o = handoff.post(LINE, owner, "client:" + owner, 30_000, wakes::incrementAndGet);
        handoff.arm(o);
        return o;
    }

    @Test
    void claim_takesTheOldestArmedOffer_neverABusyOne() {
        Handoff.Offer busy = handoff.post(LINE, 1, "client:1", 30_000, wakes::incrementAndGet); // attempting
        Handoff.Offer second = armed(2);
        armed(3);
        assertSame(second, handoff.claim(LINE, true));
        assertFalse(handoff.busy(second), "a claimed offer cannot attempt");
        assertTrue(handoff.busy(busy));
    }

    @Test
    void grant_makesTheWaiterOwner_wakesIt_andTheLineRemembersTheHolder() {
        Handoff.Offer o = armed(1);
        assertSame(o, handoff.claim(LINE, true));
        assertTrue(handoff.grant(o));
        assertEquals(Handoff.GRANTED, o.state());
        assertEquals(1, wakes.get());
        assertEquals("client:1", handoff.heldLocally(LINE));
        assertEquals(Handoff.GRANTED, handoff.leave(o, false));
        assertNull(handoff.claim(LINE, true), "its holder's release clears the memory");
        assertNull(handoff.heldLocally(LINE));
    }

    @Test
    void leave_whileClaimed_saysSo_andATransferLandingAfterTheWaiterLeftIsGivenBack() {
        Handoff.Offer o = armed(1);
        handoff.claim(LINE, true);
        assertEquals(Handoff.CLAIMED, handoff.leave(o, false), "a claim in flight must be settled first");
        assertTrue(handoff.leaveClaimed(o));
        assertEquals(Handoff.GONE, handoff.leave(o, false));
        assertFalse(handoff.grant(o), "a transfer that lands after the waiter left is refused");
        assertFalse(handoff.landed(o), "and nobody will take it: its releaser gives it back");
        assertEquals(0, handoff.activeLines());
    }

    @Test
    void abandon_keepsTheOfferUnclaimable_aLateTransferLandsForTheWaiterToTake() {
        Handoff.Offer o = armed(1);
        handoff.claim(LINE, true);
        assertTrue(handoff.abandon(o), "the waiter gives up on the claim and waits on");
        assertFalse(handoff.busy(o), "its attempts resolve; the offer is not BUSY");
        assertNull(handoff.claim(LINE, true), "no releaser claims an abandoned offer again");
        assertFalse(handoff.grant(o), "a late transfer registers no hold for it");
        int before = wakes.get();
        assertTrue(handoff.landed(o), "the waiter waits on: not given back");
        assertEquals(Handoff.LANDED, o.state());
        assertEquals(before + 1, wakes.get(), "woken to take it");
        assertEquals(Handoff.TAKEN, handoff.leave(o, true), "its RESOLVE attempt took the transfer");
        assertEquals(0, handoff.activeLines());
    }

    @Test
    void abandonedOffer_waiterLeavesWithoutTheLock_whoeverComesSecondGivesBack() {
        Handoff.Offer first = armed(1);
        handoff.claim(LINE, true);
        handoff.abandon(first);
        assertEquals(Handoff.GONE, handoff.leave(first, false), "left before the transfer landed");
        assertFalse(handoff.landed(first), "its releaser gives it back");

        Handoff.Offer second = armed(2);
        handoff.claim(LINE, true);
        handoff.abandon(second);
        assertTrue(handoff.landed(second));
        assertEquals(Handoff.LANDED, handoff.leave(second, false), "landed after its last attempt: it gives it back");
    }

    @Test
    void abandonedOffer_waiterAcquired_aLateTransferIsThatAcquisition() {
        Handoff.Offer o = armed(1);
        handoff.claim(LINE, true);
        handoff.abandon(o);
        assertEquals(Handoff.TAKEN, handoff.leave(o, true));
        assertTrue(handoff.landed(o), "nothing to give back: the waiter's RESOLVE attempt took it");
    }

    @Test
    void unclaim_sleepOn_keepsTheWaiterAsleep_wakeAndUnknownWakeIt_unknownAsksToResolve() {
        Handoff.Offer o = armed(1);
        handoff.claim(LINE, true);
        handoff.unclaim(o, Handoff.Unclaim.SLEEP_ON);
        assertEquals(0, wakes.get());
        assertEquals(Handoff.ARMED, o.state());
        handoff.claim(LINE, true);
        handoff.unclaim(o, Handoff.Unclaim.WAKE);
        assertEquals(1, wakes.get());
        assertFalse(o.resolve);
        handoff.claim(LINE, true);
        handoff.unclaim(o, Handoff.Unclaim.UNKNOWN);
        assertEquals(2, wakes.get());
        assertTrue(o.resolve, "the transfer may have landed: the waiter's attempts resolve it");
    }

    @Test
    void unclaim_sleepOn_stillWakesAWaiterWaitingForTheDecision() {
        Handoff.Offer o = armed(1);
        handoff.claim(LINE, true);
        assertTrue(handoff.settling(o));
        handoff.unclaim(o, Handoff.Unclaim.SLEEP_ON);
        assertEquals(1, wakes.get(), "a settling waiter is always told the claim's outcome");
        handoff.settled(o);
        assertFalse(handoff.settling(o), "not claimed any more: nothing to wait for");
    }

    @Test
    void runs_endAfterMaxConsecutiveTransfers_thenStartAgain() {
        Handoff.Offer o = armed(1);
        for (int i = 0; i < 3; i++) {
            assertSame(o, handoff.claim(LINE, true));
            handoff.unclaim(o, Handoff.Unclaim.SLEEP_ON);
        }
        assertNull(handoff.claim(LINE, true), "the fourth release of a run is ordinary");
        assertSame(o, handoff.claim(LINE, true), "a new run starts");
    }

    @Test
    void unboundedLine_fairLock_hasNoRunBound() {
        Handoff.Offer o = armed(1);
        for (int i = 0; i < 10; i++) {
            assertSame(o, handoff.claim(LINE, false));
            handoff.unclaim(o, Handoff.Unclaim.SLEEP_ON);
        }
    }

    @Test
    void lines_arePerFamily_aReleaseNeverClaimsAnotherFamilysWaiter() {
        Handoff.Offer fair = handoff.post(Handoff.line("FairRedisLock", "a"), 1, "client:1", 30_000, wakes::incrementAndGet);
        handoff.arm(fair);
        assertNull(handoff.claim(LINE, true));
        handoff.wakeOtherFamilies("a", "RedisLock", List.of("RedisLock", "FairRedisLock"));
        assertEquals(1, wakes.get(), "the fair waiter is woken to attempt through its own protocol");
        assertEquals(Handoff.ARMED, fair.state());
    }

    @Test
    void disabled_whenMaxConsecutiveIsZero() {
        assertFalse(new Handoff(0, 1).enabled());
        assertTrue(handoff.enabled());
    }

    @Test
    void leave_removesTheOfferAndTheLine() {
        Handoff.Offer o = armed(1);
        assertEquals(Handoff.GONE, handoff.leave(o, false));
        assertEquals(0, handoff.activeLines());
        assertNull(handoff.claim(LINE, true));
    }
}
