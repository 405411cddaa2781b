package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Chapter 2: the reentrant lock (spec 2.1). Thread-bound semantics, reentrancy, leases, force
 * unlock, the state reads, async variants, input checks, and the exact wire format.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("reentrant-lock")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class ReentrantLockChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected ReentrantLockChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 2.1.1: a held lock excludes other threads until the holder unlocks.
     * When it fails: another thread of the same client got a held lock. Check the owner id core
     * sends ({@code <clientId>:<threadId>}) and that the acquire script's reply reaches core as it
     * is: a driver that reads the integer "held, n ms left" reply as nil makes every attempt look
     * granted.
     */
    @Test
    void rule2_1_1_lock_heldByOneThread_otherThreadTryLockFailsUntilUnlock() throws Exception {
        DistributedLock lock = client().getLock("tck:excl");
        lock.lock();
        assertFalse(otherThreadReturns(() -> lock.tryLock()), "another thread acquired a held lock");
        lock.unlock();
        assertTrue(otherThreadReturns(() -> {
            boolean ok = lock.tryLock();
            lock.unlock();
            return ok;
        }));
    }

    /**
     * Rule 2.1.2: two clients (two client ids) on the same name exclude each other.
     * When it fails: two clients got one lock. Check that the two clients have different ids, and
     * that the acquire reply (nil acquired, an integer TTL held) is not changed on its way through
     * the driver.
     */
    @Test
    void rule2_1_2_lock_heldByOneClient_otherClientCannotAcquire() throws Exception {
        LockClient a = client();
        LockClient b = client();
        DistributedLock la = a.getLock("tck:clients");
        DistributedLock lb = b.getLock("tck:clients");
        assertTrue(la.tryLock());
        assertFalse(lb.tryLock(), "a second client acquired the same thread id's lock");
        assertTrue(lb.isLocked());
        assertFalse(lb.isHeldByCurrentThread());
        la.unlock();
        assertTrue(lb.tryLock());
        lb.unlock();
    }

    /**
     * Rule 2.1.3: re-entry increments the hold count stored as decimal text; unlock decrements.
     * When it fails: compare the hash's count with {@code getHoldCount()}. A count of 2 after one
     * {@code lock()} means the script ran twice (a driver that resends it); the right hash with a
     * wrong {@code getHoldCount()} means the state reply was decoded wrongly (an integer that
     * arrived as a string).
     */
    @Test
    void rule2_1_3_lock_reentered_holdCountFollowsAndKeyGoesAtZero() {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:reentry");
        String field = c.clientId() + ":" + Thread.currentThread().getId();
        lock.lock();
        lock.lock();
        lock.lock();
        assertEquals(3, lock.getHoldCount());
        assertEquals("3", redis("HGET", "tck:reentry", field));
        lock.unlock();
        lock.unlock();
        assertEquals(1, lock.getHoldCount());
        assertTrue(lock.isLocked());
        lock.unlock();
        assertEquals(0, lock.getHoldCount());
        assertFalse(lock.isLocked());
        assertEquals(0L, redis("EXISTS", "tck:reentry"));
    }

    /**
     * Rule 2.1.4: the hash is {@code N} with field {@code <clientId>:<threadId>} = "1" and the
     * watchdog TTL.
     * When it fails: the field must be {@code <clientId>:<threadId>} with "1" and a TTL near the
     * watchdog timeout: look at the owner id core builds and the lease argument it passes (a
     * watchdog lock uses {@code lockWatchdogTimeout}).
     */
    @Test
    void rule2_1_4_lock_wireFormat_hashFieldAndWatchdogTtl() {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:wire");
        lock.lock();
        try {
            List<?> all = (List<?>) redis("HGETALL", "tck:wire");
            assertEquals(List.of(c.clientId() + ":" + Thread.currentThread().getId(), "1"), all);
            long ttl = pttl("tck:wire");
            assertTrue(ttl > 20_000 && ttl <= 30_000, "watchdog TTL should be about 30000 ms, was " + ttl);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Rule 2.1.5: an explicit lease expires; the stale holder's unlock says the lock is free.
     * When it fails: either the lease did not expire (the explicit lease was not the TTL, or the
     * watchdog renewed an explicit-lease lock), or the release's "free" answer was decoded as
     * another outcome.
     */
    @Test
    void rule2_1_5_unlock_afterLeaseExpired_throwsSayingFree() throws Exception {
        DistributedLock lock = client().getLock("tck:expire");
        assertTrue(lock.tryLock(0, 200, TimeUnit.MILLISECONDS));
        Await.until(Duration.ofSeconds(10), () -> !lock.isLocked(), () -> "lease of 200 ms did not expire");
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertTrue(e.getMessage().contains("free"), e.getMessage());
    }

    /**
     * Rule 2.1.6: unlock by a non-owner throws and says another owner holds it; the lock stays.
     * When it fails: the non-owner's release ran as if it owned the lock (an owner id that is not
     * per thread) or its "held by another" answer was decoded as success.
     */
    @Test
    void rule2_1_6_unlock_byNonOwner_throwsSayingHeldByAnother() throws Exception {
        DistributedLock lock = client().getLock("tck:nonowner");
        lock.lock();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        onOtherThread(() -> {
            try {
                lock.unlock();
            } catch (IllegalMonitorStateException e) {
                thrown.set(e);
            }
            return null;
        });
        assertTrue(thrown.get() instanceof IllegalMonitorStateException, "no IllegalMonitorStateException");
        assertTrue(thrown.get().getMessage().contains("another owner"), thrown.get().getMessage());
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
    }

    /**
     * Rule 2.1.7: tryLock(wait) on a held lock returns false after at least the wait.
     * When it fails: the wait ended early: its deadline is counted from the wrong moment, or a
     * wake-up while the lock was still held was taken as the end of the wait.
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "engine: how long a wait lasts")
    @Test
    void rule2_1_7_tryLockWait_heldByOther_returnsFalseAfterWait() throws Exception {
        DistributedLock lock = client().getLock("tck:wait");
        lock.lock();
        long[] elapsed = new long[1];
        boolean got = onOtherThread(() -> {
            long t0 = System.nanoTime();
            boolean ok = lock.tryLock(300, TimeUnit.MILLISECONDS);
            elapsed[0] = (System.nanoTime() - t0) / 1_000_000;
            return ok;
        });
        assertFalse(got);
        assertTrue(elapsed[0] >= 295, "gave up after " + elapsed[0] + " ms, before the 300 ms wait");
        lock.unlock();
    }

    /**
     * Rule 2.1.8: forceUnlock deletes whoever holds the lock and reports whether there was one.
     * When it fails: look at the force-release script and its reply: it deletes the key whoever
     * holds it and answers whether there was one.
     */
    @Test
    void rule2_1_8_forceUnlock_heldByOther_freesIt() throws Exception {
        DistributedLock lock = client().getLock("tck:force");
        lock.lock();
        assertTrue(otherThreadReturns(lock::forceUnlock));
        assertFalse(lock.isLocked());
        assertFalse(lock.forceUnlock());
    }

    /**
     * Rule 2.1.9: isHeldByThread / isHeldByCurrentThread / getHoldCount answer per owner.
     * When it fails: the state reads must ask Redis for the given owner's field: a wrong answer
     * means the owner id or the decoding of the state reply differs.
     */
    @Test
    void rule2_1_9_isHeldBy_perThread() throws Exception {
        DistributedLock lock = client().getLock("tck:held");
        long me = Thread.currentThread().getId();
        lock.lock();
        assertTrue(lock.isHeldByThread(me));
        assertTrue(lock.isHeldByCurrentThread());
        assertFalse(otherThreadReturns(lock::isHeldByCurrentThread));
        assertEquals(0, onOtherThread(lock::getHoldCount));
        assertTrue(otherThreadReturns(lock::isLocked));
        assertFalse(lock.isHeldByThread(me + 1_000_000));
        lock.unlock();
        assertFalse(lock.isHeldByThread(me));
    }

    /**
     * Rule 2.1.10: remainTimeToLive is the lease, the watchdog timeout, or -2 when free.
     * When it fails: {@code remainTimeToLive} is the hash's PTTL (-2 when free): a value near 30 s
     * for a 1 h lease means the explicit lease was replaced by the watchdog timeout.
     */
    @Test
    void rule2_1_10_remainTimeToLive_leaseWatchdogAndFree() {
        DistributedLock lock = client().getLock("tck:ttl");
        lock.lock(1, TimeUnit.HOURS);
        long ttl = lock.remainTimeToLive();
        assertTrue(ttl > 3_590_000 && ttl <= 3_600_000, "explicit lease of 1 h gave TTL " + ttl);
        lock.unlock();
        assertEquals(-2, lock.remainTimeToLive());
        lock.lock();
        ttl = lock.remainTimeToLive();
        assertTrue(ttl > 20_000 && ttl <= 30_000, "watchdog lock gave TTL " + ttl);
        lock.unlock();
    }

    /**
     * Rule 2.1.11: a partial unlock of an explicit-lease lock keeps that lease (Redisson
     * testRemainTimeToLive2).
     * When it fails: a partial unlock must leave the explicit lease's TTL alone: look at the
     * release script's PEXPIRE when the count stays above zero, and at whether core starts renewing
     * after a partial unlock.
     */
    @Test
    void rule2_1_11_partialUnlock_explicitLease_keepsLease() {
        DistributedLock lock = client().getLock("tck:ttl2");
        lock.lock(10, TimeUnit.SECONDS);
        lock.lock(10, TimeUnit.SECONDS);
        lock.lock(10, TimeUnit.SECONDS);
        lock.unlock();
        lock.unlock();
        long ttl = lock.remainTimeToLive();
        assertTrue(ttl > 8_000 && ttl <= 10_000, "TTL after partial unlocks " + ttl);
        lock.unlock();
    }

    /**
     * Rule 2.1.12: an interrupted tryLock throws InterruptedException and leaves nothing held or
     * renewed.
     * When it fails: the interrupted waiter must leave with nothing held: an attempt whose reply
     * landed after the interrupt must be given back, and the waiter must leave its channel.
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL,
            because = "engine: an interrupted wait leaves nothing held")
    @Test
    void rule2_1_12_tryLock_interrupted_leavesNothingHeld() throws Exception {
        LockClient holderClient = client();
        LockClient waiterClient = client();
        DistributedLock held = holderClient.getLock("tck:interrupt");
        DistributedLock wanted = waiterClient.getLock("tck:interrupt");
        held.lock();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                wanted.tryLock(60, TimeUnit.SECONDS);
                outcome.set(new AssertionError("tryLock returned instead of being interrupted"));
            } catch (Throwable t) {
                outcome.set(t);
            }
        }, "tck-waiter");
        waiter.start();
        started.await();
        Await.until(Duration.ofSeconds(10), () -> !channels().isEmpty(), () -> "waiter never subscribed");
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertTrue(outcome.get() instanceof InterruptedException, "outcome: " + outcome.get());
        held.unlock();
        assertFalse(wanted.isLocked(), "the interrupted waiter left the lock held");
        assertTrue(holderClient.getLock("tck:interrupt").tryLock(), "lock not free after interrupted waiter");
        held.unlock();
    }

    /**
     * Rule 2.1.13: lock() is not interruptible; it acquires and keeps the interrupt status.
     * When it fails: {@code lock()} must keep waiting and keep the interrupt status: a driver whose
     * blocking call checks {@code Thread.interrupted()} clears it (see rule 1.3.2), and so does a
     * wait in core that swallows the interrupt.
     */
    @Test
    void rule2_1_13_lock_interrupted_stillAcquiresAndKeepsStatus() throws Exception {
        DistributedLock lock = client().getLock("tck:uninterruptible");
        lock.lock(); // held by the test thread
        CountDownLatch acquired = new CountDownLatch(1);
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread t = new Thread(() -> {
            lock.lock();
            flag.set(Thread.currentThread().isInterrupted());
            acquired.countDown();
            lock.unlock();
        }, "tck-uninterruptible");
        t.start();
        Await.until(Duration.ofSeconds(10), () -> !channels().isEmpty(), () -> "waiter never subscribed");
        t.interrupt();
        lock.unlock();
        assertTrue(acquired.await(30, TimeUnit.SECONDS), "lock() waiter never acquired");
        t.join(10_000);
        assertEquals(Boolean.TRUE, flag.get(), "interrupt status not kept");
    }

    /**
     * Rule 2.1.14: async variants with explicit owner ids behave as the thread-bound ones.
     * When it fails: the async calls must act for the owner id they are given: look at the id on
     * the async attempt and at how the unlock's message completes the waiting future.
     */
    @Test
    void rule2_1_14_async_explicitThreadIds_excludeAndReenter() throws Exception {
        DistributedLock lock = client().getLock("tck:async");
        lock.lockAsync(101).get(10, TimeUnit.SECONDS);
        assertFalse(lock.tryLockAsync(202).get(10, TimeUnit.SECONDS));
        assertTrue(lock.tryLockAsync(0, 5_000, TimeUnit.MILLISECONDS, 101).get(10, TimeUnit.SECONDS));
        assertEquals(2, lock.getHoldCountAsync(101).get(10, TimeUnit.SECONDS));
        assertTrue(lock.isHeldByThreadAsync(101).get(10, TimeUnit.SECONDS));
        assertTrue(lock.isLockedAsync().get(10, TimeUnit.SECONDS));
        assertTrue(lock.remainTimeToLiveAsync().get(10, TimeUnit.SECONDS) > 0);
        CompletableFuture<Boolean> waiting = lock.tryLockAsync(30_000, -1, TimeUnit.MILLISECONDS, 202);
        lock.unlockAsync(101).get(10, TimeUnit.SECONDS);
        assertFalse(waiting.isDone(), "202 acquired while 101 still held once");
        lock.unlockAsync(101).get(10, TimeUnit.SECONDS);
        assertTrue(waiting.get(30, TimeUnit.SECONDS), "async waiter not woken by the unlock");
        ExecutionException e = assertThrows(ExecutionException.class, () -> lock.unlockAsync(101).get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalMonitorStateException, String.valueOf(e.getCause()));
        assertTrue(lock.forceUnlockAsync().get(10, TimeUnit.SECONDS));
    }

    /**
     * Rule 2.1.15: bad input is rejected with a message naming the value.
     * When it fails: core's argument checks run before any call reaches Redis; a message without
     * the value means the check does not name what was passed.
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL,
            because = "engine: core checks arguments before any call reaches the driver")
    @Test
    void rule2_1_15_badInput_rejectedWithValueInMessage() {
        LockClient c = client();
        assertThrows(NullPointerException.class, () -> c.getLock(null));
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class, () -> c.getLock("  "));
        assertTrue(blank.getMessage().contains("blank"), blank.getMessage());
        DistributedLock lock = c.getLock("tck:args");
        IllegalArgumentException wait = assertThrows(IllegalArgumentException.class,
                () -> lock.tryLock(-5, TimeUnit.SECONDS));
        assertTrue(wait.getMessage().contains("-5"), wait.getMessage());
        IllegalArgumentException lease = assertThrows(IllegalArgumentException.class,
                () -> lock.tryLock(0, 0, TimeUnit.SECONDS));
        assertTrue(lease.getMessage().contains("0"), lease.getMessage());
        assertThrows(IllegalArgumentException.class, () -> lock.lock(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> lock.tryLock(Duration.ofMillis(-1)));
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
        assertFalse(lock.isLocked(), "a rejected call took the lock");
    }

    /**
     * Rule 2.1.16: a closed client refuses new work with IllegalStateException.
     * When it fails: every entry of a closed client must throw {@code IllegalStateException}: look
     * for the path that does not check whether the client is closed.
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL,
            because = "engine: a closed client refuses work before any call reaches the driver")
    @Test
    void rule2_1_16_closedClient_refusesWork() {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:closed");
        c.close();
        c.close(); // idempotent
        assertThrows(IllegalStateException.class, lock::tryLock);
        assertThrows(IllegalStateException.class, () -> c.getLock("x"));
    }

    /**
     * Rule 2.1.17: the delete of the last hold publishes "0" on {@code redisson_lock__channel:{N}}.
     * When it fails: the release script publishes "0" only when the last hold goes: a message on
     * the partial unlock, or none on the last, points at the script's count check (local hand-off
     * publishes nothing, but only to a parked waiter of this client, and there is none here).
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL,
            because = "engine: the release script decides what to publish")
    @Test
    void rule2_1_17_unlock_publishesZeroOnLockChannel() throws Exception {
        DistributedLock lock = client().getLock("tck:chan");
        try (RespClient sub = kit.topology().adminFor("redisson_lock__channel:{tck:chan}")) {
            sub.call("SUBSCRIBE", "redisson_lock__channel:{tck:chan}");
            lock.lock();
            lock.lock();
            lock.unlock(); // partial: no message
            lock.unlock();
            Object msg = sub.readReply();
            assertEquals(List.of("message", "redisson_lock__channel:{tck:chan}", "0"), msg);
        }
        assertNull(redis("GET", "tck:chan"));
    }

    /**
     * Rule 2.1.18: {@code getHoldCountAsync()} without an owner id answers the calling thread's
     * hold count, as Redisson's does.
     * When it fails: {@code getHoldCountAsync()} must take the id of the thread that calls it, not
     * of the thread that completes the future.
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL,
            because = "engine: which thread's count an async read answers")
    @Test
    void rule2_1_18_getHoldCountAsync_noOwnerId_answersTheCallingThreadsCount() throws Exception {
        DistributedLock lock = client().getLock("tck:hold-async");
        assertEquals(0, lock.getHoldCountAsync().get(10, java.util.concurrent.TimeUnit.SECONDS));
        lock.lock();
        lock.lock();
        assertEquals(2, lock.getHoldCountAsync().get(10, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, (int) onOtherThread(() -> lock.getHoldCountAsync().get(10, java.util.concurrent.TimeUnit.SECONDS)));
        lock.unlock();
        lock.unlock();
    }
}
