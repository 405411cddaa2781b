package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.api.ReleaseOutcome;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 12: cancellation, timeouts, partial failure and close never leave a lock behind. The
 * rules use a {@link FaultInjectingDriver} around the driver under test to delay, drop and fail
 * replies at chosen points. After every rule, besides the chapter's hygiene (no key, no channel):
 * no driver future is left pending, and clients the rule closes itself report no hold they still
 * had registered ({@link #assertNoHoldOnClose}).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("cancellation")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL,
        because = "engine: FaultInjectingDriver injects the faults around the driver, and the rules check "
        + "lock-core's answer to them")
public abstract class CancellationChapter extends TckChapter {
    private static final Duration SHORT_WATCHDOG = Duration.ofMillis(1000);
    private static final Duration DEADLINE = Duration.ofSeconds(15);

    /** The faults of this rule's faulty clients. */
    protected final Faults faults = new Faults();

    /** @param kit the enclosing kit */
    protected CancellationChapter(DriverKit kit) {
        super(kit);
    }

    @AfterEach
    void noPendingDriverFuture() {
        faults.clear();
        Await.until(DEADLINE, () -> faults.pendingFutures() == 0,
                () -> faults.pendingFutures() + " driver future(s) still pending after the rule");
    }

    private LockClient faulty() {
        return faulty(LockOptions.defaults());
    }

    private LockClient faulty(LockOptions options) {
        return kit.newFaultyLockClient(options, faults);
    }

    private static LockOptions watchdog(Duration d) {
        return LockOptions.builder().lockWatchdogTimeout(d).build();
    }

    private boolean exists(String key) {
        return Long.valueOf(1).equals(redis("EXISTS", key));
    }

    private void awaitGone(String key, String why) {
        Await.until(DEADLINE, () -> !exists(key), () -> key + " still exists: " + why);
    }

    private void awaitWaiting(String channel) {
        Await.until(DEADLINE, () -> channels().contains(channel), () -> "nobody ever waited on " + channel);
    }

    /**
     * Closes {@code c} and asserts it still had no hold registered. First waits until every command
     * the rule's faulty clients sent has answered: a key Redis already deleted is taken off the
     * registry when the release's reply is processed, a moment later.
     */
    protected void assertNoHoldOnClose(LockClient c) {
        Await.until(DEADLINE, () -> faults.pendingFutures() == 0,
                () -> faults.pendingFutures() + " driver future(s) still pending before close");
        // A give-back may still be on its way with no driver future pending (where writes wait for
        // replicas, it first learns the node's replica count): wait for the client's own books.
        Await.until(DEADLINE, () -> c.heldLocks().isEmpty(),
                () -> "the client still keeps holds it gave back or never owned: " + c.heldLocks());
        List<LockLostEvent> events = new CopyOnWriteArrayList<>();
        c.addLockLostListener(events::add);
        c.close();
        assertEquals(List.of(), events, "the client still had holds registered when closed");
    }

    /** Asserts a third client can take {@code name} (then gives it back). */
    private void assertFreeForOthers(String name) throws InterruptedException {
        DistributedLock other = client().getLock(name);
        assertTrue(other.tryLock(10, TimeUnit.SECONDS), name + " is still held by a caller who left");
        other.unlock();
    }

    // ------------------------------------------------------------------ item 1: cancelled acquires

    /**
     * Rule 12.1: a {@code lockAsync()} cancelled while waiting never takes the lock later. When it
     * fails: the future the caller cancelled is not the one the engine watches (a derived future),
     * so the waiter keeps waiting, acquires on the next unlock and is renewed forever.
     */
    @Test
    void rule12_1_lockAsyncCancelledWhileWaiting_neverTakesTheLock() throws Exception {
        DistributedLock holder = client().getLock("tck:cancel");
        holder.lock();
        LockClient waiter = faulty();
        CompletableFuture<Void> f = waiter.getLock("tck:cancel").lockAsync();
        awaitWaiting("redisson_lock__channel:{tck:cancel}");
        assertTrue(f.cancel(true));
        assertTrue(f.isCancelled());
        holder.unlock();
        assertFreeForOthers("tck:cancel");
        assertNoHoldOnClose(waiter);
    }

    /**
     * Rule 12.2: {@code orTimeout} on {@code tryLockAsync(wait)} and a cancelled lease
     * {@code acquireAsync} behave like a cancel: nothing is held afterwards.
     * When it fails: {@code orTimeout} and a cancelled lease future must reach the wait core runs,
     * not a future derived from it; an acquisition landing afterwards must be given back.
     */
    @Test
    void rule12_2_orTimeoutAndCancelledLeaseAcquire_leaveNothingHeld() throws Exception {
        DistributedLock holder = client().getLock("tck:timeout");
        holder.lock();
        LockClient waiter = faulty();
        CompletableFuture<Boolean> timed = waiter.getLock("tck:timeout").tryLockAsync(60, TimeUnit.SECONDS)
                .orTimeout(300, TimeUnit.MILLISECONDS);
        ExecutionException e = assertThrows(ExecutionException.class, () -> timed.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof TimeoutException, "expected the caller's timeout, got " + e.getCause());
        CompletableFuture<LockLease> lease = waiter.getLock("tck:timeout").acquireAsync(Duration.ofSeconds(60), null);
        assertTrue(lease.cancel(false));
        holder.unlock();
        assertFreeForOthers("tck:timeout");
        assertNoHoldOnClose(waiter);
    }

    /**
     * Rule 12.3: a cancelled fair waiter leaves the queue at once, while the lock is still held.
     * When it fails: the cancel reaches the waiter only at its next poll (up to a third of
     * fairLockWaitTimeout), or never.
     */
    @Test
    void rule12_3_fairWaiterCancelled_leavesQueueWhileLockStillHeld() {
        DistributedLock holder = client().getFairLock("tck:fcancel");
        holder.lock();
        LockClient waiter = faulty();
        CompletableFuture<Void> f = waiter.getFairLock("tck:fcancel").lockAsync();
        Await.until(DEADLINE, () -> (Long) redis("LLEN", "redisson_lock_queue:{tck:fcancel}") == 1,
                () -> "the waiter never queued");
        f.cancel(false);
        Await.until(DEADLINE, () -> (Long) redis("LLEN", "redisson_lock_queue:{tck:fcancel}") == 0
                        && (Long) redis("ZCARD", "redisson_lock_timeout:{tck:fcancel}") == 0,
                () -> "the cancelled waiter is still queued: " + redis("LRANGE", "redisson_lock_queue:{tck:fcancel}", "0", "-1"));
        assertTrue(exists("tck:fcancel"), "the holder lost the lock");
        holder.unlock();
        assertNoHoldOnClose(waiter);
    }

    /**
     * Rule 12.4: an acquisition whose reply lands after the caller cancelled is given back at once.
     * When it fails: the engine completes a future nobody holds and keeps (and renews) the lock.
     */
    @Test
    void rule12_4_acquisitionLandingAfterCancel_isGivenBack() {
        LockClient c = faulty();
        Faults.Gate gate = faults.on("lock-acquire").delayReply();
        CompletableFuture<Void> f = c.getLock("tck:late").lockAsync();
        Await.until(DEADLINE, () -> exists("tck:late"), () -> "the acquire never ran");
        assertTrue(f.cancel(false));
        gate.release();
        awaitGone("tck:late", "an acquisition that landed after the cancel was kept");
        assertNoHoldOnClose(c);
    }

    /**
     * Rule 12.26: a client closed while it gives back an acquisition that landed after its caller
     * left reports no lost lock: nobody held it. The give-back's release has run in Redis and its
     * reply is held back while {@code close()} runs; no {@link LockLostEvent} may reach the
     * client's listeners.
     * When it fails: {@code close()} reports every hold still registered as lost
     * ({@code CLIENT_CLOSED}), and a hold on its way back has no owner to tell: the engine must
     * know a hold it is giving back from one an owner keeps (look at where a give-back starts).
     */
    @Test
    void rule12_26_closeWhileGivingBack_reportsNoLoss() {
        LockClient c = faulty();
        List<LockLostEvent> events = new CopyOnWriteArrayList<>();
        c.addLockLostListener(events::add);
        Faults.Gate acquire = faults.on("lock-acquire").delayReply();
        Faults.Gate release = faults.on("lock-release").delayReply();
        CompletableFuture<Void> f = c.getLock("tck:late-close").lockAsync();
        Await.until(DEADLINE, () -> exists("tck:late-close"), () -> "the acquire never ran");
        assertTrue(f.cancel(false));
        acquire.release();
        // the give-back's release ran in Redis; only its reply is held back while close() runs
        awaitGone("tck:late-close", "the acquisition that landed after the cancel was never given back");
        c.close();
        release.release();
        assertEquals(List.of(), events, "close() reported a lock nobody held (its give-back was on its way)");
    }

    /**
     * Rule 12.5: a MultiLock {@code lockAsync()} cancelled while one member is held elsewhere
     * releases what it took and never keeps the rest: an attempt already sent when the cancel came
     * may win that member as its holder lets go, and gives it back at once; none is sent after.
     * When it fails: a cancelled multi-lock must give back every member it took and send no attempt
     * after the cancel: look at the cancel path of the multi-lock's attempt.
     */
    @Test
    void rule12_5_multiLockAsyncCancelled_everyMemberFree() throws Exception {
        DistributedLock holder = client().getLock("tck:m2");
        holder.lock();
        LockClient c = faulty();
        DistributedLock multi = c.getMultiLock(c.getLock("tck:m1"), c.getLock("tck:m2"));
        CompletableFuture<Void> f = multi.lockAsync();
        Await.until(DEADLINE, () -> exists("tck:m1"), () -> "the multi-lock never took its first member");
        assertTrue(f.cancel(false));
        holder.unlock(); // at once: an attempt that outlived its cancel would now take m2 too
        awaitGone("tck:m1", "a cancelled multi-lock kept its first member");
        // An attempt already on the wire when the cancel came may still win m2 (another connection's
        // unlock can reach Redis first); it must be given back at once, and nothing may take it after.
        // The late grant may land after a first look finds m2 free, so judge the outcome: m2 ends up
        // free and stays free for 2 s before the deadline. A cancelled attempt that kept retrying,
        // or kept a late grant, would keep m2 taken until the deadline.
        long[] lastSeen = {System.nanoTime()};
        Await.until(DEADLINE, () -> {
            if (exists("tck:m2")) {
                lastSeen[0] = System.nanoTime();
            }
            return System.nanoTime() - lastSeen[0] >= Duration.ofSeconds(2).toNanos();
        }, () -> "a cancelled multi-lock kept or took its second member: still held within the last 2 s");
        assertFreeForOthers("tck:m1");
        assertFreeForOthers("tck:m2");
        assertNoHoldOnClose(c);
    }

    // ------------------------------------------------------------------ item 2: unknown outcomes

    /**
     * Rule 12.6: a re-entry whose reply was lost after it ran (Redis count 2, engine count 1) does
     * not keep the lock after the holder's last unlock: it is no longer renewed and expires within
     * the watchdog timeout. When it fails: the hold stays registered and is renewed forever.
     */
    @Test
    void rule12_6_reentryWithLostReply_expiresAfterLastUnlock() throws Exception {
        DistributedLock lock = faulty(watchdog(SHORT_WATCHDOG)).getLock("tck:ghost");
        lock.lock();
        faults.on("lock-acquire").failAfterRun();
        assertThrows(RedisUnavailableException.class, lock::lock);
        List<?> hash = (List<?>) redis("HVALS", "tck:ghost");
        assertEquals(List.of("2"), hash, "the lost re-entry should have run on Redis");
        lock.unlock();
        awaitGone("tck:ghost", "a stray re-entry count is renewed forever");
        assertFreeForOthers("tck:ghost");
    }

    /**
     * Rule 12.7: a first acquisition whose reply was lost is never renewed: the key expires within
     * the watchdog.
     * When it fails: an acquisition whose reply was lost is not the caller's hold: it must not be
     * registered, so nothing renews the key.
     */
    @Test
    void rule12_7_acquireWithLostReply_expiresWithinWatchdog() throws Exception {
        DistributedLock lock = faulty(watchdog(SHORT_WATCHDOG)).getLock("tck:ghost1");
        faults.on("lock-acquire").failAfterRun();
        assertThrows(RedisUnavailableException.class, lock::lock);
        assertTrue(exists("tck:ghost1"), "the lost acquisition should have run on Redis");
        awaitGone("tck:ghost1", "an acquisition nobody knows of is renewed");
        assertFreeForOthers("tck:ghost1");
    }

    // ------------------------------------------------------------------ item 3: failed releases

    /**
     * Rule 12.8: a {@code LockLease.close()} whose release failed says so, turns invalid, and can
     * be retried; a lease never retried expires within the watchdog. When it fails: the first
     * failure marked the lease released, so the retry does nothing and renewal goes on forever.
     */
    @Test
    void rule12_8_leaseCloseFailed_retryReleases_orKeyExpires() throws Exception {
        LockClient c = faulty(watchdog(SHORT_WATCHDOG));
        LockLease lease = c.getLock("tck:close").acquire(Duration.ofSeconds(5));
        faults.on("lock-release").failBeforeSend();
        assertThrows(RedisUnavailableException.class, lease::close);
        assertFalse(lease.isValid(), "a lease whose release failed still says it is valid");
        lease.close();
        assertFalse(exists("tck:close"), "the retried close did not release the lock");

        LockLease abandoned = c.getLock("tck:close2").acquire(Duration.ofSeconds(5));
        faults.on("lock-release").failBeforeSend();
        assertThrows(RedisUnavailableException.class, abandoned::close);
        awaitGone("tck:close2", "a lease whose release failed is still renewed");
        assertNoHoldOnClose(c);
    }

    /**
     * Rule 12.9: the same for a MultiLock lease: the retry releases the members the failure left.
     * When it fails: a multi-lock lease's {@code close()} must remember which members are still
     * held and release them when it is called again.
     */
    @Test
    void rule12_9_multiLeaseCloseFailed_retryReleasesTheRest() throws Exception {
        LockClient c = faulty(watchdog(SHORT_WATCHDOG));
        LockLease lease = c.getMultiLock(c.getLock("tck:ml1"), c.getLock("tck:ml2")).acquire(Duration.ofSeconds(5));
        faults.on("lock-release").skip(1).failBeforeSend();
        assertThrows(RedisUnavailableException.class, lease::close);
        assertFalse(lease.isValid());
        lease.close();
        assertFalse(exists("tck:ml1") || exists("tck:ml2"), "the retried close left a member held");
        assertNoHoldOnClose(c);
    }

    // ------------------------------------------------------------------ item 4: sync fair first attempt

    /**
     * Rule 12.10: a sync fair {@code tryLock(wait)} whose first attempt failed after it queued on
     * Redis leaves the queue before it throws.
     * When it fails: a blocking fair wait whose first attempt failed after it queued must leave the
     * queue (the give-up script) before it throws.
     */
    @Test
    void rule12_10_syncFairFirstAttemptFailsAfterQueueing_leavesQueue() {
        DistributedLock holder = client().getFairLock("tck:ffirst");
        holder.lock();
        DistributedLock fair = faulty().getFairLock("tck:ffirst");
        faults.on("fair-acquire").failAfterRun();
        assertThrows(RedisUnavailableException.class, () -> fair.tryLock(5, TimeUnit.SECONDS));
        assertEquals(0L, redis("LLEN", "redisson_lock_queue:{tck:ffirst}"), "a failed first attempt stayed queued");
        assertEquals(0L, redis("ZCARD", "redisson_lock_timeout:{tck:ffirst}"));
        holder.unlock();
    }

    // ------------------------------------------------------------------ item 5: multi and red locks

    /**
     * Rule 12.11: an interrupt that arrives while a MultiLock's last member is being granted never
     * leaves members held: the call either throws InterruptedException with every member free, or
     * returns true holding all of them.
     * When it fails: an interrupt during the last member's grant must either give back every member
     * or complete the acquisition: look at how the multi-lock handles an interrupt between an
     * attempt and its reply.
     */
    @Test
    void rule12_11_multiLockInterruptedAsLastMemberLands_nothingLeftBehind() throws Exception {
        LockClient c = faulty();
        DistributedLock multi = c.getMultiLock(c.getLock("tck:mi1"), c.getLock("tck:mi2"));
        Faults.Gate gate = faults.on("lock-acquire").skip(1).delayReply();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                outcome.set(multi.tryLock(10, 30, TimeUnit.SECONDS));
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "tck-multi-interrupt");
        t.start();
        Await.until(DEADLINE, () -> exists("tck:mi2"), () -> "the last member was never granted");
        t.interrupt();
        gate.release();
        t.join(DEADLINE.toMillis());
        assertFalse(t.isAlive(), "the interrupted multi-lock call did not return");
        if (Boolean.TRUE.equals(outcome.get())) {
            multi.unlockAsync(t.getId()).get(10, TimeUnit.SECONDS);
        } else {
            assertTrue(outcome.get() instanceof InterruptedException, "unexpected outcome " + outcome.get());
        }
        awaitGone("tck:mi1", "an interrupted multi-lock left a member held");
        awaitGone("tck:mi2", "an interrupted multi-lock left a member held");
        assertNoHoldOnClose(c);
    }

    /**
     * Rule 12.12: a MultiLock with a member whose client is closed fails promptly with that
     * client's error and holds nothing. When it fails: the state machine recursed on the
     * synchronously failed member until the stack overflowed, and the call hung.
     */
    @Test
    void rule12_12_multiLockMemberClientClosed_failsPromptlyWithItsError() {
        LockClient c = client();
        LockClient closed = client();
        DistributedLock multi = c.getMultiLock(c.getLock("tck:mc1"), closed.getLock("tck:mc2"));
        closed.close();
        assertTimeoutPreemptively(DEADLINE, () -> {
            assertThrows(IllegalStateException.class, () -> multi.tryLock(5, TimeUnit.SECONDS));
        }, "a multi-lock with a closed member hung");
        assertFalse(exists("tck:mc1"), "a failed multi-lock kept a member");
    }

    /**
     * Rule 12.13: a member whose driver fails synchronously fails both {@code tryLock(wait)} and
     * {@code lock()} with that error, promptly: no retry loop against a failing member.
     * When it fails: a member that fails synchronously must fail the whole call with that error at
     * once, not be attempted again in a loop.
     */
    @Test
    void rule12_13_multiLockMemberFailingSynchronously_failsWithThatError() {
        LockClient c = faulty();
        DistributedLock multi = c.getMultiLock(c.getLock("tck:ms1"), c.getLock("tck:ms2"));
        faults.on("lock-acquire").skip(1).times(Integer.MAX_VALUE).failSynchronously();
        assertTimeoutPreemptively(DEADLINE, () -> {
            assertThrows(RedisUnavailableException.class, () -> multi.tryLock(2, TimeUnit.SECONDS));
            assertThrows(RedisUnavailableException.class, multi::lock);
        }, "a multi-lock with a failing member hung or looped");
        awaitGone("tck:ms1", "a failed multi-lock kept a member");
        assertNoHoldOnClose(c);
    }

    /**
     * Rule 12.14: when a member is no longer held at the moment its TTL is set to the caller's
     * lease, the MultiLock acquisition fails and nothing is held.
     * When it fails: when setting the lease finds a member no longer held, the multi-lock must fail
     * and release the others.
     */
    @Test
    void rule12_14_multiLockMemberLostBeforeExpire_acquireFails() throws Exception {
        LockClient c = faulty();
        DistributedLock multi = c.getMultiLock(c.getLock("tck:me1"), c.getLock("tck:me2"));
        faults.on("lock-expire").beforeSend(() -> redis("DEL", "tck:me2"));
        assertFalse(multi.tryLock(5, 2, TimeUnit.SECONDS), "a multi-lock reported success with a member gone");
        assertFalse(exists("tck:me1") || exists("tck:me2"), "a failed multi-lock kept a member");
        assertNoHoldOnClose(c);
    }

    // ------------------------------------------------------------------ item 6: close

    /**
     * Rule 12.15: {@code close()} fails every call still waiting (IllegalStateException), and an
     * acquisition whose reply lands after close failed the call is neither handed out nor renewed.
     * When it fails: {@code close()} must fail every waiting future with {@code
     * IllegalStateException}, and an acquisition that lands after it must be given back, never
     * registered.
     */
    @Test
    void rule12_15_closeWhileWaitingOrAcquiring_futuresFail_nothingRenewed() throws Exception {
        DistributedLock holder = client().getLock("tck:cw");
        holder.lock();
        LockClient waiting = client();
        CompletableFuture<Void> waiter = waiting.getLock("tck:cw").lockAsync();
        awaitWaiting("redisson_lock__channel:{tck:cw}");
        waiting.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiter.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, "expected IllegalStateException, got " + e.getCause());
        holder.unlock();

        LockClient acquiring = faulty(watchdog(SHORT_WATCHDOG));
        Faults.Gate gate = faults.on("lock-acquire").delayReply();
        CompletableFuture<Void> late = acquiring.getLock("tck:cw2").lockAsync();
        Await.until(DEADLINE, () -> exists("tck:cw2"), () -> "the acquire never ran");
        List<LockLostEvent> closeEvents = new CopyOnWriteArrayList<>();
        acquiring.addLockLostListener(closeEvents::add);
        // The reply lands while close() runs: after close() failed the call, while it waits for
        // the waits it failed (an attempt out may have queued a fair owner: rule 12.25).
        late.whenComplete((v, t) -> gate.release());
        acquiring.close(); // while the acquire's reply is still held back
        assertEquals(List.of(), closeEvents, "a hold was registered before its reply arrived");
        ExecutionException e2 = assertThrows(ExecutionException.class, () -> late.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertTrue(e2.getCause() instanceof IllegalStateException, "expected IllegalStateException, got " + e2.getCause());
        awaitGone("tck:cw2", "an acquisition that landed after close is renewed");
    }

    // ------------------------------------------------------------------ item 7: wake-ups

    /**
     * Rule 12.16: a cancelled async waiter passes its wake-up on: the next waiter of the same
     * client acquires on the unlock message, long before the holder's 60 s lease would run out.
     * When it fails: a cancelled async waiter that had taken the wake-up must pass it to the next
     * waiter of its client: look at the waiter bookkeeping when a future is cancelled.
     */
    @Test
    void rule12_16_cancelledWaiter_passesWakeUpOn() throws Exception {
        DistributedLock holder = client().getLock("tck:pass");
        holder.lock(60, TimeUnit.SECONDS);
        LockClient c = faulty();
        DistributedLock lock = c.getLock("tck:pass");
        CompletableFuture<Void> first = lock.lockAsync(1001);
        CompletableFuture<Void> second = lock.lockAsync(1002);
        awaitWaiting("redisson_lock__channel:{tck:pass}");
        lock.isLocked(); // a round trip: both first attempts have been answered by now on an ordered connection
        first.cancel(false);
        holder.unlock();
        second.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        lock.unlockAsync(1002).get(10, TimeUnit.SECONDS);
        assertNoHoldOnClose(c);
    }

    // ------------------------------------------------------------------ item 8: send time

    /**
     * Rule 12.17: a lease's validity counts from when the acquire was sent: a reply delayed past
     * the lease hands out a lease that already says it is not valid.
     * When it fails: a lease's validity must count from when its acquire was sent, not from when
     * the reply arrived.
     */
    @Test
    void rule12_17_leaseValidity_countsFromSendTime() throws Exception {
        LockClient c = faulty();
        Faults.Gate gate = faults.on("lock-acquire").delayReply();
        CompletableFuture<LockLease> f = c.getLock("tck:sent").acquireAsync(Duration.ZERO, Duration.ofMillis(1000));
        Await.until(DEADLINE, () -> exists("tck:sent"), () -> "the acquire never ran");
        awaitGone("tck:sent", "the 1 s lease did not expire on Redis");
        gate.release();
        LockLease lease = f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertFalse(lease.isValid(), "a lease that expired on Redis before its reply arrived says it is valid");
        assertEquals(ReleaseOutcome.ALREADY_EXPIRED, lease.releaseIfHeld());
    }

    // ------------------------------------------------------------------ item 9: callback threads

    /**
     * Rule 12.18: lock-lost callbacks run on the client's timer thread by default, and on the
     * executor given in {@code LockOptions.lockLostExecutor}: never on a driver I/O thread.
     * When it fails: lock-lost callbacks must be handed to the timer thread or the configured
     * executor, never run on the driver thread that delivered the reply.
     */
    @Test
    void rule12_18_lockLostCallbacks_runOnTimerOrGivenExecutor() throws Exception {
        assertLostCallbacksRunOn(LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(1500)).build(),
                "relock-timer-");
        ExecutorService mine = Executors.newSingleThreadExecutor(r -> new Thread(r, "tck-lost-callbacks"));
        try {
            assertLostCallbacksRunOn(LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(1500))
                    .lockLostExecutor(mine).build(), "tck-lost-callbacks");
        } finally {
            mine.shutdownNow();
        }
    }

    private void assertLostCallbacksRunOn(LockOptions options, String threadPrefix) throws Exception {
        LockClient c = kit.newLockClient(options);
        List<String> threads = new CopyOnWriteArrayList<>();
        c.addLockLostListener(e -> threads.add("listener@" + Thread.currentThread().getName()));
        LockLease lease = c.getLock("tck:lostthread").acquire(Duration.ofSeconds(5));
        lease.onLost(e -> threads.add("lease@" + Thread.currentThread().getName()));
        redis("DEL", "tck:lostthread");
        Await.until(DEADLINE, () -> threads.size() == 2, () -> "callbacks ran: " + threads);
        for (String t : threads) {
            assertTrue(t.substring(t.indexOf('@') + 1).startsWith(threadPrefix), "a callback ran on " + t);
        }
    }

    // ------------------------------------------------------------------ item 10: oversized leases

    /**
     * Rule 12.19: a lease too large for PEXPIRE is refused before anything is written.
     * When it fails: leases longer than PEXPIRE accepts must be refused by the argument checks,
     * before any script runs.
     */
    @Test
    void rule12_19_oversizedLease_refusedBeforeAnythingIsWritten() {
        DistributedLock lock = client().getLock("tck:huge");
        assertThrows(IllegalArgumentException.class, () -> lock.lock(Long.MAX_VALUE, TimeUnit.MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> lock.tryLock(0, Long.MAX_VALUE / 2, TimeUnit.MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> lock.acquire(Duration.ofSeconds(1), Duration.ofSeconds(Long.MAX_VALUE)));
        assertThrows(IllegalArgumentException.class, () -> lock.lockAsync(Long.MAX_VALUE, TimeUnit.MILLISECONDS));
        assertEquals(List.of(), redis("KEYS", "*"), "an oversized lease wrote something");
    }

    // ------------------------------------------------------------------ item 11: dead fair head

    /**
     * Rule 12.20: behind a dead fair-queue head (a waiter that died), a waiter backs off instead
     * of polling every 2 ms until the head's place runs out.
     * When it fails: a waiter behind a dead queue head must back off (longer and longer polls up to
     * the head's deadline) instead of polling every few milliseconds.
     */
    @Test
    void rule12_20_deadFairQueueHead_waiterBacksOff() throws Exception {
        LockClient c = faulty(LockOptions.builder().fairLockWaitTimeout(Duration.ofSeconds(3)).build());
        List<?> time = (List<?>) redis("TIME");
        long now = Long.parseLong(String.valueOf(time.get(0))) * 1000;
        redis("RPUSH", "redisson_lock_queue:{tck:dead}", "dead:1");
        redis("ZADD", "redisson_lock_timeout:{tck:dead}", Long.toString(now + 3000), "dead:1");
        DistributedLock fair = c.getFairLock("tck:dead");
        assertTrue(fair.tryLock(20, TimeUnit.SECONDS), "the dead head was never pruned");
        int attempts = faults.sent("fair-acquire");
        fair.unlock();
        assertTrue(attempts < 150, "the waiter polled " + attempts + " times behind a dead head in about 3 s");
    }

    // ------------------------------------------------------------------ item 12: stalled renewals

    /**
     * Rule 12.21: a renewal that never answers is detected: the hold is reported RENEWAL_FAILED,
     * and later renewals are not blocked by it.
     * When it fails: a renewal that never replies must be timed out by the watchdog ({@code
     * RENEWAL_FAILED} at its confirmation deadline), and later ticks must run anyway.
     */
    @Test
    void rule12_21_renewalNeverAnswers_reportedAndNextTicksRun() throws Exception {
        LockClient c = faulty(LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(1500))
                .commandTimeout(Duration.ofMillis(500)).build());
        List<LockLostEvent> events = new CopyOnWriteArrayList<>();
        c.addLockLostListener(events::add);
        LockLease stalled = c.getLock("tck:stall").acquire(Duration.ofSeconds(5));
        faults.on("lock-renew").times(Integer.MAX_VALUE).dropReply();
        Await.until(DEADLINE, () -> !events.isEmpty(), () -> "a renewal that never answers was never reported");
        assertEquals(LockLostEvent.Reason.RENEWAL_FAILED, events.get(0).reason());
        assertFalse(stalled.isValid());
        faults.clear();
        DistributedLock next = c.getLock("tck:stall2");
        next.lock();
        // two timeouts: a key no later tick renewed would be gone after one
        Await.holdsFor(Duration.ofMillis(3000), () -> exists("tck:stall2"), () -> "renewal stopped after a stalled tick");
        next.unlock();
        awaitGone("tck:stall", "the stalled hold is still renewed");
        assertEquals(1, events.size(), "unexpected losses: " + events);
    }

    // ------------------------------------------------------------------ item 14: client ids

    /**
     * Rule 12.22: two clients built from one LockOptions have their own ids: no re-entry across
     * them.
     * When it fails: each client needs an id of its own, also when two are built from one {@code
     * LockOptions}: look at where the client id is made.
     */
    @Test
    void rule12_22_twoClientsFromOneOptions_doNotShareOwnership() {
        LockOptions shared = LockOptions.defaults();
        LockClient a = kit.newLockClient(shared);
        LockClient b = kit.newLockClient(shared);
        assertNotEquals(a.clientId(), b.clientId());
        DistributedLock la = a.getLock("tck:ids");
        la.lock();
        try {
            assertFalse(b.getLock("tck:ids").tryLock(), "a thread re-entered through another client");
        } finally {
            la.unlock();
        }
    }

    // ------------------------------------------------------------------ the load figure

    /**
     * Rule 12.23: thousands of {@code lockAsync()} calls against a held fair lock, each cancelled
     * at once, and as many against a plain lock (2,000 each; 10,000 with
     * {@code -Drelock.tck.longLoops=true}), leave no hold, no key and no queue entry: every
     * acquisition that lands after its caller left is given back, even when the driver refused the
     * give-back at first because thousands of calls were already waiting for it.
     * When it fails: every cancelled {@code lockAsync} must leave no hold, key or queue entry: an
     * acquisition landing after its caller left must be given back, and the give-back sent again
     * when the driver refused it with a {@code NotSentException}.
     */
    @Test
    void rule12_23_thousandsOfCancelledLockAsync_leaveNothing() throws Exception {
        int n = loopSize(2_000, 10_000);
        for (boolean fair : new boolean[] {true, false}) {
            String name = fair ? "tck:many-fair" : "tck:many";
            DistributedLock holder = fair ? client().getFairLock(name) : client().getLock(name);
            holder.lock();
            // No faults: only to see when every command the calls sent has answered. The watchdog
            // timeout is longer than the deadlines below, so an acquisition that was never given
            // back cannot pass by expiring on its own; the command timeout is as long as those
            // deadlines, so no attempt times out with an unknown outcome (an acquisition that may
            // or may not have happened is, by design, left to expire) on a loaded machine.
            LockClient c = faulty(LockOptions.builder().lockWatchdogTimeout(Duration.ofSeconds(300))
                    .commandTimeout(Duration.ofSeconds(60)).build());
            DistributedLock lock = fair ? c.getFairLock(name) : c.getLock(name);
            long start = System.nanoTime();
            List<CompletableFuture<Void>> calls = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                CompletableFuture<Void> f = lock.lockAsync();
                f.cancel(false);
                calls.add(f);
            }
            assertTrue(calls.stream().allMatch(CompletableFuture::isCancelled));
            Await.until(Duration.ofSeconds(60), () -> channels().isEmpty()
                            && (Long) redis("LLEN", "redisson_lock_queue:{" + name + "}") == 0,
                    () -> "cancelled waiters still waiting: channels " + channels() + ", queue "
                            + redis("LLEN", "redisson_lock_queue:{" + name + "}"));
            holder.unlock();
            // Attempts already sent when their caller cancelled may still land (and are given back
            // at once): the churn ends when every command has answered, leaving nothing behind.
            Await.until(Duration.ofSeconds(60), () -> faults.pendingFutures() == 0 && !exists(name)
                            && (Long) redis("LLEN", "redisson_lock_queue:{" + name + "}") == 0,
                    () -> "after the cancelled calls: " + faults.pendingFutures() + " pending, key "
                            + (exists(name) ? "held by " + redis("HGETALL", name) : "gone"));
            assertFreeForOthers(name);
            assertNoHoldOnClose(c);
            System.out.printf("rule 12.23: %,d cancelled lockAsync on a %s lock cleaned up in %d ms%n",
                    n, fair ? "fair" : "plain", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            assertEquals(List.of(), redis("KEYS", "*"));
        }
    }

    /**
     * Rule 12.24: {@code close()} with waiters of this client blocked on a fair lock — a thread in
     * {@code lock()}, a thread in {@code tryLock(30 s)}, a {@code lockAsync}, a multi-lock over
     * the fair lock, and a thread on the non-reentrant fair lock — removes every queue entry and
     * deadline they left before it returns, round after round: no other client's fair waiter then
     * waits out {@code fairLockWaitTimeout} for a ghost.
     * When it fails: {@code close()} must remove the queue entries of this client's fair waiters
     * before it returns, on every wait path: blocking, timed, async, multi-lock and non-reentrant
     * fair.
     */
    @Test
    void rule12_24_closeWithBlockedFairWaiters_leavesNoQueueEntry() throws Exception {
        int rounds = Integer.getInteger("relock.tck.closeRounds", 5); // the review's 100: -Drelock.tck.closeRounds=100
        for (int round = 0; round < rounds; round++) {
            String name = "tck:close-fair:" + round;
            String nonReentrant = "tck:close-fair-nr:" + round;
            DistributedLock holder = client().getFairLock(name);
            DistributedLock holderNr = client().getNonReentrantFairLock(nonReentrant);
            holder.lock();
            holderNr.lock();
            LockClient c = client();
            ExecutorService pool = Executors.newCachedThreadPool();
            try {
                pool.submit(() -> {
                    c.getFairLock(name).lock();
                    return null;
                });
                pool.submit(() -> c.getFairLock(name).tryLock(30, TimeUnit.SECONDS));
                c.getFairLock(name).lockAsync(4242);
                pool.submit(() -> {
                    c.getMultiLock(c.getFairLock(name)).lock();
                    return null;
                });
                pool.submit(() -> {
                    c.getNonReentrantFairLock(nonReentrant).lock();
                    return null;
                });
                // Each waiter queued at least once (the multi-lock's member wait ends every 1.5 s and
                // queues again at the back, so the four need not be seen at one instant)
                java.util.Set<Object> seen = new java.util.HashSet<>();
                java.util.Set<Object> seenNr = new java.util.HashSet<>();
                Await.until(DEADLINE, () -> {
                    seen.addAll((List<?>) redis("LRANGE", queueOf(name), "0", "-1"));
                    seenNr.addAll((List<?>) redis("LRANGE", queueOf(nonReentrant), "0", "-1"));
                    return seen.size() >= 4 && seenNr.size() >= 1;
                }, () -> "the waiters never all queued: seen " + seen + " on " + name + ", " + seenNr + " on " + nonReentrant);
                c.close();
                for (String n : List.of(name, nonReentrant)) {
                    assertEquals(List.of(), redis("LRANGE", queueOf(n), "0", "-1"),
                            "round " + round + ": close() returned with waiters of the closed client still queued on " + n);
                    assertEquals(0L, redis("ZCARD", queueOf(n).replace("redisson_lock_queue", "redisson_lock_timeout")),
                            "round " + round + ": close() left deadlines on " + n);
                }
            } finally {
                pool.shutdownNow();
                pool.awaitTermination(10, TimeUnit.SECONDS);
            }
            holder.unlock();
            holderNr.unlock();
        }
    }

    /**
     * Rule 12.25: {@code close()} racing the first attempt of this client's fair waiters — a
     * thread calling {@code lock()}, {@code tryLock(30 s)}, {@code lockAsync()} or a multi-lock's
     * {@code lock()}, on the fair and the non-reentrant fair lock that another client holds, with
     * {@code close()} called 0 to 1 ms after the call starts, 100 rounds — leaves no queue entry and no deadline of the closed client once {@code close()}
     * returns, and every racing call fails with {@code IllegalStateException}: a wait whose first
     * attempt was already on its way when the client closed (and may have queued the owner) is
     * waited for, and leaves the queue while the client can still reach Redis.
     * When it fails: {@code close()} must wait for every wait from before its first attempt, not
     * only for those that found the lock busy and subscribed: look at when a wait is counted as
     * active ({@code Wait.start}) and at the async wait whose caller {@code close()} failed while
     * its attempt was in flight.
     */
    @Test
    void rule12_25_closeRacingFairFirstAttempts_leavesNoQueueEntry() throws Exception {
        String fair = "tck:close-race";
        String nonReentrant = "tck:close-race-nr";
        DistributedLock holder = client().getFairLock(fair);
        DistributedLock holderNr = client().getNonReentrantFairLock(nonReentrant);
        holder.lock();
        holderNr.lock();
        Object nativeClient = kit.nativeClient(); // one native client: each round's LockClient opens its own connections
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 100; round++) {
                int variant = round % 4;
                String kind = List.of("lock()", "tryLock(30 s)", "lockAsync()", "multi-lock lock()").get(variant);
                String name = round / 4 % 2 == 0 ? fair : nonReentrant;
                LockClient c = kit.closeAfterTest(RedisLocks.create(kit.provider(), nativeClient, LockOptions.defaults()));
                DistributedLock lock = name.equals(fair) ? c.getFairLock(name) : c.getNonReentrantFairLock(name);
                CountDownLatch go = new CountDownLatch(1);
                Future<Object> call = pool.submit(() -> {
                    go.await();
                    switch (variant) {
                        case 0 -> lock.lock();
                        case 1 -> {
                            return lock.tryLock(30, TimeUnit.SECONDS);
                        }
                        case 2 -> lock.lockAsync().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                        default -> c.getMultiLock(lock).lock();
                    }
                    return "acquired";
                });
                long spinNanos = ThreadLocalRandom.current().nextInt(1_000_000);
                go.countDown();
                long start = System.nanoTime();
                while (System.nanoTime() - start < spinNanos) {
                    Thread.onSpinWait();
                }
                c.close();
                String what = "round " + round + " (" + kind + " on " + name + ", close() after " + spinNanos / 1000
                        + " us): ";
                assertEquals(List.of(), redis("LRANGE", queueOf(name), "0", "-1"),
                        what + "close() returned with the closed client's waiter still queued");
                assertEquals(0L, redis("ZCARD", timeoutOf(name)), what + "close() returned with a deadline left");
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> call.get(DEADLINE.toSeconds(), TimeUnit.SECONDS), what + "the call did not fail");
                Throwable cause = e.getCause() instanceof ExecutionException inner ? inner.getCause() : e.getCause();
                assertTrue(cause instanceof IllegalStateException, what + "expected IllegalStateException, got " + cause);
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        holder.unlock();
        holderNr.unlock();
    }

    private static String timeoutOf(String name) {
        return "redisson_lock_timeout:{" + name + "}";
    }

    private static String queueOf(String name) {
        return "redisson_lock_queue:{" + name + "}";
    }
}
