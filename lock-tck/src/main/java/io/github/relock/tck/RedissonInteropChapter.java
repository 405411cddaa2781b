package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RLock;
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
public abstract class RedissonInteropChapter extends TckChapter {
    private static final Duration SHORT_WATCHDOG = Duration.ofMillis(900);

    /** @param kit the enclosing kit */
    protected RedissonInteropChapter(RelockTck kit) {
        super(kit);
    }

    /**
     * @param watchdog Redisson's lockWatchdogTimeout
     * @return a Redisson client on the kit's server, shut down after the test
     */
    protected RedissonClient redisson(Duration watchdog) {
        Config config = new Config();
        config.setLockWatchdogTimeout(watchdog.toMillis());
        config.useSingleServer().setAddress("redis://" + kit.server().host() + ":" + kit.server().port())
                .setConnectionMinimumIdleSize(2).setConnectionPoolSize(8)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(4);
        RedissonClient client = Redisson.create(config);
        kit.closeAfterTest(() -> client.shutdown(0, 5, TimeUnit.SECONDS));
        return client;
    }

    /** Rule 10.1: relock and Redisson threads incrementing under the same lock lose no update. */
    @Test
    void rule10_1_mixedContention_noLostUpdate() throws Exception {
        DistributedLock relock = client().getLock("tck:mixed");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:mixed");
        int perThread = 150;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Lock lock = t % 2 == 0 ? relock : redisson;
                done.add(pool.submit(() -> {
                    try (RespClient redis = kit.server().admin()) {
                        for (int i = 0; i < perThread; i++) {
                            lock.lock();
                            try {
                                Object v = redis.call("GET", "tck:mixed-counter");
                                long next = (v == null ? 0 : Long.parseLong((String) v)) + 1;
                                redis.call("SET", "tck:mixed-counter", Long.toString(next));
                            } finally {
                                lock.unlock();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(Integer.toString(8 * perThread), redis("GET", "tck:mixed-counter"));
        redis("DEL", "tck:mixed-counter");
    }

    /** Rule 10.2: a Redisson waiter is woken by a relock unlock (message, not the 30 s TTL). */
    @Test
    void rule10_2_redissonWaiter_wokenByRelockUnlock() throws Exception {
        DistributedLock relock = client().getLock("tck:wake-r");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:wake-r");
        relock.lock();
        long ms = wakeUpMillis(() -> {
            boolean ok = redisson.tryLock(60, TimeUnit.SECONDS);
            long at = System.nanoTime();
            if (ok) {
                redisson.unlock();
            }
            return ok ? at : -1L;
        }, relock::unlock);
        assertTrue(ms < 5_000, "Redisson waiter took " + ms + " ms after the relock unlock (TTL 30 s)");
    }

    /** Rule 10.3: a relock waiter is woken by a Redisson unlock. */
    @Test
    void rule10_3_relockWaiter_wokenByRedissonUnlock() throws Exception {
        DistributedLock relock = client().getLock("tck:wake-l");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:wake-l");
        redisson.lock();
        long ms = wakeUpMillis(() -> {
            boolean ok = relock.tryLock(60, TimeUnit.SECONDS);
            long at = System.nanoTime();
            if (ok) {
                relock.unlock();
            }
            return ok ? at : -1L;
        }, redisson::unlock);
        assertTrue(ms < 5_000, "relock waiter took " + ms + " ms after the Redisson unlock (TTL 30 s)");
    }

    /** Rule 10.4: reentrancy on either side never lets the other in before the count reaches zero. */
    @Test
    void rule10_4_reentrancy_eachSide_keepsOtherOut() throws Exception {
        DistributedLock relock = client().getLock("tck:reent");
        RLock redisson = redisson(Duration.ofSeconds(30)).getLock("tck:reent");
        redisson.lock();
        redisson.lock();
        redisson.unlock();
        assertFalse(ReentrantLockChapter.otherThreadReturns(relock::tryLock));
        redisson.unlock();
        relock.lock();
        relock.lock();
        relock.unlock();
        assertFalse(ReentrantLockChapter.otherThreadReturns(redisson::tryLock));
        assertEquals(1, relock.getHoldCount());
        relock.unlock();
        assertTrue(ReentrantLockChapter.otherThreadReturns(() -> {
            boolean ok = redisson.tryLock();
            redisson.unlock();
            return ok;
        }));
    }

    /** Rule 10.5: forceUnlock works both ways. */
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

    /** Rule 10.6: each side's watchdog keeps its lock past the timeout while the other waits in vain. */
    @Test
    void rule10_6_watchdog_eachSideRenewsWhileOtherWaits() throws Exception {
        DistributedLock relock = client(SHORT_WATCHDOG).getLock("tck:wd");
        RLock redisson = redisson(SHORT_WATCHDOG).getLock("tck:wd");
        long wait = SHORT_WATCHDOG.toMillis() * 3;
        redisson.lock();
        assertFalse(ReentrantLockChapter.otherThreadReturns(() -> relock.tryLock(wait, TimeUnit.MILLISECONDS)),
                "relock got a lock Redisson's watchdog should have kept");
        assertTrue(redisson.isHeldByCurrentThread());
        redisson.unlock();
        relock.lock();
        assertFalse(ReentrantLockChapter.otherThreadReturns(() -> redisson.tryLock(wait, TimeUnit.MILLISECONDS)),
                "Redisson got a lock relock's watchdog should have kept");
        assertTrue(relock.isHeldByCurrentThread());
        relock.unlock();
    }

    /** Rule 10.7: both libraries write the same hash shape, field format and TTL, and publish "0" on the same channel. */
    @Test
    void rule10_7_wireFormat_identicalOnBothSides() throws Exception {
        LockClient c = client();
        RedissonClient r = redisson(Duration.ofSeconds(30));
        long tid = Thread.currentThread().getId();
        try (RespClient sub = kit.server().admin()) {
            sub.call("SUBSCRIBE", "redisson_lock__channel:{tck:fmt}");
            c.getLock("tck:fmt").lock();
            assertEquals(List.of(c.clientId() + ":" + tid, "1"), redis("HGETALL", "tck:fmt"));
            long relockTtl = pttl("tck:fmt");
            c.getLock("tck:fmt").unlock();
            assertEquals(List.of("message", "redisson_lock__channel:{tck:fmt}", "0"), sub.readReply());
            r.getLock("tck:fmt").lock();
            assertEquals(List.of(r.getId() + ":" + tid, "1"), redis("HGETALL", "tck:fmt"));
            long redissonTtl = pttl("tck:fmt");
            r.getLock("tck:fmt").unlock();
            assertEquals(List.of("message", "redisson_lock__channel:{tck:fmt}", "0"), sub.readReply());
            assertTrue(Math.abs(relockTtl - redissonTtl) < 5_000, "TTLs differ: relock " + relockTtl + ", Redisson " + redissonTtl);
        }
    }

    /** Rule 10.8: a non-owner's unlock throws IllegalMonitorStateException on both sides. */
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
