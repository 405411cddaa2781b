package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Chapter 9: the fair lock (spec 2.2, 5.4). FIFO order, queue consistency, dead-waiter bound,
 * live waiters keep their place, head wake-up.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("fair-lock")
public abstract class FairLockChapter extends TckChapter {
    static final String Q = "redisson_lock_queue:{tck:fair}";
    static final String Z = "redisson_lock_timeout:{tck:fair}";

    /** @param kit the enclosing kit */
    protected FairLockChapter(DriverKit kit) {
        super(kit);
    }

    private LockClient fairClient(Duration fairWait) {
        return kit.newLockClient(LockOptions.builder().fairLockWaitTimeout(fairWait).build());
    }

    private long queueLength() {
        return (Long) redis("LLEN", Q);
    }

    /**
     * Rule 9.1: eight staggered waiters acquire in arrival order.
     * When it fails: waiters acquired out of arrival order: look at the fair acquire script's queue
     * (the list and the deadline set) and at whether a release wakes the queue's head on its own
     * channel.
     */
    @Test
    void rule9_1_fifo_eightStaggeredWaiters_acquireInOrder() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getFairLock("tck:fair");
        lock.lock();
        List<String> order = new CopyOnWriteArrayList<>();
        List<String> expected = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                expected.add("w" + i);
                all.add(queueWaiter(pool, lock, "w" + i, order, Q));
            }
            assertEquals(8L, queueLength());
            assertEquals(8L, redis("ZCARD", Z), "every queued waiter has a deadline");
            lock.unlock();
            for (Future<?> f : all) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(expected, order);
    }

    /**
     * Rule 9.2: 200 concurrent lock() callers all acquire, and the queue empties.
     * When it fails: a caller never got the lock or the queue kept entries: a head woken on its
     * channel must attempt again, and every waiter that leaves must take its entry out of the
     * queue.
     */
    @Test
    void rule9_2_twoHundredCallers_allAcquire() throws Exception {
        DistributedLock lock = client().getFairLock("tck:fair");
        ExecutorService pool = Executors.newFixedThreadPool(200);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                all.add(pool.submit(() -> {
                    lock.lock();
                    lock.unlock();
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0L, redis("EXISTS", Q, Z, "tck:fair"));
    }

    /**
     * Rule 9.3: a waiter whose process is gone delays the next one by about fairLockWaitTimeout and
     * no more.
     * When it fails: a dead waiter's place must end after {@code fairLockWaitTimeout}: the acquire
     * script must drop queue entries whose deadline passed, and the live waiter must retry when the
     * dead head's deadline comes, not wait for a message.
     */
    @Test
    void rule9_3_deadWaiter_delaysNextByAboutWaitTimeout() throws Exception {
        Duration wait = Duration.ofMillis(1500);
        LockClient c = fairClient(wait);
        DistributedLock lock = c.getFairLock("tck:fair");
        lock.lock();
        // a dead waiter, as a client that vanished leaves it: in the queue with a deadline
        long now = System.currentTimeMillis();
        redis("ZADD", Z, Long.toString(now + pttl("tck:fair") + wait.toMillis()), "ghost:1");
        redis("RPUSH", Q, "ghost:1");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            List<String> order = new CopyOnWriteArrayList<>();
            Future<?> live = queueWaiter(pool, lock, "live", order, Q);
            long releasedAt = System.nanoTime();
            lock.unlock(); // wakes the ghost, who never answers
            live.get(60, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - releasedAt) / 1_000_000;
            assertEquals(List.of("live"), order);
            assertTrue(ms < wait.toMillis() + 10_000, "live waiter waited " + ms + " ms behind a dead one (wait " + wait + ")");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0L, redis("EXISTS", Q, Z));
    }

    /**
     * Rule 9.4: a timed-out tryLock leaves no queue or deadline residue.
     * When it fails: a waiter that gives up must remove its queue entry and deadline before it
     * returns, on the blocking and the async path (the fair give-up script).
     */
    @Test
    void rule9_4_tryLockTimeout_leavesNoResidue() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getFairLock("tck:fair");
        lock.lock();
        assertFalse(ReentrantLockChapter.otherThreadReturns(() -> lock.tryLock(200, TimeUnit.MILLISECONDS)));
        assertEquals(0L, redis("EXISTS", Q, Z), "a waiter that gave up left queue entries");
        assertFalse(c.getFairLock("tck:fair").tryLockAsync(4242).get(10, TimeUnit.SECONDS));
        assertFalse(c.getFairLock("tck:fair").tryLockAsync(100, -1, TimeUnit.MILLISECONDS, 4243).get(10, TimeUnit.SECONDS));
        Await.until(Duration.ofSeconds(10), () -> Long.valueOf(0).equals(redis("EXISTS", Q, Z)),
                () -> "an async waiter that gave up left queue entries");
        lock.unlock();
    }

    /**
     * Rule 9.5: a live waiter keeps its place across a hold three times fairLockWaitTimeout long.
     * When it fails: a live waiter must keep its place: its attempts before its deadline runs out
     * must move the deadline on. Look at how often the fair wait attempts again while the lock
     * stays held.
     */
    @Test
    void rule9_5_liveWaiter_keepsPlaceAcrossLongHold() throws Exception {
        Duration wait = Duration.ofMillis(600);
        LockClient c = kit.newLockClient(LockOptions.builder().fairLockWaitTimeout(wait)
                .lockWatchdogTimeout(Duration.ofMillis(2000)).build());
        DistributedLock lock = c.getFairLock("tck:fair");
        lock.lock();
        List<String> order = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> first = queueWaiter(pool, lock, "first", order, Q);
            Future<?> second = queueWaiter(pool, lock, "second", order, Q);
            Await.holdsFor(wait.multipliedBy(3), () -> queueLength() == 2, () -> "a live waiter was dropped from the queue");
            lock.unlock();
            first.get(60, TimeUnit.SECONDS);
            second.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of("first", "second"), order);
    }

    /**
     * Rule 9.6: the fair lock is reentrant, with Redisson's field format on the hash.
     * When it fails: the fair lock writes the reentrant lock's hash: check its field and count.
     */
    @Test
    void rule9_6_reentrancy_holdCountAndField() {
        LockClient c = client();
        DistributedLock lock = c.getFairLock("tck:fair");
        lock.lock();
        lock.lock();
        assertEquals(2, lock.getHoldCount());
        assertEquals("2", redis("HGET", "tck:fair", c.clientId() + ":" + Thread.currentThread().getId()));
        lock.unlock();
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    /**
     * Rule 9.7: force unlock wakes the head waiter on its own channel (not after the 30 s TTL).
     * When it fails: a fair force unlock must publish to the queue head's own channel; a head that
     * woke only after the TTL heard nothing.
     */
    @Test
    void rule9_7_forceUnlock_wakesHead() throws Exception {
        DistributedLock lock = client().getFairLock("tck:fair");
        lock.lock();
        List<String> order = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> head = queueWaiter(pool, lock, "head", order, Q);
            Await.until(Duration.ofSeconds(10), () -> channels().stream().anyMatch(ch -> ch.startsWith("redisson_lock__channel:{tck:fair}:")),
                    () -> "head waiter not subscribed on its own channel: " + channels());
            long t0 = System.nanoTime();
            assertTrue(ReentrantLockChapter.otherThreadReturns(lock::forceUnlock));
            head.get(60, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 10_000, "head woke after " + ms + " ms, not by the message");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of("head"), order);
    }

    /**
     * Rule 9.8: async waiters with explicit owner ids acquire in arrival order.
     * When it fails: async waiters must queue in the order they were called and be woken in that
     * order: look at the async fair path's queue entry and its wake-up.
     */
    @Test
    void rule9_8_async_explicitOwners_fifo() throws Exception {
        DistributedLock lock = client().getFairLock("tck:fair");
        lock.lockAsync(1).get(10, TimeUnit.SECONDS);
        List<Long> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (long owner = 2; owner <= 6; owner++) {
            long o = owner;
            long before = queueLength();
            all.add(lock.lockAsync(o).thenCompose(v -> {
                order.add(o);
                return lock.unlockAsync(o);
            }));
            Await.until(Duration.ofSeconds(10), () -> queueLength() > before, () -> "owner " + o + " not queued");
        }
        lock.unlockAsync(1).get(10, TimeUnit.SECONDS);
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertEquals(List.of(2L, 3L, 4L, 5L, 6L), order);
    }

    /**
     * Rule 9.9: a fair {@code unlock()} after the holder's lease ran out returns normally, as
     * Redisson's fair unlock does (spec 2.2: it answers true when the lock is gone); the holder
     * learns of the loss through {@code onLost} (LEASE_EXPIRED), once, not through an exception.
     * An unlock of a fair lock another owner holds still throws. (The plain lock keeps throwing
     * when it is free: rule 2.1.5.)
     * When it fails: a fair unlock of a lock already gone must return as Redisson's does and report
     * the loss once through {@code onLost}; an exception here means the plain lock's "free"
     * handling was applied to the fair lock.
     */
    @Test
    void rule9_9_unlockAfterLeaseExpired_returnsNormally_lossReportedOnce() throws Exception {
        LockClient c = client(Duration.ofSeconds(1));
        List<io.github.relock.api.LockLostEvent> lost = new CopyOnWriteArrayList<>();
        c.addLockLostListener(lost::add);
        DistributedLock lock = c.getFairLock("tck:fair-expired");
        lock.lock(200, TimeUnit.MILLISECONDS);
        Await.until(Duration.ofSeconds(10), () -> Long.valueOf(0).equals(redis("EXISTS", "tck:fair-expired")),
                () -> "the 200 ms lease never ran out");
        lock.unlock(); // must not throw
        Await.until(Duration.ofSeconds(10), () -> !lost.isEmpty(), () -> "the expired hold was never reported lost");
        assertEquals(1, lost.size(), () -> "reported more than once: " + lost);
        assertEquals(io.github.relock.api.LockLostEvent.Reason.LEASE_EXPIRED, lost.get(0).reason());
        DistributedLock other = client().getFairLock("tck:fair-expired");
        other.lock();
        assertThrows(IllegalMonitorStateException.class, lock::unlock,
                "a fair unlock of a lock another owner holds must still throw");
        other.unlock();
    }
}
