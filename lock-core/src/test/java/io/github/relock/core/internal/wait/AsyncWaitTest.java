package io.github.relock.core.internal.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.util.Args;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * The wait machine run asynchronously ({@link AsyncWait}): every event is driven by the test (a
 * manual timer, held attempt replies, messages delivered by hand), so each rule is one exact
 * interleaving, with no thread and no clock involved.
 */
class AsyncWaitTest {
    private final WaitFixture f = new WaitFixture();

    private CompletableFuture<Boolean> lockAsync(FakeLock lock, long owner, long waitMs) {
        CompletableFuture<Boolean> caller = new CompletableFuture<>();
        new AsyncWait<>(lock, f.ctx, waitMs, Args.TTL_WATCHDOG, owner, caller, ok -> ok).begin();
        return caller;
    }

    @Test
    void uncontended_completesTrue_withOneAttempt() {
        FakeLock lock = f.reentrant("a");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        assertTrue(w.join());
        assertEquals(1, lock.attemptCount());
        assertEquals(0, f.pubsub.subscribes.get());
    }

    @Test
    void busy_thenMessage_acquires_andLeavesTheChannel() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        assertFalse(w.isDone());
        assertTrue(f.parked(lock, 1), "parked on the channel after two attempts");
        assertEquals(2, lock.attemptCount());
        lock.free();
        f.publish(lock, "0");
        assertTrue(w.join());
        assertEquals(0, f.waiters.activeChannels());
        assertEquals(0, f.waiters.waiting());
    }

    @Test
    void parkTimerFires_attemptsAgain_withoutAnyMessage() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        assertEquals(1, f.timer.live().size(), "parked with a timer of the TTL it saw");
        assertEquals(30_000_000_000L, f.timer.live().get(0).delayNanos);
        lock.free(); // the key expired: nobody publishes
        f.timer.fireAll();
        assertTrue(w.join());
    }

    @Test
    void cancelledWhileParked_neverAcquires_leavesQueue() {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        w.cancel(false);
        assertEquals(List.of(1L), lock.giveUps);
        assertEquals(0, f.waiters.activeChannels());
        assertEquals(List.of(), f.timer.live(), "its timer is cancelled");
        lock.free();
        f.publish(lock, "0");
        assertEquals(null, lock.holder(), "nothing attempted after the caller left");
    }

    @Test
    void cancelledWhileItsAttemptIsOut_theAttemptLandsAndIsGivenBack() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        lock.holdAsync = true;
        lock.free();
        f.publish(lock, "0"); // the waiter's attempt goes out and is held
        assertEquals(1, lock.heldReplies.size());
        w.cancel(false);
        assertEquals(List.of(), lock.giveUps, "the queue is left only after the attempt in flight answered");
        lock.completeAsync(); // it acquires after the caller left
        assertEquals(List.of(1L), lock.givenBack, "an acquisition nobody wants is given back");
        assertEquals(null, lock.holder());
        assertThrows(CancellationException.class, w::join);
    }

    /** Owner 1 waits; its next attempt goes out and is held (not yet answered); then its caller cancels. */
    private FakeLock cancelledWithItsAttemptOut() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> old = lockAsync(lock, 1, Args.WAIT_FOREVER);
        lock.holdAsync = true;
        lock.free();
        f.publish(lock, "0");
        old.cancel(false);
        return lock;
    }

    @Test
    void cancelled_sameOwnerLocksAgain_itsFirstAttemptWaitsUntilTheOldAttemptAndItsGiveBackAreOver() {
        FakeLock lock = cancelledWithItsAttemptOut();
        CompletableFuture<Boolean> again = lockAsync(lock, 1, Args.WAIT_FOREVER); // the same thread calls again
        assertEquals(1, lock.heldReplies.size(), "nothing sent beside the cancelled wait's attempt in flight");
        CompletableFuture<Void> giveBackReply = new CompletableFuture<>();
        lock.giveBackReply = giveBackReply;
        lock.completeAsync(); // the old attempt lands after its caller left: given back
        assertEquals(List.of(1L), lock.givenBack);
        assertEquals(0, lock.heldReplies.size(), "the new call waits for the give-back's reply too");
        lock.holdAsync = false;
        giveBackReply.complete(null);
        assertTrue(again.isDone(), "then it attempts");
        assertTrue(again.getNow(false), "and acquires");
        assertEquals(1, lock.count);
    }

    @Test
    void cancelledBeforeItsTurn_aCallWaitingForItsOwnersPreviousWait_sendsNothing() {
        FakeLock lock = cancelledWithItsAttemptOut();
        int attempts = lock.attemptCount();
        CompletableFuture<Boolean> again = lockAsync(lock, 1, Args.WAIT_FOREVER);
        again.cancel(false);
        lock.holdAsync = false;
        lock.completeAsync();
        assertEquals(attempts + 1, lock.attemptCount(), "only the old attempt ran");
        assertEquals(0, lock.heldReplies.size());
        assertEquals(null, lock.holder());
        assertEquals(0, f.waiters.waiting());
    }

    @Test
    void anotherOwner_isNotHeldBack_byACancelledWaitOfAnother() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> old = lockAsync(lock, 1, Args.WAIT_FOREVER);
        lock.holdAsync = true;
        lock.free();
        f.publish(lock, "0");
        old.cancel(false);
        int attempts = lock.attemptCount();
        lock.holdAsync = false;
        CompletableFuture<Boolean> tryOther = new CompletableFuture<>();
        new AsyncWait<>(lock, f.ctx, Args.TRY_ONCE, Args.TTL_WATCHDOG, 2, tryOther, ok -> ok).begin();
        assertEquals(attempts + 1, lock.attemptCount(), "owner 2 attempts at once");
        assertTrue(tryOther.join());
        lock.completeAsync();
    }

    @Test
    void grantedWhileParked_completesWithoutAnAttempt() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("client:9");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        int attempts = lock.attemptCount();
        Handoff.Offer offer = f.handoff.claim(Handoff.line("RedisLock", "a"), true);
        assertEquals(lock.field(1), offer.field(), "an async waiter is handed off to, as a blocked thread is");
        lock.holdBy(lock.field(1));
        assertTrue(f.handoff.grant(offer));
        assertTrue(w.join());
        assertEquals(attempts, lock.attemptCount());
    }

    @Test
    void cancelledWhileClaimed_waitsForTheClaim_thenGivesTheGrantBack() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("client:9");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        Handoff.Offer offer = f.handoff.claim(Handoff.line("RedisLock", "a"), true);
        w.cancel(false);
        assertTrue(offer.settling, "the leaving waiter waits for the claim to be decided");
        lock.holdBy(lock.field(1));
        f.handoff.grant(offer);
        assertEquals(List.of(1L), lock.givenBack, "the lock handed to a caller who left goes back");
    }

    @Test
    void pickedByAMessage_thenLeaving_passesTheMessageOn() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> first = lockAsync(lock, 1, Args.WAIT_FOREVER);
        CompletableFuture<Boolean> second = lockAsync(lock, 2, Args.WAIT_FOREVER);
        assertTrue(f.parked(lock, 2));
        lock.holdAsync = true;
        lock.free();
        f.publish(lock, "0"); // picks the first; its attempt is held
        first.cancel(false);
        lock.completeAsync(); // the first's attempt lands (acquires) after its caller left: given back
        assertEquals(List.of(1L), lock.givenBack);
        // The first used the message to attempt, so nothing is passed on; a release message follows.
        lock.holdAsync = false;
        f.publish(lock, "0");
        assertTrue(second.join());
    }

    @Test
    void pickedByAMessage_leavingWithoutAttempting_passesItToTheNextWaiter() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> first = lockAsync(lock, 1, Args.WAIT_FOREVER);
        CompletableFuture<Boolean> second = lockAsync(lock, 2, Args.WAIT_FOREVER);
        assertTrue(f.parked(lock, 2));
        int attempts = lock.attemptCount();
        f.closed.set(true); // the first waiter, once woken, leaves without attempting
        f.publish(lock, "0"); // picks the first only
        assertThrows(ExecutionException.class, first::get);
        assertTrue(second.isDone(), "the message the first took and did not use reached the second");
        assertThrows(ExecutionException.class, second::get);
        assertEquals(attempts, lock.attemptCount());
    }

    @Test
    void subscriptionTimesOutAfterTheCallersTime_answersFalse() {
        f.pubsub.hold = true;
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        long start = System.nanoTime();
        CompletableFuture<Boolean> w = lockAsync(lock, 1, 50);
        assertEquals(1, f.timer.live().size(), "the subscription's timer");
        WaitFixture.await(() -> System.nanoTime() - start > 60_000_000L, () -> "the caller's 50 ms never passed");
        f.timer.fireAll();
        assertFalse(w.join());
    }

    @Test
    void laterAttemptFailsForWantOfRedis_retriedInResolveMode() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        synchronized (lock) {
            lock.free();
            lock.runThenLoseReply = true;
        }
        f.publish(lock, "0");
        assertFalse(w.isDone(), "waits out the outage pause");
        f.timer.fireAll();
        assertTrue(w.join());
        assertEquals(AttemptMode.RESOLVE, lock.lastMode());
        assertEquals(1, lock.holdCount());
    }

    @Test
    void firstAttemptFails_failsTheCaller() {
        FakeLock lock = f.reentrant("a");
        lock.failNext = new RedisUnavailableException("connection refused");
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        ExecutionException e = assertThrows(ExecutionException.class, w::get);
        assertInstanceOf(RedisUnavailableException.class, e.getCause());
    }

    @Test
    void callerValueThrows_theAcquisitionIsGivenBack() {
        FakeLock lock = f.reentrant("a");
        CompletableFuture<String> caller = new CompletableFuture<>();
        new AsyncWait<>(lock, f.ctx, Args.WAIT_FOREVER, Args.TTL_WATCHDOG, 1, caller, ok -> {
            throw new IllegalStateException("lease lost right after the grant");
        }).begin();
        assertThrows(Exception.class, caller::join);
        assertEquals(List.of(1L), lock.givenBack);
    }

    @Test
    void clientClosedWhileTheFirstAttemptIsOut_closeWaitsForIt_andItLeavesTheQueue() {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        lock.holdAsync = true;
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        f.closed.set(true);
        w.completeExceptionally(new IllegalStateException("closed")); // what close() does to every pending caller
        assertFalse(f.waiters.closeAll(0), "close() must wait for a wait whose first attempt is out: it may have queued");
        lock.completeAsync(); // the attempt queued the owner, and answers busy
        assertEquals(List.of(1L), lock.giveUps, "it leaves the queue");
        assertTrue(f.waiters.closeAll(0), "and then close() has nothing left to wait for");
        assertEquals(0, f.pubsub.subscribes.get());
    }

    @Test
    void clientClosedBeforeTheFirstAttempt_sendsNothing_andCloseHasNothingToWaitFor() {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        f.closed.set(true);
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        ExecutionException e = assertThrows(ExecutionException.class, w::get);
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(List.of(), lock.attempts);
        assertEquals(List.of(), lock.giveUps, "nothing sent: nothing to leave");
        assertTrue(f.waiters.closeAll(0));
    }

    @Test
    void tryOnce_isNotWaitedFor_itNeverQueues() {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        lock.holdAsync = true;
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.TRY_ONCE);
        assertTrue(f.waiters.closeAll(0), "a single try's attempt never queues: close() need not wait for it");
        lock.completeAsync();
        assertFalse(w.join());
        assertEquals(List.of(), lock.giveUps);
    }

    @Test
    void clientClosed_timerRefuses_waitEndsWithTheClosedError() {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        f.closed.set(true);
        f.timer.closed = true;
        CompletableFuture<Boolean> w = lockAsync(lock, 1, Args.WAIT_FOREVER);
        ExecutionException e = assertThrows(ExecutionException.class, w::get);
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(0, f.waiters.waiting());
    }
}
