package io.github.relock.core.internal.wait;

import static io.github.relock.core.internal.wait.WaitFixture.await;
import static io.github.relock.core.internal.wait.WaitFixture.onThread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.util.Args;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The wait machine run blocking ({@link BlockingWait}) against an in-memory lock, without Redis. */
class BlockingWaitTest {
    private final WaitFixture f = new WaitFixture();

    private boolean lock(FakeLock lock, long owner, long waitMs) throws InterruptedException {
        return new BlockingWait(lock, f.ctx, waitMs, Args.TTL_WATCHDOG, owner, true).run();
    }

    private CompletableFuture<Boolean> lockOnThread(FakeLock lock, long owner, long waitMs) {
        return onThread("waiter-" + owner, () -> lock(lock, owner, waitMs));
    }

    @Test
    void uncontended_acquiresWithOneAttempt_subscribesNothing() throws Exception {
        FakeLock lock = f.reentrant("a");
        assertTrue(lock(lock, 1, Args.WAIT_FOREVER));
        assertEquals(List.of(AttemptMode.QUEUE), lock.attempts);
        assertEquals(0, f.pubsub.subscribes.get());
        assertEquals(0, f.waiters.waiting());
    }

    @Test
    void tryOnce_busy_answersFalseWithoutJoiningOrGivingUp() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        assertFalse(lock(lock, 1, Args.TRY_ONCE));
        assertEquals(List.of(AttemptMode.TRY), lock.attempts);
        assertEquals(0, f.pubsub.subscribes.get());
        assertEquals(List.of(), lock.giveUps);
    }

    @Test
    void busy_thenReleaseMessage_acquiresWithTheAttemptAfterIt() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> f.parked(lock, 1), () -> "the waiter never parked");
        assertEquals(2, lock.attemptCount(), "the first attempt, and one after the subscription was confirmed");
        lock.free();
        f.publish(lock, "0");
        assertTrue(w.get(10, TimeUnit.SECONDS));
        assertEquals(3, lock.attemptCount());
        await(() -> f.waiters.waiting() == 0 && f.waiters.activeChannels() == 0, () -> "the waiter did not leave");
    }

    @Test
    void cancelledAsyncCall_sameOwnerLocksBlocking_attemptsOnlyOnceTheOldAttemptAnswered() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> old = new CompletableFuture<>();
        new AsyncWait<>(lock, f.ctx, Args.WAIT_FOREVER, Args.TTL_WATCHDOG, 1, old, ok -> ok).begin();
        lock.holdAsync = true;
        lock.free();
        f.publish(lock, "0"); // the async wait's attempt goes out and is held
        old.cancel(false);
        lock.holdAsync = false;
        CompletableFuture<Boolean> again = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                again.complete(lock(lock, 1, Args.WAIT_FOREVER)); // the same owner (thread id) locks again
            } catch (Throwable e) {
                again.completeExceptionally(e);
            }
        }, "waiter-again");
        t.setDaemon(true);
        t.start();
        await(() -> again.isDone() || t.getState() == Thread.State.TIMED_WAITING, () -> "the blocking call never waited");
        assertFalse(again.isDone(), "it waits for the cancelled wait, not beside its attempt in flight (the lock is free)");
        lock.completeAsync(); // the old attempt lands after its caller left: given back; the old wait is over
        assertTrue(again.get(10, TimeUnit.SECONDS), "then it attempts, and acquires");
        assertEquals(List.of(1L), lock.givenBack);
        assertEquals(1, lock.count);
    }

    @Test
    void channelAlreadySubscribed_firstAttemptStands_parksAfterOneAttempt() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> first = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> f.parked(lock, 1), () -> "the first waiter never parked");
        int before = lock.attemptCount();
        CompletableFuture<Boolean> second = lockOnThread(lock, 2, Args.WAIT_FOREVER);
        await(() -> f.parked(lock, 2), () -> "the second waiter never parked");
        assertEquals(before + 1, lock.attemptCount(), "a waiter joining a live channel attempts once before parking");
        lock.free();
        f.publish(lock, "0");
        await(() -> first.isDone() || second.isDone(), () -> "nobody was woken");
        lock.release(lock.holder());
        f.publish(lock, "0");
        assertTrue(first.get(10, TimeUnit.SECONDS));
        assertTrue(second.get(10, TimeUnit.SECONDS));
    }

    @Test
    void timedWait_runsOut_answersFalse_leavesQueueAndChannel() throws Exception {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        assertFalse(lock(lock, 1, 50));
        assertEquals(List.of(1L), lock.giveUps, "a fair waiter leaves the queue before it returns");
        assertEquals(0, f.waiters.waiting());
        assertEquals(0, f.waiters.activeChannels());
    }

    @Test
    void messageLost_parkIsBoundedByTheTtlTheAttemptSaw() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.ttlMs = 20; // the holder's key expires in 20 ms; nobody publishes
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> f.parked(lock, 1), () -> "never parked");
        lock.free();
        assertTrue(w.get(10, TimeUnit.SECONDS), "the waiter attempts again once the TTL it saw has passed");
    }

    @Test
    void subscriptionNeverConfirmed_failsWithRedisUnavailable_leavesQueue() {
        WaitFixture slow = new WaitFixture(true, 50, 1_000);
        slow.pubsub.hold = true;
        FakeLock lock = slow.fair("a");
        lock.holdBy("other:1");
        RedisUnavailableException e = assertThrows(RedisUnavailableException.class,
                () -> new BlockingWait(lock, slow.ctx, Args.WAIT_FOREVER, Args.TTL_WATCHDOG, 1, true).run());
        assertTrue(e.getMessage().contains("not confirmed within 50 ms"), e.getMessage());
        assertEquals(List.of(1L), lock.giveUps);
    }

    /**
     * A runner's subscription timer starts from a clock read taken before the budget's, so when the
     * caller's deadline cut the budget it can fire just before that deadline (by as long as the
     * thread was descheduled between the two reads): that is the caller's time running out, and a
     * timed wait answers false, not "subscription not confirmed".
     */
    @Test
    void subscriptionCutToTheCallersDeadline_timerFiresJustBeforeIt_answersFalseNotUnavailable() {
        WaitFixture slow = new WaitFixture(true, 60_000, 1_000);
        slow.pubsub.hold = true;
        FakeLock lock = slow.reentrant("a");
        lock.holdBy("other:1");
        Wait w = new Wait(lock, slow.ctx, 10_000, Args.TTL_WATCHDOG, 1) {
            @Override
            void wake() {
            }
        };
        assertEquals(Wait.Next.ATTEMPT, w.start());
        w.sending();
        assertEquals(Wait.Next.SUBSCRIBE, w.attempted(lock.attempt(Args.TTL_WATCHDOG, 1, w.mode), null));
        assertTrue(w.subscribeBudgetNanos() <= TimeUnit.SECONDS.toNanos(10), "the caller's 10 s cut the 60 s budget");
        // the timer fires now, well before the caller's deadline, as a descheduled runner's would
        assertEquals(Wait.Next.FINISH, w.subscribed(null, true));
        assertEquals(null, w.error, "a timed wait whose time ran out answers false");
        assertFalse(w.acquired);
        w.done();
    }

    @Test
    void subscriptionFails_throwsItsCause() {
        f.pubsub.failWith = new RedisUnavailableException("pub/sub connection refused");
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        RedisUnavailableException e = assertThrows(RedisUnavailableException.class, () -> lock(lock, 1, Args.WAIT_FOREVER));
        assertEquals("pub/sub connection refused", e.getMessage());
        assertEquals(0, f.waiters.activeChannels());
    }

    @Test
    void subscriptionRefused_pollsEachParkBoundedByTheTtlItSaw_andTakesTheLockOnceFree() throws Exception {
        f.pubsub.failWith = new RedisErrorException("NOPERM this user has no permissions to run the 'subscribe'"
                + " command", null);
        FakeLock lock = f.reentrant("a");
        lock.ttlMs = 50; // what the holder's key shows: each park of the polling waiter is at most this
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> {
            synchronized (lock) {
                return lock.attempts.size() >= 4;
            }
        }, () -> "the refused waiter stopped attempting");
        assertFalse(w.isDone(), "no message can come, so it keeps polling");
        lock.free();
        assertTrue(w.get(10, TimeUnit.SECONDS), "it takes the lock at its next poll, no message needed");
        assertEquals(0, f.waiters.activeChannels(), "the refused channel's entry is gone");
    }

    @Test
    void firstAttemptFails_throwsAtOnce_andLeavesTheQueue() {
        FakeLock lock = f.fair("a");
        lock.failNext = new RedisUnavailableException("connection refused");
        assertThrows(RedisUnavailableException.class, () -> lock(lock, 1, Args.WAIT_FOREVER));
        assertEquals(List.of(1L), lock.giveUps, "the attempt may have queued before it failed");
    }

    @Test
    void laterAttemptReplyLost_retriedInResolveMode_countedOnce() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> f.parked(lock, 1), () -> "never parked");
        synchronized (lock) {
            lock.free();
            lock.runThenLoseReply = true; // the woken waiter's attempt acquires, its reply is lost
        }
        f.publish(lock, "0");
        assertTrue(w.get(10, TimeUnit.SECONDS));
        assertEquals(AttemptMode.RESOLVE, lock.lastMode(), "the retry must not count the lost acquisition twice");
        assertEquals(1, lock.holdCount(), "Redis counts one hold, as the caller does");
    }

    @Test
    void readHolderAsksForTheWriteLock_lockFailsAtOnce_tryLockFalse_timedWaitFalseAfterItsTime() throws Exception {
        FakeLock lock = f.write("a");
        lock.refuse = true;
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class,
                () -> lock(lock, 1, Args.WAIT_FOREVER));
        assertTrue(e.getMessage().contains("cannot be upgraded"), e.getMessage());
        assertFalse(lock(lock, 1, Args.TRY_ONCE));
        long start = System.nanoTime();
        assertFalse(lock(lock, 1, 100));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(95), "answered before its time ran out");
    }

    @Test
    void nonReentrantHolderAsksAgain_refusedAtOnce() {
        FakeLock lock = f.reentrant("a");
        lock.refuse = false;
        assertThrows(IllegalMonitorStateException.class, () -> lock(lock, 1, 10_000));
    }

    @Test
    void handOffGranted_wakesTheWaiterAsOwner_withoutAnAttempt() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("client:9");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> f.parked(lock, 1), () -> "never parked");
        int attempts = lock.attemptCount();
        Handoff.Offer offer = f.handoff.claim(Handoff.line("RedisLock", "a"), true);
        assertEquals(lock.field(1), offer.field(), "the parked waiter's offer is armed and claimable");
        lock.holdBy(lock.field(1)); // the release script names the waiter
        assertTrue(f.handoff.grant(offer));
        assertTrue(w.get(10, TimeUnit.SECONDS));
        assertEquals(attempts, lock.attemptCount(), "a granted waiter sends no attempt");
        assertEquals(lock.field(1), f.handoff.heldLocally(Handoff.line("RedisLock", "a")),
                "the line remembers the holder a transfer made, for the next waiter's local queueing");
    }

    @Test
    void handOffReplyLost_waiterResolvesWithItsNextAttempt_holdsOnce() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("client:9");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> f.parked(lock, 1), () -> "never parked");
        Handoff.Offer offer = f.handoff.claim(Handoff.line("RedisLock", "a"), true);
        lock.holdBy(lock.field(1)); // the transfer landed, but its reply was lost
        f.handoff.unclaim(offer, Handoff.Unclaim.UNKNOWN);
        assertTrue(w.get(10, TimeUnit.SECONDS));
        assertEquals(AttemptMode.RESOLVE, lock.lastMode());
        assertEquals(1, lock.holdCount(), "the landed transfer is the waiter's one hold");
    }

    @Test
    void claimedWhenItsTimeRunsOut_waitsForTheClaim_andTakesTheGrant() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("client:9");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, 300);
        await(() -> f.parked(lock, 1), () -> "never parked");
        Handoff.Offer offer = f.handoff.claim(Handoff.line("RedisLock", "a"), true);
        // The waiter's time runs out while the releaser's script is in flight: it waits for the claim.
        await(() -> offer.settling, () -> "the waiter did not wait for the claim's decision");
        assertFalse(w.isDone());
        lock.holdBy(lock.field(1));
        assertTrue(f.handoff.grant(offer));
        assertTrue(w.get(10, TimeUnit.SECONDS), "a grant that lands as the time runs out is taken");
        assertEquals(List.of(), lock.giveUps);
    }

    @Test
    void interrupted_interruptibleWaitThrows_andLeavesQueue() throws Exception {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        Thread[] t = new Thread[1];
        CompletableFuture<Boolean> w = onThread("waiter-int", () -> {
            t[0] = Thread.currentThread();
            return lock(lock, 1, Args.WAIT_FOREVER);
        });
        await(() -> f.parked(lock, 1), () -> "never parked");
        t[0].interrupt();
        ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(10, TimeUnit.SECONDS));
        assertInstanceOf(InterruptedException.class, e.getCause());
        assertEquals(List.of(1L), lock.giveUps);
    }

    @Test
    void interrupted_uninterruptibleWaitGoesOn_andRestoresTheStatus() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        Thread[] t = new Thread[1];
        CompletableFuture<Boolean> w = onThread("waiter-unint", () -> {
            t[0] = Thread.currentThread();
            boolean ok = new BlockingWait(lock, f.ctx, Args.WAIT_FOREVER, Args.TTL_WATCHDOG, 1, false).run();
            return ok && Thread.currentThread().isInterrupted();
        });
        await(() -> f.parked(lock, 1), () -> "never parked");
        t[0].interrupt();
        await(() -> f.parked(lock, 1) && t[0].getState() != Thread.State.RUNNABLE, () -> "did not park again");
        lock.free();
        f.publish(lock, "0");
        assertTrue(w.get(10, TimeUnit.SECONDS), "acquired, with the interrupt status restored");
    }

    @Test
    void clientClosed_wakesTheWaiter_whichFails_leavingTheQueue() throws Exception {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> f.parked(lock, 1), () -> "never parked");
        f.closed.set(true);
        assertTrue(f.waiters.closeAll(TimeUnit.SECONDS.toNanos(10)), "close() waits for every wait to finish");
        ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(List.of(1L), lock.giveUps, "the queue entry is gone before close() returns");
    }

    @Test
    void clientClosedWhileTheFirstAttemptIsOut_closeWaitsForIt_andItLeavesTheQueue() throws Exception {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        CompletableFuture<Void> reply = new CompletableFuture<>();
        lock.holdSync = reply;
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> lock.syncHeld.get() == 1, () -> "the first attempt never went out");
        f.closed.set(true);
        assertFalse(f.waiters.closeAll(0), "close() must wait for a wait whose first attempt is out: it may have queued");
        reply.complete(null); // the attempt queued the owner, and answers busy
        assertTrue(f.waiters.closeAll(TimeUnit.SECONDS.toNanos(10)), "close() waits for every wait to finish");
        synchronized (lock) {
            assertEquals(List.of(1L), lock.giveUps, "the queue entry is gone before close() returns");
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(0, f.pubsub.subscribes.get(), "a wait that sees its client closed subscribes nothing");
    }

    @Test
    void clientClosedBeforeTheFirstAttempt_sendsNothing_andCloseHasNothingToWaitFor() {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        f.closed.set(true);
        assertThrows(IllegalStateException.class, () -> lock(lock, 1, Args.WAIT_FOREVER));
        assertEquals(List.of(), lock.attempts);
        assertEquals(List.of(), lock.giveUps, "nothing sent: nothing to leave");
        assertTrue(f.waiters.closeAll(0));
    }

    @Test
    void everyEnd_finishesTheWait_soCloseHasNothingLeftToWaitFor() throws Exception {
        FakeLock lock = f.fair("a");
        assertTrue(lock(lock, 1, Args.WAIT_FOREVER), "uncontended");
        assertTrue(f.waiters.closeAll(0), "after an uncontended acquisition");
        lock.free();
        lock.holdBy("other:1");
        assertFalse(lock(lock, 2, 20), "timed out");
        assertTrue(f.waiters.closeAll(0), "after a timed-out wait");
        lock.failNext = new RedisUnavailableException("injected");
        assertThrows(RedisUnavailableException.class, () -> lock(lock, 3, Args.WAIT_FOREVER));
        assertTrue(f.waiters.closeAll(0), "after a failed first attempt");
    }

    @Test
    void tryOnce_isNotWaitedFor_itNeverQueues() throws Exception {
        FakeLock lock = f.fair("a");
        lock.holdBy("other:1");
        CompletableFuture<Void> reply = new CompletableFuture<>();
        lock.holdSync = reply;
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.TRY_ONCE);
        await(() -> lock.syncHeld.get() == 1, () -> "the attempt never went out");
        assertTrue(f.waiters.closeAll(0), "a single try's attempt never queues: close() need not wait for it");
        reply.complete(null);
        assertFalse(w.get(10, TimeUnit.SECONDS));
        assertEquals(List.of(), lock.giveUps);
    }

    @Test
    void spinLock_pollsWithBackOff_untilFree_withoutAnyChannel() throws Exception {
        FakeLock lock = f.spin("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = lockOnThread(lock, 1, Args.WAIT_FOREVER);
        await(() -> lock.attemptCount() >= 3, () -> "the spin waiter does not poll");
        assertEquals(1, f.waiters.waiting(), "a spin waiter counts as waiting");
        lock.free();
        assertTrue(w.get(10, TimeUnit.SECONDS));
        assertEquals(0, f.pubsub.subscribes.get());
        assertEquals(0, f.waiters.waiting());
    }

    @Test
    void handOffOff_noOfferIsPosted() throws Exception {
        WaitFixture off = new WaitFixture(false, 2_000, 1_000);
        FakeLock lock = off.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = onThread("waiter-off",
                () -> new BlockingWait(lock, off.ctx, Args.WAIT_FOREVER, Args.TTL_WATCHDOG, 1, true).run());
        await(() -> off.parked(lock, 1), () -> "never parked");
        assertEquals(null, off.handoff.claim(Handoff.line("RedisLock", "a"), true));
        lock.free();
        off.publish(lock, "0");
        assertTrue(w.get(10, TimeUnit.SECONDS));
    }
}
