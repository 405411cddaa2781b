package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.FencedLock;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.api.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.ChildJvm;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.TckChapter;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Chapter 10: Redisson interop. A real {@code RedissonClient} (4.7.0 by default; 3.17.7 with
 * {@code -Dredisson.version=3.17.7}) on the same server and the same lock names: the two libraries
 * exclude each other, wake each other's waiters, keep each other's reentrancy and renewal, and
 * write identical keys, fields, channels and TTLs.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("redisson-interop")
public abstract class RedissonInteropChapter extends TckChapter {
    private static final Duration SHORT_WATCHDOG = Duration.ofMillis(2500);

    /** @param kit the enclosing kit */
    protected RedissonInteropChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * @param watchdog Redisson's lockWatchdogTimeout
     * @return a Redisson client on the kit's server, shut down after the test
     */
    protected RedissonClient redisson(Duration watchdog) {
        return RedissonConfigs.clientFor(kit, watchdog);
    }

    /**
     * Rule 10.1: relock and Redisson threads incrementing under the same lock lose no update
     * (4 threads of each x 50 increments; 150 with {@code -Drelock.tck.longLoops=true}). Where
     * relock's waiters cannot hear Redisson's unlocks (a driver without {@code SHARDED_PUBSUB} on a
     * cluster, against Redisson 4's sharded unlock messages) Redisson's watchdog timeout is 3 s, not
     * 30 s: such a waiter retries when the TTL it saw runs out, and with the 30 s one the rule sat
     * out a whole TTL (38 s instead of 9 s on Spring Data over Jedis on the cluster). Redisson's holds
     * here last a GET and a SET, so the timeout changes how long such a waiter sleeps, not who holds.
     * When it fails: the two libraries overlapped: check that relock's acquire reply decoding
     * follows Redisson's convention (nil acquired, a TTL held) and that a Redisson unlock's message
     * reaches relock's waiters through the driver.
     */
    @Test
    @Tag("interop-pubsub")
    void rule10_1_mixedContention_noLostUpdate() throws Exception {
        DistributedLock relock = client().getLock("tck:mixed");
        Duration redissonWatchdog = RedissonConfigs.relockDeafToRedissonUnlocks(kit) ? Duration.ofSeconds(3)
                : Duration.ofSeconds(30);
        RLock redisson = redisson(redissonWatchdog).getLock("tck:mixed");
        List<Lock> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            workers.add(t % 2 == 0 ? relock : redisson);
        }
        int rounds = loopSize(50, 150);
        assertEquals(8 * rounds, incrementUnderLocks(workers, rounds, "tck:mixed-counter"));
    }

    /**
     * Rule 10.2: a Redisson waiter is woken by a relock unlock (message, not the 30 s TTL).
     * When it fails: relock's release must publish "0" on {@code redisson_lock__channel:{name}} as
     * Redisson's unlock does, or Redisson's waiter sleeps out the TTL.
     */
    @Test
    void rule10_2_redissonWaiter_wokenByRelockUnlock() throws Exception {
        DistributedLock relock = client().getLock("tck:wake-r");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:wake-r");
        relock.lock();
        long ms = wakeUpMillis(acquireAndReleaseAt(redisson), relock::unlock);
        assertTrue(ms < 5_000, "Redisson waiter took " + ms + " ms after the relock unlock (TTL 30 s)");
    }

    /**
     * Rule 10.3: a relock waiter is woken by a Redisson unlock.
     * When it fails: relock's waiter must hear Redisson's unlock: on a cluster Redisson 4 publishes
     * it with SPUBLISH, so the driver needs {@code SHARDED_PUBSUB} and core must subscribe the
     * sharded channel.
     */
    @Test
    @Tag("interop-pubsub")
    void rule10_3_relockWaiter_wokenByRedissonUnlock() throws Exception {
        assumeRelockHearsRedissonUnlocks();
        DistributedLock relock = client().getLock("tck:wake-l");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:wake-l");
        redisson.lock();
        long ms = wakeUpMillis(acquireAndReleaseAt(relock), redisson::unlock);
        assertTrue(ms < 5_000, "relock waiter took " + ms + " ms after the Redisson unlock (TTL 30 s)");
    }

    /**
     * Rule 10.4: reentrancy on either side never lets the other in before the count reaches zero.
     * When it fails: both libraries count re-entries in the same field of the same hash: a wrong
     * count means relock's field or count format differs from Redisson's.
     */
    @Test
    void rule10_4_reentrancy_eachSide_keepsOtherOut() throws Exception {
        DistributedLock relock = client().getLock("tck:reent");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:reent");
        redisson.lock();
        redisson.lock();
        redisson.unlock();
        assertFalse(otherThreadReturns(relock::tryLock));
        redisson.unlock();
        relock.lock();
        relock.lock();
        relock.unlock();
        assertFalse(otherThreadReturns(redisson::tryLock));
        assertEquals(1, relock.getHoldCount());
        relock.unlock();
        assertTrue(otherThreadReturns(() -> {
            boolean ok = redisson.tryLock();
            redisson.unlock();
            return ok;
        }));
    }

    /**
     * Rule 10.5: forceUnlock works both ways.
     * When it fails: force unlock must delete the key and publish on each side, so the other side's
     * waiter wakes.
     */
    @Test
    void rule10_5_forceUnlock_bothWays() throws Exception {
        DistributedLock relock = client().getLock("tck:force-x");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:force-x");
        redisson.lock();
        assertTrue(relock.forceUnlock());
        assertFalse(redisson.isLocked());
        relock.lock();
        assertTrue(redisson.forceUnlock());
        assertFalse(relock.isLocked());
        assertThrows(IllegalMonitorStateException.class, relock::unlock);
    }

    /**
     * Rule 10.6: each side's watchdog keeps its lock past the timeout while the other waits in
     * vain.
     * When it fails: each side renews only its own hold: a lock that expired means relock's renewal
     * did not keep its own field's TTL, or touched the other side's.
     */
    @Test
    void rule10_6_watchdog_eachSideRenewsWhileOtherWaits() throws Exception {
        // The two directions use their own lock names and run at once, each holder on its own thread.
        LockClient relock = client(SHORT_WATCHDOG);
        RedissonClient redisson = redisson(SHORT_WATCHDOG);
        DistributedLock relockWaiter = relock.getLock("tck:wd-r");
        RLock redissonHolder = redisson.getLock("tck:wd-r");
        DistributedLock relockHolder = relock.getLock("tck:wd-l");
        RLock redissonWaiter = redisson.getLock("tck:wd-l");
        long wait = SHORT_WATCHDOG.toMillis() * 2; // past the timeout: only renewal can keep the lock
        Future<Void> redissonHolds = background(() -> {
            redissonHolder.lock();
            assertFalse(otherThreadReturns(() -> relockWaiter.tryLock(wait, TimeUnit.MILLISECONDS)),
                    "relock got a lock Redisson's watchdog should have kept");
            assertTrue(redissonHolder.isHeldByCurrentThread());
            redissonHolder.unlock();
            return null;
        });
        relockHolder.lock();
        assertFalse(otherThreadReturns(() -> redissonWaiter.tryLock(wait, TimeUnit.MILLISECONDS)),
                "Redisson got a lock relock's watchdog should have kept");
        assertTrue(relockHolder.isHeldByCurrentThread());
        relockHolder.unlock();
        try {
            redissonHolds.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error; // the Redisson holder's direction failed its assertion
            }
            throw (Exception) e.getCause();
        }
    }

    /**
     * Rule 10.7: both libraries write the same hash shape, field format and TTL, and publish "0" on
     * the same channel.
     * When it fails: compare {@code HGETALL}, {@code PTTL} and the channel message of both sides:
     * any difference is a wire-format difference from Redisson.
     */
    @Test
    void rule10_7_wireFormat_identicalOnBothSides() throws Exception {
        LockClient c = client();
        RedissonClient r = redisson(Duration.ofSeconds(30));
        long tid = Thread.currentThread().getId();
        String channel = "redisson_lock__channel:{tck:fmt}";
        boolean cluster = kit.topology().kind() == RedisTopology.Kind.CLUSTER;
        boolean redissonSharded = cluster && RedissonConfigs.redissonPublishesShardedOnCluster();
        try (RespClient sub = kit.topology().adminFor(channel);
             RespClient shardSub = kit.topology().adminFor(channel)) {
            sub.call("SUBSCRIBE", channel);
            if (cluster) {
                shardSub.call("SSUBSCRIBE", channel);
            }
            c.getLock("tck:fmt").lock();
            assertEquals(List.of(c.clientId() + ":" + tid, "1"), redis("HGETALL", "tck:fmt"));
            long relockTtl = pttl("tck:fmt");
            c.getLock("tck:fmt").unlock();
            assertEquals(List.of("message", channel, "0"), sub.readReply());
            if (cluster) { // relock publishes both ways on a cluster, for Redisson 3 and 4 alike
                assertEquals(List.of("smessage", channel, "0"), shardSub.readReply());
            }
            r.getLock("tck:fmt").lock();
            assertEquals(List.of(r.getId() + ":" + tid, "1"), redis("HGETALL", "tck:fmt"));
            long redissonTtl = pttl("tck:fmt");
            r.getLock("tck:fmt").unlock();
            assertEquals(List.of(redissonSharded ? "smessage" : "message", channel, "0"),
                    (redissonSharded ? shardSub : sub).readReply());
            assertTrue(Math.abs(relockTtl - redissonTtl) < 5_000, "TTLs differ: relock " + relockTtl + ", Redisson " + redissonTtl);
        }
    }

    /**
     * Rule 10.8: a non-owner's unlock throws IllegalMonitorStateException on both sides.
     * When it fails: a non-owner's unlock must throw {@code IllegalMonitorStateException} on both
     * sides: check relock's "held by another" answer.
     */
    @Test
    void rule10_8_nonOwnerUnlock_throwsOnBothSides() throws Exception {
        DistributedLock relock = client().getLock("tck:owner");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:owner");
        relock.lock();
        assertThrows(IllegalMonitorStateException.class, redisson::unlock);
        assertTrue(relock.isHeldByCurrentThread());
        relock.unlock();
        redisson.lock();
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, relock::unlock);
        assertTrue(e.getMessage().contains("another owner"), e.getMessage());
        assertTrue(relock.isLocked());
        assertTrue(redisson.isHeldByCurrentThread());
        assertEquals(1, redisson.getHoldCount());
        redisson.unlock();
    }

    // ------------------------------------------------------------------ fair lock and multi-lock

    private static final String FAIR_QUEUE = "redisson_lock_queue:{tck:fair-x}";
    private static final String FAIR_TIMEOUTS = "redisson_lock_timeout:{tck:fair-x}";

    private long fairQueueLength() {
        return (Long) redis("LLEN", FAIR_QUEUE);
    }

    /** The queue and the deadline set name the same waiters (a member without a score breaks Redisson 3.x). */
    private void assertQueueConsistent() {
        List<?> queue = (List<?>) redis("LRANGE", FAIR_QUEUE, "0", "-1");
        List<?> scored = (List<?>) redis("ZRANGE", FAIR_TIMEOUTS, "0", "-1");
        assertEquals(new java.util.TreeSet<Object>(queue), new java.util.TreeSet<Object>(scored),
                () -> "fair queue and deadlines disagree: queue " + queue + ", deadlines "
                        + redis("ZRANGE", FAIR_TIMEOUTS, "0", "-1", "WITHSCORES") + " at " + System.currentTimeMillis());
        assertEquals(queue.size(), new java.util.HashSet<Object>(queue).size(), "a waiter is queued twice: " + queue);
    }

    /**
     * Rule 10.9: relock and Redisson waiters interleaved in one fair queue acquire in arrival
     * order.
     * When it fails: the fair queue keys, the waiter ids in them and the deadline scores must be
     * Redisson's ({@code redisson_lock_queue:{name}}, {@code redisson_lock_timeout:{name}}).
     */
    @Test
    void rule10_9_fairQueue_interleavedWaiters_acquireInArrivalOrder() throws Exception {
        DistributedLock relock = client().getFairLock("tck:fair-x");
        RLock redisson = redisson(Duration.ofSeconds(30)).getFairLock("tck:fair-x");
        relock.lock();
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> expected = List.of("relock-1", "redisson-1", "relock-2", "redisson-2", "relock-3", "redisson-3");
        ExecutorService pool = Executors.newFixedThreadPool(expected.size());
        try {
            List<Future<?>> all = new ArrayList<>();
            for (String name : expected) {
                all.add(queueWaiter(pool, name.startsWith("relock") ? relock : redisson, name, order, FAIR_QUEUE));
            }
            assertQueueConsistent();
            relock.unlock();
            for (Future<?> f : all) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(expected, order);
        assertEquals(0L, redis("EXISTS", FAIR_QUEUE, FAIR_TIMEOUTS));
    }

    /**
     * Rule 10.10: a release on one side wakes the other side's head waiter by message, both ways.
     * When it fails: the fair release must publish to the head's own channel in Redisson's format,
     * and relock's head must listen on that channel.
     */
    @Test
    @Tag("interop-pubsub")
    void rule10_10_fairHead_wokenAcrossLibraries() throws Exception {
        assumeRelockHearsRedissonUnlocks();
        DistributedLock relock = client().getFairLock("tck:fair-x");
        RLock redisson = redisson(Duration.ofSeconds(30)).getFairLock("tck:fair-x");
        relock.lock();
        long ms = wakeUpMillis(() -> {
            redisson.lock();
            long at = System.nanoTime();
            redisson.unlock();
            return at;
        }, relock::unlock);
        assertTrue(ms < 5_000, "Redisson head woke " + ms + " ms after the relock release (TTL 30 s)");
        redisson.lock();
        ms = wakeUpMillis(() -> {
            relock.lock();
            long at = System.nanoTime();
            relock.unlock();
            return at;
        }, redisson::unlock);
        assertTrue(ms < 5_000, "relock head woke " + ms + " ms after the Redisson release (TTL 30 s)");
    }

    /**
     * Rule 10.11: a waiter giving up on either side leaves the queue consistent and in order for
     * the other.
     * When it fails: a waiter giving up must remove only its own entry and keep the deadlines of
     * those behind it as Redisson computes them.
     */
    @Test
    void rule10_11_fairGiveUp_eitherSide_queueStaysConsistent() throws Exception {
        DistributedLock relock = client().getFairLock("tck:fair-x");
        RLock redisson = redisson(Duration.ofSeconds(30)).getFairLock("tck:fair-x");
        relock.lock();
        assertFalse(otherThreadReturns(() -> redisson.tryLock(300, TimeUnit.MILLISECONDS)));
        assertQueueConsistent();
        assertEquals(0L, fairQueueLength(), "Redisson's acquireFailed left a waiter");
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> first = queueWaiter(pool, redisson, "redisson-first", order, FAIR_QUEUE);
            assertFalse(otherThreadReturns(() -> relock.tryLock(300, TimeUnit.MILLISECONDS)));
            assertQueueConsistent();
            assertEquals(1L, fairQueueLength(), "relock's give-up disturbed the queue");
            Future<?> second = queueWaiter(pool, relock, "relock-second", order, FAIR_QUEUE);
            assertQueueConsistent();
            relock.unlock();
            first.get(2, TimeUnit.MINUTES);
            second.get(2, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of("redisson-first", "relock-second"), order);
    }

    /**
     * Rule 10.12: Redisson's multi-lock and relock's multi-lock over the same names exclude each
     * other.
     * When it fails: relock's multi-lock and Redisson's {@code RedissonMultiLock} must lock the
     * same keys with the same scripts' conventions.
     */
    @Test
    void rule10_12_multiLock_excludesRedissonMultiLock() throws Exception {
        LockClient c = client();
        RedissonClient r = redisson(Duration.ofSeconds(30));
        DistributedLock relockMulti = c.getMultiLock(c.getLock("tck:m1"), c.getLock("tck:m2"), c.getLock("tck:m3"));
        RLock redissonMulti = r.getMultiLock(r.getLock("tck:m1"), r.getLock("tck:m2"), r.getLock("tck:m3"));
        redissonMulti.lock();
        assertFalse(otherThreadReturns(() -> relockMulti.tryLock(200, TimeUnit.MILLISECONDS)));
        assertEquals(3L, existing("tck:m1", "tck:m2", "tck:m3"));
        redissonMulti.unlock();
        relockMulti.lock();
        assertFalse(otherThreadReturns(() -> redissonMulti.tryLock(200, -1, TimeUnit.MILLISECONDS)));
        relockMulti.unlock();
        assertEquals(0L, existing("tck:m1", "tck:m2", "tck:m3"));
    }

    /**
     * Rule 10.13: relock's spin lock and Redisson's reentrant lock exclude each other both ways,
     * and so do Redisson's spin lock and relock's reentrant lock; a spin waiter on either side
     * acquires by polling once the other side releases.
     * When it fails: the spin lock writes the reentrant lock's hash, so each excludes the other
     * across libraries; the spin waiter acquires by polling.
     */
    @Test
    void rule10_13_spinLock_excludesAndIsExcludedByRedisson() throws Exception {
        RedissonClient r = redisson(Duration.ofSeconds(30));
        DistributedLock relockSpin = client().getSpinLock("tck:spin-x");
        DistributedLock relockPlain = client().getLock("tck:spin-x");
        RLock redissonPlain = r.getLock("tck:spin-x");
        RLock redissonSpin = r.getSpinLock("tck:spin-x");
        redissonPlain.lock();
        assertFalse(otherThreadReturns(relockSpin::tryLock), "relock's spin lock took a held Redisson lock");
        Future<Boolean> relockWaiter = background(() -> {
            boolean ok = relockSpin.tryLock(30, TimeUnit.SECONDS);
            if (ok) {
                relockSpin.unlock();
            }
            return ok;
        });
        redissonPlain.unlock();
        assertTrue(relockWaiter.get(Await.scaled(Duration.ofSeconds(20)).toSeconds(), TimeUnit.SECONDS));
        relockPlain.lock();
        assertFalse(otherThreadReturns(() -> redissonSpin.tryLock(100, -1, TimeUnit.MILLISECONDS)),
                "Redisson's spin lock took a held relock lock");
        Future<Boolean> redissonWaiter = background(() -> {
            boolean ok = redissonSpin.tryLock(30, -1, TimeUnit.SECONDS);
            if (ok) {
                redissonSpin.unlock();
            }
            return ok;
        });
        relockPlain.unlock();
        assertTrue(redissonWaiter.get(Await.scaled(Duration.ofSeconds(20)).toSeconds(), TimeUnit.SECONDS));
        assertEquals(0L, redis("EXISTS", "tck:spin-x"));
    }

    /**
     * Rule 10.14: fenced-lock tokens strictly increase across libraries: relock and Redisson
     * (3.19+) taking the same fenced lock in turn each get a token above every earlier one, and
     * both read the same last token. Skipped, saying why, on a Redisson without a fenced lock.
     * When it fails: both libraries must increment the same token key, {@code
     * redisson_lock_token:{name}}, in the grant.
     */
    @Test
    void rule10_14_fencedTokens_strictlyIncreaseAcrossLibraries() throws Exception {
        assumeRedissonHas("getFencedLock", "3.19.0");
        FencedLock relock = client().getFencedLock("tck:fence-x");
        RedissonClient r = redisson(Duration.ofSeconds(30));
        try {
            long last = 0;
            for (int round = 0; round < 3; round++) {
                long mine = relock.lockAndGetToken();
                relock.unlock();
                assertTrue(mine > last, "relock token " + mine + " after " + last);
                long theirs = Redisson4.fencedLockAndUnlock(r, "tck:fence-x");
                assertTrue(theirs > mine, "Redisson token " + theirs + " after relock's " + mine);
                last = theirs;
            }
            assertEquals(last, relock.getToken());
            assertEquals(last, Redisson4.fencedToken(r, "tck:fence-x"));
        } finally {
            redis("DEL", "redisson_lock_token:{tck:fence-x}");
        }
    }

    /**
     * Rule 10.15: relock's and Redisson's (4.4+) non-reentrant locks exclude each other both ways
     * and write the same hash field. Skipped, saying why, on a Redisson without them.
     * When it fails: the non-reentrant lock must write Redisson's hash field and refuse re-entry as
     * Redisson 4.4+ does.
     */
    @Test
    void rule10_15_nonReentrantLocks_excludeEachOther() throws Exception {
        assumeRedissonHas("getNonReentrantLock", "4.4.0");
        DistributedLock relock = client().getNonReentrantLock("tck:once-x");
        RLock redisson = redisson(Duration.ofSeconds(30)).getNonReentrantLock("tck:once-x");
        redisson.lock();
        assertEquals(1L, redis("HLEN", "tck:once-x"));
        assertFalse(otherThreadReturns(relock::tryLock), "relock took a held Redisson non-reentrant lock");
        redisson.unlock();
        relock.lock();
        assertFalse(otherThreadReturns(() -> redisson.tryLock(100, -1, TimeUnit.MILLISECONDS)),
                "Redisson took a held relock non-reentrant lock");
        relock.unlock();
        assertEquals(0L, redis("EXISTS", "tck:once-x"));
    }

    /**
     * Rule 10.16: relock and Redisson readers share one read-write lock; a writer of either
     * library excludes the other's readers and writers; a relock write release ("1") wakes a
     * waiting Redisson reader, and a Redisson write release wakes a relock reader.
     * When it fails: the read-write keys, mode field, timeout keys and the "1" a write release
     * publishes must be Redisson's; relock's reader must hear Redisson's write release. The rule
     * releases only once the Redisson reader is parked on its semaphore: a "1" wakes just the
     * threads blocked when it arrives (spec 3.1), so a reader still between its retry and its park
     * sleeps out the TTL whichever library released.
     */
    @Test
    @Tag("interop-pubsub")
    void rule10_16_readWrite_readersShareWritersExcludeAcrossLibraries() throws Exception {
        assumeRelockHearsRedissonUnlocks(); // its last step wakes a relock reader by a Redisson unlock
        ReadWriteDistributedLock relock = client().getReadWriteLock("tck:rw-x");
        RReadWriteLock redisson = redisson(Duration.ofSeconds(30)).getReadWriteLock("tck:rw-x");
        assertRelockReaderSharedWithRedissonReaderOnly(relock, redisson);
        relock.writeLock().lock();
        Background<Boolean> redissonReader = start(() -> {
            boolean ok = redisson.readLock().tryLock(30, -1, TimeUnit.SECONDS);
            if (ok) {
                redisson.readLock().unlock();
            }
            return ok;
        });
        awaitParkedOnSemaphore(redissonReader.thread(), "the Redisson reader");
        relock.writeLock().unlock();
        assertTrue(redissonReader.future().get(Await.scaled(Duration.ofSeconds(10)).toSeconds(), TimeUnit.SECONDS));
        redisson.writeLock().lock();
        assertFalse(otherThreadReturns(() -> relock.readLock().tryLock()), "a relock reader took a Redisson-written lock");
        Future<Boolean> relockReader = background(() -> {
            boolean ok = relock.readLock().tryLock(30, TimeUnit.SECONDS);
            if (ok) {
                relock.readLock().unlock();
            }
            return ok;
        });
        Await.until(Duration.ofSeconds(20), () -> subscribed("redisson_rwlock:{tck:rw-x}"),
                () -> "the relock reader never subscribed");
        redisson.writeLock().unlock();
        assertTrue(relockReader.get(Await.scaled(Duration.ofSeconds(10)).toSeconds(), TimeUnit.SECONDS));
        assertEquals(0L, redis("EXISTS", "tck:rw-x"));
    }

    /**
     * Rule 10.17: readers' timeout keys are kept intact across libraries: after several watchdog
     * periods, a Redisson reader's release leaves a relock reader holding, and a relock reader's
     * release leaves a Redisson reader holding (either release deletes the whole hash if it finds
     * the other's timeout keys gone).
     * When it fails: each side must renew its readers' timeout keys the way the other side's read
     * release expects to find them.
     */
    @Test
    void rule10_17_readWrite_readerTimeoutKeysKeptAcrossLibraries() throws Exception {
        LockClient c = kit.newLockClient(io.github.relock.api.LockOptions.builder()
                .lockWatchdogTimeout(Duration.ofMillis(1500)).build());
        ReadWriteDistributedLock relock = c.getReadWriteLock("tck:rw-keys");
        RReadWriteLock redisson = redisson(Duration.ofMillis(1500)).getReadWriteLock("tck:rw-keys");
        long relockOwner = 4242;
        relock.readLock().lockAsync(relockOwner).get(10, TimeUnit.SECONDS);
        String relockField = c.clientId() + ":" + relockOwner;
        // two watchdog timeouts (six renewal periods): a timeout key no renewal reached is gone after one
        Await.holdsFor(Duration.ofMillis(3000), () -> (Long) redis("EXISTS", "tck:rw-keys") == 1,
                () -> "the relock reader's lock lapsed");
        onOtherThread(() -> {
            redisson.readLock().lock();
            redisson.readLock().unlock();
            return null;
        });
        assertEquals("1", redis("HGET", "tck:rw-keys", relockField), "Redisson's read release evicted a live relock reader");
        redisson.readLock().lock(); // this thread, watchdog-renewed by Redisson
        Await.holdsFor(Duration.ofMillis(3000), () -> (Long) redis("EXISTS", "tck:rw-keys") == 1,
                () -> "the lock lapsed with two readers");
        relock.readLock().unlockAsync(relockOwner).get(10, TimeUnit.SECONDS);
        assertTrue(redisson.readLock().isHeldByCurrentThread(), "relock's read release evicted a live Redisson reader");
        Await.holdsFor(Duration.ofMillis(2000), () -> (Long) redis("EXISTS", "tck:rw-keys") == 1,
                () -> "the Redisson reader's lock lapsed after relock's release");
        redisson.readLock().unlock();
        assertEquals(0L, redis("EXISTS", "tck:rw-keys"));
    }

    /**
     * Rule 10.18: a Redisson writer that downgrades keeps relock writers out until its read goes;
     * relock's downgrade keeps Redisson writers out.
     * When it fails: a downgraded writer's read must keep the other side's writers out: check the
     * mode and fields after the write is released.
     */
    @Test
    void rule10_18_readWrite_downgradeHonouredAcrossLibraries() throws Exception {
        ReadWriteDistributedLock relock = client().getReadWriteLock("tck:rw-dg");
        RReadWriteLock redisson = redisson(Duration.ofSeconds(30)).getReadWriteLock("tck:rw-dg");
        redisson.writeLock().lock();
        redisson.readLock().lock();
        redisson.writeLock().unlock();
        assertEquals("read", redis("HGET", "tck:rw-dg", "mode"));
        assertFalse(otherThreadReturns(() -> relock.writeLock().tryLock()), "a relock writer passed a downgraded Redisson reader");
        redisson.readLock().unlock();
        relock.writeLock().lock();
        relock.readLock().lock();
        relock.writeLock().unlock();
        assertFalse(otherThreadReturns(() -> redisson.writeLock().tryLock(100, -1, TimeUnit.MILLISECONDS)),
                "a Redisson writer passed a downgraded relock reader");
        relock.readLock().unlock();
        assertEquals(0L, redis("EXISTS", "tck:rw-dg"));
    }

    /**
     * Rule 10.19: a relock holder's process is killed ({@code SIGKILL}, a child JVM with a 2 s
     * watchdog): a Redisson waiter and a relock waiter in this JVM both get the lock once it
     * expires, one after the other, and nothing renews it after the death.
     * When it fails: nothing may renew a killed holder's lock, and both sides' waiters must retry
     * when its TTL runs out.
     */
    @Test
    void rule10_19_holderProcessKilled_redissonAndRelockWaitersAcquire() throws Exception {
        assumeSingleServer("the child JVM connects to one server");
        Assumptions.assumeTrue(io.github.relock.tck.fixtures.RedisFixture.canControlServers(),
                "REDIS_URL is set: the kit starts no child process against a shared server");
        String name = "tck:crash";
        try (ChildJvm child = ChildJvm.holding(kit, kit.server(), name, Duration.ofSeconds(2), Duration.ofSeconds(60))) {
            RLock redisson = redisson(Duration.ofSeconds(30)).getLock(name);
            DistributedLock relock = client().getLock(name);
            Future<Boolean> r = background(() -> {
                boolean got = redisson.tryLock(60, -1, TimeUnit.SECONDS);
                if (got) {
                    redisson.unlock();
                }
                return got;
            });
            Future<Boolean> l = background(() -> {
                boolean got = relock.tryLock(60, TimeUnit.SECONDS);
                if (got) {
                    relock.unlock();
                }
                return got;
            });
            Await.until(Duration.ofSeconds(30), () -> subscribed("redisson_lock__channel:{" + name + "}"),
                    () -> "no waiter subscribed");
            child.kill();
            child.awaitLockExpiredUnrenewed(kit.topology(), name, Duration.ofSeconds(60));
            assertTrue(r.get(60, TimeUnit.SECONDS), "the Redisson waiter never got the dead holder's lock");
            assertTrue(l.get(60, TimeUnit.SECONDS), "the relock waiter never got the dead holder's lock");
        }
        assertEquals(0L, redis("EXISTS", name));
    }

    /** Runs {@code body} on a fresh daemon thread; the future completes with its result. */
    private static <T> Future<T> background(Callable<T> body) {
        return start(body).future();
    }

    /** A body running on a thread of its own: its result and its thread. */
    private record Background<T>(Future<T> future, Thread thread) {
    }

    /** Runs {@code body} on a fresh daemon thread. */
    private static <T> Background<T> start(Callable<T> body) {
        java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(body);
        Thread t = new Thread(task, "tck-background");
        t.setDaemon(true);
        t.start();
        return new Background<>(task, t);
    }

    /**
     * Waits until {@code thread} is blocked in a {@link java.util.concurrent.Semaphore}, where a
     * Redisson sync waiter parks on its lock entry (spec 3.2). Being subscribed is not enough for
     * a write release's "1": it releases as many permits as threads are blocked at that moment.
     */
    private static void awaitParkedOnSemaphore(Thread thread, String who) {
        Await.until(Duration.ofSeconds(20), () -> thread.getState() == Thread.State.TIMED_WAITING
                && java.util.Arrays.stream(thread.getStackTrace())
                        .anyMatch(f -> f.getClassName().equals(java.util.concurrent.Semaphore.class.getName())),
                () -> who + " never parked on its semaphore: " + thread.getState() + " "
                        + java.util.Arrays.toString(thread.getStackTrace()));
    }

    /** @return how many of the keys exist (one EXISTS each: on a cluster they may live on different nodes) */
    private long existing(String... keys) {
        long n = 0;
        for (String k : keys) {
            n += (Long) redis("EXISTS", k);
        }
        return n;
    }

    /** @return whether someone subscribed the channel, classic or sharded (Redisson 4 on a cluster) */
    private boolean subscribed(String channel) {
        return channels().contains(channel) || channels().contains("sharded " + channel);
    }

    private void assumeRelockHearsRedissonUnlocks() {
        RedissonConfigs.assumeRelockHearsRedissonUnlocks(kit);
    }

    private static final String PREFIX = "app1:";

    /** @return a Redisson client whose name mapper puts {@link #PREFIX} before every name */
    private RedissonClient prefixedRedisson() {
        Config config = new Config();
        config.setLockWatchdogTimeout(30_000);
        RedissonConfigs.connectWithPrefix(config, kit.topology(), PREFIX);
        RedissonClient client = Redisson.create(config);
        kit.closeAfterTest(() -> client.shutdown(0, 5, TimeUnit.SECONDS));
        return client;
    }

    /** @return a relock client with {@code NameMapper.prefix(PREFIX)} */
    private LockClient prefixedRelock() {
        return kit.newLockClient(io.github.relock.api.LockOptions.builder()
                .nameMapper(io.github.relock.api.NameMapper.prefix(PREFIX)).build());
    }

    /** Redisson 3.x has its NameMapper in org.redisson.api (4.x: org.redisson.config). */
    private static boolean redisson3() {
        try {
            Class.forName("org.redisson.api.NameMapper");
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Rule 10.20: with the same prefix mapper on both sides, relock and Redisson exclude each other
     * on the same user name, both ways, and the lock hash in Redis is the prefixed name.
     * When it fails: the same prefix must be applied to every key on both sides; a lock that does
     * not exclude means one side maps a key the other does not.
     */
    @Test
    void rule10_20_prefixMapper_bothSidesExcludeOnSameUserName() throws Exception {
        DistributedLock relock = prefixedRelock().getLock("tck:nm");
        RLock redisson = prefixedRedisson().getLock("tck:nm");
        redisson.lock();
        assertEquals(1L, redis("EXISTS", PREFIX + "tck:nm"));
        assertEquals(0L, redis("EXISTS", "tck:nm"));
        assertFalse(otherThreadReturns(relock::tryLock), "relock took a lock Redisson holds under the same mapped name");
        redisson.unlock();
        relock.lock();
        assertEquals(1L, redis("EXISTS", PREFIX + "tck:nm"));
        assertFalse(otherThreadReturns(redisson::tryLock), "Redisson took a lock relock holds under the same mapped name");
        relock.unlock();
        assertEquals(0L, redis("EXISTS", PREFIX + "tck:nm"));
    }

    /**
     * Rule 10.21: with the same prefix mapper, a relock waiter is woken by a Redisson unlock on the
     * prefixed channel.
     * When it fails: the waiter must listen on the prefixed channel, {@code
     * redisson_lock__channel:{app1:name}}, where Redisson publishes.
     */
    @Test
    @Tag("interop-pubsub")
    void rule10_21_prefixMapper_relockWaiterWokenByRedissonUnlock() throws Exception {
        assumeRelockHearsRedissonUnlocks();
        DistributedLock relock = prefixedRelock().getLock("tck:nm-wake");
        RLock redisson = prefixedRedisson().getLock("tck:nm-wake");
        redisson.lock();
        long ms = wakeUpMillis(acquireAndReleaseAt(relock), () -> {
            assertTrue(subscribed("redisson_lock__channel:{" + PREFIX + "tck:nm-wake}"),
                    () -> "the relock waiter is not on the prefixed channel: " + channels());
            redisson.unlock();
        });
        assertTrue(ms < 5_000, "relock waiter took " + ms + " ms after the Redisson unlock (TTL 30 s)");
    }

    /**
     * Rule 10.22: with the same prefix mapper, a fair-lock waiter of either library queues under the
     * prefixed queue key, so the two share one queue. Documented difference: Redisson 3.17.7 (before
     * 3.52.0) built its fair queue and timeout keys from the unmapped name, so its waiters queue
     * under {@code redisson_lock_queue:{tck:nm-fair}} and the two libraries keep separate queues.
     * A relock unlock then finds no waiter in the prefixed queue and wakes nobody; the 3.17.7 waiter
     * takes the lock when it retries, once the TTL its script reported runs out. So against 3.17.7
     * relock holds with a 10 s lease: with the 30 s watchdog lease that retry would land at the
     * very end of the waiter's 30 s budget.
     * When it fails: the fair queue keys must carry the prefix as Redisson's {@code NameMapper}
     * maps them.
     */
    @Test
    void rule10_22_prefixMapper_fairQueueKeysCarryPrefix() throws Exception {
        // On a cluster, 3.17.7's unmapped queue key hashes to another slot than the mapped lock hash,
        // so its fair lock cannot run its script at all there: nothing to compare.
        Assumptions.assumeFalse(redisson3() && kit.topology().kind() == RedisTopology.Kind.CLUSTER,
                "Redisson 3.17.7 builds the fair queue key from the unmapped name, in another cluster slot "
                        + "than the mapped lock hash, so its prefixed fair lock cannot run on a cluster");
        DistributedLock relock = prefixedRelock().getFairLock("tck:nm-fair");
        RLock redisson = prefixedRedisson().getFairLock("tck:nm-fair");
        String mappedQueue = "redisson_lock_queue:{" + PREFIX + "tck:nm-fair}";
        String redissonQueue = redisson3() ? "redisson_lock_queue:{tck:nm-fair}" : mappedQueue;
        if (redisson3()) {
            relock.lock(10, TimeUnit.SECONDS);
        } else {
            relock.lock();
        }
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            Future<Boolean> waiter = pool.submit(() -> {
                boolean ok = redisson.tryLock(30, -1, TimeUnit.SECONDS);
                if (ok) {
                    redisson.unlock();
                }
                return ok;
            });
            Await.until(Duration.ofSeconds(20), () -> ((List<?>) redis("LRANGE", redissonQueue, "0", "-1")).size() == 1,
                    () -> "the Redisson waiter is not in " + redissonQueue + "; queues: " + redis("KEYS", "redisson_lock_queue:*"));
            relock.unlock();
            assertTrue(waiter.get(Await.scaled(Duration.ofSeconds(30)).toSeconds(), TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0L, redis("EXISTS", mappedQueue, "redisson_lock_timeout:{" + PREFIX + "tck:nm-fair}"));
    }

    /**
     * Rule 10.23: with the same prefix mapper, read-write locks share readers and exclude writers
     * across libraries. Not run on Redisson 3.x, which mapped read/write lock names twice.
     * When it fails: the read-write keys must carry the prefix exactly once.
     */
    @Test
    void rule10_23_prefixMapper_readWriteAcrossLibraries() throws Exception {
        Assumptions.assumeFalse(redisson3(), "Redisson 3.17.7 maps readLock()/writeLock() names twice (app1:app1:...)");
        ReadWriteDistributedLock relock = prefixedRelock().getReadWriteLock("tck:nm-rw");
        RReadWriteLock redisson = prefixedRedisson().getReadWriteLock("tck:nm-rw");
        assertRelockReaderSharedWithRedissonReaderOnly(relock, redisson);
        redisson.writeLock().lock();
        assertEquals(1L, redis("EXISTS", PREFIX + "tck:nm-rw"));
        assertFalse(otherThreadReturns(() -> relock.readLock().tryLock()), "a relock reader took a Redisson-written lock");
        redisson.writeLock().unlock();
        assertTrue(otherThreadReturns(() -> {
            boolean ok = relock.writeLock().tryLock();
            relock.writeLock().unlock();
            return ok;
        }));
        assertEquals(0L, redis("EXISTS", PREFIX + "tck:nm-rw"));
    }

    /**
     * Rule 10.24: a relock lock listener hears every Redisson unlock and force unlock once, and
     * releases by both libraries milliseconds apart as as many events: Redisson publishes each
     * release one way (classic in 3.x, sharded on a cluster in 4.x), relock both ways on a
     * cluster, and no copy is counted twice or merged with another release.
     * When it fails: relock's listener hears a Redisson unlock by its message on the lock's channel
     * (classic from Redisson 3, sharded from Redisson 4 on a cluster): check that the listener's
     * client subscribes both ways and that addListener returns only once it does.
     */
    @Test
    @Tag("interop-pubsub")
    void rule10_24_lockListener_hearsRedissonReleasesOnceEach() throws Exception {
        assumeRelockHearsRedissonUnlocks();
        DistributedLock relock = client().getLock("tck:listen-x");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:listen-x");
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        int id = relock.addListener((io.github.relock.api.LockListener.Deleted) events::add);
        Duration deadline = Duration.ofSeconds(15);
        redisson.lock();
        redisson.unlock();
        Await.until(deadline, () -> events.size() == 1, () -> "a Redisson unlock was not heard: " + events);
        redisson.lock();
        redisson.unlock();
        relock.lock();
        relock.unlock();
        redisson.lock();
        redisson.unlock();
        Await.until(deadline, () -> events.size() == 4, () -> "three releases in a row were not heard as three: " + events);
        redisson.lock();
        assertTrue(redisson.forceUnlock());
        Await.until(deadline, () -> events.size() == 5, () -> "a Redisson force unlock was not heard: " + events);
        Await.holdsFor(Duration.ofMillis(300), () -> events.size() == 5, () -> "a release was heard twice: " + events);
        relock.removeListener(id);
    }

    /**
     * Rule 10.25: on a cluster, a Redisson 4 unlock heard right after a lone classic message whose
     * waiter took the lock still wakes the next relock waiter. relock listens both ways there and
     * takes a sharded copy heard within a second of a classic one as its twin; a copy paired with
     * a message whose waiter left holding the lock was dropped, though that holder may have lost
     * or released the lock since and the copy been another client's release: the other waiters
     * then slept until the TTL they had seen ran out (60 s here).
     * When it fails: a copy paired as a twin may be another client's release: when the waiter the
     * first copy woke has left, the copy must wake the next waiter (Channel.twinOf).
     */
    @Test
    @Tag("interop-pubsub")
    void rule10_25_redissonUnlock_pairedWithALoneCopy_stillWakesAWaiter() throws Exception {
        assumeRelockHearsRedissonUnlocks();
        Assumptions.assumeTrue(kit.topology().kind() == RedisTopology.Kind.CLUSTER,
                "relock pairs a classic and a sharded copy only on a cluster");
        String name = "tck:twin-held";
        String channel = "redisson_lock__channel:{" + name + "}";
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock(name);
        DistributedLock lock = client().getLock(name);
        redis("HSET", name, "foreign:1", "1"); // another client's hold, 60 s
        redis("PEXPIRE", name, "60000");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Thread[] threads = new Thread[2];
            Future<Boolean> first = pool.submit(() -> {
                threads[0] = Thread.currentThread();
                return lock.tryLock(60, 30, TimeUnit.SECONDS); // left holding, until its lease ends
            });
            Await.until(Duration.ofSeconds(20), () -> threads[0] != null
                    && java.util.concurrent.locks.LockSupport.getBlocker(threads[0]) instanceof io.github.relock.api.WaitingForLock,
                    () -> "the first relock waiter never parked");
            Future<Long> second = pool.submit(() -> {
                threads[1] = Thread.currentThread();
                return acquireAndReleaseAt(lock).call();
            });
            Await.until(Duration.ofSeconds(20), () -> threads[1] != null
                    && java.util.concurrent.locks.LockSupport.getBlocker(threads[1]) instanceof io.github.relock.api.WaitingForLock,
                    () -> "the second relock waiter never parked");
            // The lock frees with a lone classic message: the first waiter, parked longest, takes it.
            redis("DEL", name);
            redis("PUBLISH", channel, "0");
            assertTrue(first.get(20, TimeUnit.SECONDS), "the first waiter did not take the freed lock");
            // Its hold goes (as on expiry), and Redisson takes and releases the lock at once: its
            // sharded unlock comes within the pairing second of the classic message.
            redis("DEL", name);
            redisson.lock();
            long unlockedAt = System.nanoTime();
            redisson.unlock();
            long at = second.get(60, TimeUnit.SECONDS);
            assertTrue(at > 0, "the second waiter never got the lock");
            long ms = TimeUnit.NANOSECONDS.toMillis(at - unlockedAt);
            assertTrue(ms < 10_000, "the second relock waiter took " + ms + " ms after the Redisson unlock (it saw a TTL"
                    + " of 60 s): the unlock was taken as the twin of the classic message before it");
        } finally {
            pool.shutdownNow();
        }
    }

    /** Takes a relock read lock, checks a Redisson reader shares it and a Redisson writer does not, releases it. */
    private static void assertRelockReaderSharedWithRedissonReaderOnly(ReadWriteDistributedLock relock,
            RReadWriteLock redisson) throws Exception {
        relock.readLock().lock();
        assertTrue(otherThreadReturns(() -> {
            boolean ok = redisson.readLock().tryLock(1, -1, TimeUnit.SECONDS);
            redisson.readLock().unlock();
            return ok;
        }), "a Redisson reader was refused beside a relock reader");
        assertFalse(otherThreadReturns(() -> redisson.writeLock().tryLock(100, -1, TimeUnit.MILLISECONDS)),
                "a Redisson writer took a relock-read lock");
        relock.readLock().unlock();
    }

    /** @return a waiter for {@link #wakeUpMillis}: waits up to 60 s for {@code lock}, answers when it got it (or -1) */
    private static Callable<Long> acquireAndReleaseAt(Lock lock) {
        return () -> {
            boolean ok = lock.tryLock(60, TimeUnit.SECONDS);
            long at = System.nanoTime();
            if (ok) {
                lock.unlock();
            }
            return ok ? at : -1L;
        };
    }

    private static void assumeRedissonHas(String method, String since) {
        boolean has = java.util.Arrays.stream(RedissonClient.class.getMethods()).anyMatch(m -> m.getName().equals(method));
        Assumptions.assumeTrue(has, () -> "the Redisson on the class path has no " + method + " (added in " + since + ")");
    }

    /** Calls to Redisson API that older versions lack; loaded only after {@link #assumeRedissonHas}. */
    private static final class Redisson4 {
        static long fencedLockAndUnlock(RedissonClient r, String name) throws Exception {
            org.redisson.api.RFencedLock lock = r.getFencedLock(name);
            return onOtherThread(() -> {
                Long token = lock.lockAndGetToken();
                lock.unlock();
                return token;
            });
        }

        static long fencedToken(RedissonClient r, String name) {
            return r.getFencedLock(name).getToken();
        }
    }

    /**
     * Starts {@code waiter} on another thread, waits until it subscribed, runs {@code release},
     * and returns how long after the release the waiter acquired.
     */
    private long wakeUpMillis(Callable<Long> waiter, Runnable release) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Long> acquiredAt = pool.submit(waiter);
            Await.until(Duration.ofSeconds(20), () -> !channels().isEmpty(), () -> "waiter never subscribed");
            long releasedAt = System.nanoTime();
            release.run();
            long at = acquiredAt.get(60, TimeUnit.SECONDS);
            assertTrue(at > 0, "waiter gave up");
            return (at - releasedAt) / 1_000_000;
        } finally {
            pool.shutdownNow();
        }
    }
}
