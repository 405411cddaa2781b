package io.github.relock.core.internal.lock;

import static io.github.relock.core.internal.lock.LockFixture.WATCHDOG_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockException;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockLostEvent.Reason;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.run.ReplicaShortfall;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.testing.FakeExecutor.Invocation;
import io.github.relock.core.internal.wait.Channel;
import io.github.relock.core.internal.wait.Handoff;
import io.github.relock.core.internal.wait.Waiters;
import io.github.relock.spi.NotSentException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Releasing through a real {@link RedisLock}: how each answer of the release script, and each way its
 * call can fail, changes the client's holds, its hand-off offers and what it reports (see
 * LockRelease's design comment).
 */
class LockReleaseTest {
    private static final String RELEASE = "lock-release";
    private static final String FAIR_RELEASE = "fair-release";
    private static final long OWNER = 7;
    private static final long WAITER = 9;
    private static final int ARMED = 0;
    private static final int GRANTED = 3;
    private static final int LANDED = 6;

    private final LockFixture f = new LockFixture();
    private final RedisLock lock = f.reentrant("orders");
    private final String field = lock.field(OWNER);

    @AfterEach
    void closeTimer() {
        f.close();
    }

    private static RedisUnavailableException refusedBeforeSending() {
        return new NotSentException("too many calls waiting");
    }

    // ---------------------------------------------------------------- answers

    @Test
    void release_answeredReleased_dropsHoldAndReportsRelease() {
        f.acquired(lock, OWNER);
        f.redis.reply(RELEASE, List.of(1L, 1L));

        lock.release(OWNER);

        assertNull(f.holds.get("orders", field));
        Invocation call = f.redis.calls(RELEASE).get(0);
        assertEquals(List.of("orders", "redisson_lock__channel:{orders}", "relock__waiters:{orders}", "relock__wake:{orders}"),
                call.keys());
        assertEquals(List.of(Long.toString(WATCHDOG_MS), "c1:7", "PUBLISH"), call.args());
        assertEquals(List.of("released orders"), f.listener.starting("released"));
        assertTrue(f.lost.isEmpty());
    }

    @Test
    void release_answeredStillHeld_keepsHoldAtOneLess() {
        Hold h = f.acquired(lock, OWNER);
        f.acquired(lock, OWNER);
        f.redis.reply(RELEASE, List.of(0L, 0L));

        lock.release(OWNER);

        assertSame(h, f.holds.get("orders", field));
        assertTrue(f.holds.lastHold("orders", field), "one acquisition left");
        assertTrue(f.listener.starting("released").isEmpty());
    }

    @Test
    void release_notHeldAndLockFree_reentrantThrowsAndDropsHoldQuietly() {
        f.acquired(lock, OWNER);
        f.redis.reply(RELEASE, List.of(-1L, 0L));

        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, () -> lock.release(OWNER));

        assertTrue(e.getMessage().contains("not locked by current thread by node id: c1 thread-id: 7"), e.getMessage());
        assertTrue(e.getMessage().endsWith("the lock is free (its lease expired or it was force-unlocked)"), e.getMessage());
        assertNull(f.holds.get("orders", field));
        assertTrue(f.lost.isEmpty(), "the exception tells the caller; no loss report besides");
    }

    @Test
    void release_notHeldAndLockFree_fairReturnsAndReportsLossOnce() {
        RedisLock fair = f.fair("orders");
        f.acquired(fair, OWNER);
        f.redis.reply(FAIR_RELEASE, List.of(-1L, 0L));

        fair.release(OWNER);
        fair.release(OWNER);

        assertNull(f.holds.get("orders", field));
        assertEquals(List.of(new LockLostEvent("orders", "c1:7", OWNER, Reason.NOT_HELD)), f.lost);
    }

    @Test
    void release_heldByAnotherOwner_throwsForReentrantAndFairLocks() {
        RedisLock fair = f.fair("fair");
        f.acquired(lock, OWNER);
        f.acquired(fair, OWNER);
        f.redis.reply(RELEASE, List.of(-2L, 0L)).reply(FAIR_RELEASE, List.of(-2L, 0L));

        IllegalMonitorStateException reentrant = assertThrows(IllegalMonitorStateException.class, () -> lock.release(OWNER));
        IllegalMonitorStateException fairs = assertThrows(IllegalMonitorStateException.class, () -> fair.release(OWNER));

        assertTrue(reentrant.getMessage().endsWith("it is held by another owner"), reentrant.getMessage());
        assertTrue(fairs.getMessage().endsWith("it is held by another owner"), fairs.getMessage());
        assertEquals(0, f.holds.size());
        assertTrue(f.lost.isEmpty());
    }

    @Test
    void release_replicaShortfall_appliesMastersOutcomeAndThrows() {
        try (LockFixture synced = new LockFixture(1)) {
            RedisLock l = synced.reentrant("orders");
            synced.acquired(l, OWNER);
            synced.redis.waitAcks(0).reply(RELEASE, List.of(1L, 1L));

            ReplicaShortfall e = assertThrows(ReplicaShortfall.class, () -> l.release(OWNER));

            assertEquals(List.of("evalShaWithWait"), synced.redis.calls().stream().map(Invocation::method).toList());
            assertNull(synced.holds.get("orders", field), "released on the master");
            assertTrue(e.getMessage().startsWith("unlock of lock 'orders'"), e.getMessage());
        }
    }

    @Test
    void release_answeredHandedOffWithoutCandidate_throwsLockExceptionNamingScript() {
        f.acquired(lock, OWNER);
        f.redis.reply(RELEASE, List.of(2L, 0L));

        LockException e = assertThrows(LockException.class, () -> lock.release(OWNER));

        assertTrue(e.getMessage().contains("lock-release of lock 'orders'"), e.getMessage());
    }

    @Test
    void release_closedClient_throwsWithoutSending() {
        f.acquired(lock, OWNER);
        f.services.close();

        assertThrows(IllegalStateException.class, () -> lock.release(OWNER));
        assertTrue(f.redis.calls().isEmpty());
        assertTrue(lock.releaseAsync(OWNER).isCompletedExceptionally());
    }

    // ---------------------------------------------------------------- failures

    @Test
    void release_failsWithUnknownOutcome_dropsHoldAndReportsReplyLost() {
        RedisUnavailableException timeout = new RedisUnavailableException("command timed out");
        f.acquired(lock, OWNER);
        f.redis.fail(RELEASE, timeout);

        assertSame(timeout, assertThrows(RedisUnavailableException.class, () -> lock.release(OWNER)));

        assertNull(f.holds.get("orders", field), "no longer renewed: it expires if the release never ran");
        assertEquals(List.of("replyLost orders release"), f.listener.starting("replyLost"));
        assertTrue(f.lost.isEmpty());
    }

    @Test
    void release_refusedBeforeSending_keepsHoldAndCanBeReleasedAgain() {
        Hold h = f.acquired(lock, OWNER);
        f.redis.fail(RELEASE, refusedBeforeSending()).reply(RELEASE, List.of(1L, 1L));

        assertThrows(RedisUnavailableException.class, () -> lock.release(OWNER));

        assertSame(h, f.holds.get("orders", field));
        assertTrue(f.holds.lastHold("orders", field));
        assertTrue(f.listener.starting("replyLost").isEmpty(), "it never ran: no reply was lost");
        lock.release(OWNER);
        assertNull(f.holds.get("orders", field));
    }

    @Test
    void releaseAsync_answeredReleased_dropsHold() {
        f.acquired(lock, OWNER);
        f.redis.hold(RELEASE);

        CompletableFuture<Void> released = lock.releaseAsync(OWNER);
        assertNotNull(f.holds.get("orders", field), "held until the script answers");
        f.redis.pending(0).complete(List.of(1L, 0L));

        assertTrue(released.isDone() && !released.isCompletedExceptionally());
        assertNull(f.holds.get("orders", field));
        assertEquals("EVALSHA async", f.redis.calls().get(0).method());
    }

    @Test
    void releaseAsync_refusedBeforeSending_keepsHoldAndFailsWithTheRefusal() {
        Hold h = f.acquired(lock, OWNER);
        f.redis.fail(RELEASE, refusedBeforeSending());

        CompletableFuture<Void> released = lock.releaseAsync(OWNER);

        CompletionException e = assertThrows(CompletionException.class, released::join);
        assertTrue(ScriptRunner.notSent(e));
        assertSame(h, f.holds.get("orders", field));
        assertTrue(f.listener.starting("replyLost").isEmpty());
    }

    @Test
    void releaseAsync_failsWithUnknownOutcome_dropsHoldAndReportsReplyLost() {
        f.acquired(lock, OWNER);
        f.redis.fail(RELEASE, new RedisUnavailableException("connection reset"));

        CompletableFuture<Void> released = lock.releaseAsync(OWNER);

        assertThrows(CompletionException.class, released::join);
        assertNull(f.holds.get("orders", field));
        assertEquals(List.of("replyLost orders release"), f.listener.starting("replyLost"));
    }

    // ---------------------------------------------------------------- local hand-off

    @Test
    void release_armedOfferAndHandedOff_registersWaitersHoldAndWakesIt() {
        f.acquired(lock, OWNER);
        AtomicInteger woken = new AtomicInteger();
        Handoff.Offer offer = f.armedOffer(lock, WAITER, woken::incrementAndGet);
        f.redis.reply(RELEASE, List.of(2L, 0L));

        lock.release(OWNER);

        assertEquals(List.of(Long.toString(WATCHDOG_MS), "c1:7", "PUBLISH", "c1:9", Long.toString(WATCHDOG_MS), "1", "0"),
                f.redis.calls(RELEASE).get(0).args(), "the release names the waiter");
        assertNull(f.holds.get("orders", field));
        Hold waiters = f.holds.get("orders", "c1:9");
        assertNotNull(waiters);
        assertEquals(WAITER, waiters.ownerId());
        assertTrue(waiters.watchdog());
        assertTrue(f.holds.lastHold("orders", "c1:9"));
        assertEquals(GRANTED, LockFixture.state(offer));
        assertEquals(1, woken.get());
    }

    @Test
    void release_fairLockArmedOfferAndHandedOff_sendsWaitAndCandidateAndRegistersWaitersHold() {
        RedisLock fair = f.fair("orders");
        f.acquired(fair, OWNER);
        Handoff.Offer offer = f.armedOffer(fair, WAITER, () -> { });
        f.redis.reply(FAIR_RELEASE, List.of(2L, 0L));

        fair.release(OWNER);

        List<String> args = f.redis.calls(FAIR_RELEASE).get(0).args();
        assertEquals(List.of("300000", "c1:9", Long.toString(WATCHDOG_MS)), args.subList(4, 7));
        assertNull(f.holds.get("orders", field));
        assertNotNull(f.holds.get("orders", "c1:9"));
        assertEquals(GRANTED, LockFixture.state(offer));
    }

    @Test
    void release_ownerStillHoldsOtherAcquisitions_claimsNoOffer() {
        f.acquired(lock, OWNER);
        f.acquired(lock, OWNER);
        Handoff.Offer offer = f.armedOffer(lock, WAITER, () -> { });
        f.redis.reply(RELEASE, List.of(0L, 0L));

        lock.release(OWNER);

        assertEquals(3, f.redis.calls(RELEASE).get(0).args().size(), "an ordinary release");
        assertEquals(ARMED, LockFixture.state(offer));
    }

    @Test
    void release_claimedOfferButReleasedUnheard_reArmsOfferAndWakesWaiter() {
        f.acquired(lock, OWNER);
        AtomicInteger woken = new AtomicInteger();
        Handoff.Offer offer = f.armedOffer(lock, WAITER, woken::incrementAndGet);
        f.redis.reply(RELEASE, List.of(1L, 0L)); // another client's waiter listens: an ordinary release

        lock.release(OWNER);

        assertEquals(ARMED, LockFixture.state(offer));
        assertEquals(1, woken.get(), "the lock is free and nothing else tells the waiter");
        assertNull(f.holds.get("orders", "c1:9"));
    }

    @Test
    void release_claimedOfferAndReplyLost_reArmsOfferToResolveAndReportsHandOffReleaseLost() {
        f.acquired(lock, OWNER);
        AtomicInteger woken = new AtomicInteger();
        Handoff.Offer offer = f.armedOffer(lock, WAITER, woken::incrementAndGet);
        f.redis.fail(RELEASE, new RedisUnavailableException("command timed out"));

        assertThrows(RedisUnavailableException.class, () -> lock.release(OWNER));

        assertEquals(ARMED, LockFixture.state(offer));
        assertTrue(LockFixture.resolve(offer), "the waiter's next attempt resolves a transfer that may have landed");
        assertEquals(1, woken.get());
        assertEquals(List.of("replyLost orders hand-off release"), f.listener.starting("replyLost"));
        assertNull(f.holds.get("orders", "c1:9"));
    }

    @Test
    void release_claimedOfferAndRefusedBeforeSending_reArmsOfferWithoutResolve() {
        f.acquired(lock, OWNER);
        Handoff.Offer offer = f.armedOffer(lock, WAITER, () -> { });
        f.redis.fail(RELEASE, refusedBeforeSending());

        assertThrows(RedisUnavailableException.class, () -> lock.release(OWNER));

        assertEquals(ARMED, LockFixture.state(offer));
        assertFalse(LockFixture.resolve(offer));
        assertNotNull(f.holds.get("orders", field));
    }

    @Test
    void releaseAsync_handedOffToWaiterThatLeft_givesTheLockBack() {
        f.acquired(lock, OWNER);
        Handoff.Offer offer = f.armedOffer(lock, WAITER, () -> { });
        f.redis.hold(RELEASE).reply(RELEASE, List.of(1L, 0L));

        CompletableFuture<Void> released = lock.releaseAsync(OWNER);
        assertTrue(f.leaveClaimed(offer), "the waiter left while the claim was in flight");
        f.redis.pending(0).complete(List.of(2L, 0L));

        released.join();
        assertNull(f.holds.get("orders", "c1:9"), "no hold for a waiter that left");
        List<Invocation> releases = f.redis.calls(RELEASE);
        assertEquals(2, releases.size());
        assertEquals(List.of(Long.toString(WATCHDOG_MS), "c1:9", "PUBLISH"), releases.get(1).args(), "given back");
    }

    @Test
    void releaseAsync_handedOffToWaiterThatAbandonedTheClaim_registersNothingAndLeavesTheLockForItToTake() {
        f.acquired(lock, OWNER);
        AtomicInteger woken = new AtomicInteger();
        Handoff.Offer offer = f.armedOffer(lock, WAITER, woken::incrementAndGet);
        f.redis.hold(RELEASE);

        CompletableFuture<Void> released = lock.releaseAsync(OWNER);
        assertTrue(f.abandon(offer), "the waiter gave up on the claim and waits on, resolving");
        f.redis.pending(0).complete(List.of(2L, 0L));

        released.join();
        assertEquals(1, f.redis.calls(RELEASE).size(), "not given back: the waiter's next attempt takes it");
        assertNull(f.holds.get("orders", "c1:9"), "the waiter registers its hold when its attempt takes it");
        assertEquals(LANDED, LockFixture.state(offer));
        assertEquals(1, woken.get());
    }

    @Test
    void releaseAsync_handedOffToWaiterThatAlreadyHoldsByItsOwnAttempt_keepsTheWaitersOwnHold() {
        f.acquired(lock, OWNER);
        Handoff.Offer offer = f.armedOffer(lock, WAITER, () -> { });
        f.redis.hold(RELEASE);

        CompletableFuture<Void> released = lock.releaseAsync(OWNER);
        assertTrue(f.abandon(offer));
        Hold own = f.acquired(lock, WAITER); // its RESOLVE attempt found the transfer and registered it
        f.redis.pending(0).complete(List.of(2L, 0L));

        released.join();
        assertEquals(1, f.redis.calls(RELEASE).size(), "not given back");
        assertSame(own, f.holds.get("orders", "c1:9"), "the waiter's own hold stays");
        assertTrue(f.holds.lastHold("orders", "c1:9"), "counted once");
    }

    @Test
    void release_releasedUnheardWithoutClaim_wakesOneOfThisClientsParkedWaiters() {
        f.acquired(lock, OWNER);
        Channel entry = f.joined("redisson_lock__channel:{orders}");
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        assertFalse(entry.parkOrTake(first::incrementAndGet, entry.epoch()));
        assertFalse(entry.parkOrTake(second::incrementAndGet, entry.epoch()));
        f.redis.reply(RELEASE, List.of(1L, 0L)); // no subscriber heard the "0", this client's own included

        lock.release(OWNER);

        assertEquals(List.of(1, 0), List.of(first.get(), second.get()), "the longest-parked waiter, only");
    }

    @Test
    void release_releasedAndHeard_leavesWakingToTheMessage() {
        f.acquired(lock, OWNER);
        Channel entry = f.joined("redisson_lock__channel:{orders}");
        AtomicInteger parked = new AtomicInteger();
        assertFalse(entry.parkOrTake(parked::incrementAndGet, entry.epoch()));
        f.redis.reply(RELEASE, List.of(1L, 1L));

        lock.release(OWNER);

        assertEquals(0, parked.get());
    }

    @Test
    void release_freedLock_wakesArmedWaiterOfAnotherFamilyOnTheSameName() {
        f.acquired(lock, OWNER);
        AtomicInteger fairWaiter = new AtomicInteger();
        f.armedOffer(f.fair("orders"), WAITER, fairWaiter::incrementAndGet);
        f.redis.reply(RELEASE, List.of(1L, 1L));

        lock.release(OWNER);

        assertEquals(1, fairWaiter.get(), "no message of a reentrant release reaches a fair waiter's channel");
    }
}
