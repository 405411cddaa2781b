package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedCountDownLatch;
import io.github.relock.api.DistributedSemaphore;
import io.github.relock.api.LockClient;
import io.github.relock.api.PermitExpirableSemaphore;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.SynchronizerChapter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

/**
 * Chapters 24-26 with Redisson: relock's semaphore, permit-expirable semaphore and count-down
 * latch beside a real {@code RedissonClient} (4.7.0 through this artifact; 3.17.7 in
 * {@code verification/interop-redisson3}) on the same names. A mixed fleet never holds more permits than exist
 * and loses none; each side takes and releases the other's permits (by id, for the
 * permit-expirable semaphore), reclaims the other's ended leases, wakes the other's waiters, and
 * counts down the other's latch. Redisson's waiters used here ({@code acquire()}, {@code await()})
 * wake only on a message, so each of those steps proves relock published what Redisson expects.
 * Only Redisson calls that 3.17.7 and 4.x both have.
 *
 * <p>When a rule fails: a Redisson waiter that never wakes means a relock message was missing or
 * not what Redisson decodes (sync spec 5.1, the payloads; lock spec 3.4, PUBLISH and SPUBLISH on
 * a cluster); an id one side cannot release means the zset member is not the id's 16 bytes (sync
 * spec 3.1); a count off by some permits means a script's effect differs from Redisson's (run
 * {@code SynchronizerScriptsInteropTest}).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("redisson-interop")
@Tag("synchronizers")
public abstract class SynchronizerInteropChapter extends SynchronizerChapter {

    /** @param kit the enclosing kit */
    protected SynchronizerInteropChapter(DriverKit kit) {
        super(kit);
    }

    private RedissonClient redisson() {
        return RedissonConfigs.clientFor(kit, Duration.ofSeconds(30));
    }

    private boolean subscribed(String channel) {
        return channels().contains(channel) || channels().contains("sharded " + channel);
    }

    private void awaitSubscribed(String channel) {
        Await.until(SOON, () -> subscribed(channel), () -> "the Redisson waiter never subscribed " + channel);
    }

    /**
     * Rule 24.8: relock and Redisson threads looping acquire/release on one semaphore of two
     * permits never hold more than two at once, and both read two available at the end.
     * When it fails: relock's scripts and Redisson's must agree on the key (its name and integer
     * counter) and the channel: compare with the spec's semaphore section.
     */
    @Test
    void rule24_8_mixedFleet_neverMoreThanThePermits_noneLost() throws Exception {
        String name = "tck:sem:mixed";
        LockClient relockClient = client();
        RedissonClient redissonClient = redisson();
        relockClient.getSemaphore(name).trySetPermits(2);
        Holders holders = new Holders(2);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            DistributedSemaphore relock = relockClient.getSemaphore(name);
            RSemaphore redisson = redissonClient.getSemaphore(name);
            String n = Integer.toString(t);
            workers.add(background(() -> {
                for (int i = 0; i < 15; i++) {
                    relock.acquire();
                    holders.enter(1, "relock" + n);
                    holders.exit(1);
                    relock.release();
                }
                return null;
            }));
            workers.add(background(() -> {
                for (int i = 0; i < 15; i++) {
                    redisson.acquire();
                    holders.enter(1, "redisson" + n);
                    holders.exit(1);
                    redisson.release();
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(2, TimeUnit.MINUTES);
        }
        assertEquals(List.of(), holders.overlaps);
        assertEquals(2, relockClient.getSemaphore(name).availablePermits());
        assertEquals(2, redissonClient.getSemaphore(name).availablePermits());
        relockClient.getSemaphore(name).delete();
    }

    /**
     * Rule 24.9: a Redisson {@code acquire()} (woken only by a message) is woken by a relock
     * release, and a relock waiter by a Redisson release.
     * When it fails: relock's release must publish the message Redisson's waiter listens for
     * (channel and payload per the spec), and relock must listen on the channel Redisson publishes
     * to.
     */
    @Test
    void rule24_9_semaphore_eachSideWakesTheOthersWaiter() throws Exception {
        String name = "tck:sem:wake-x";
        LockClient relockClient = client();
        DistributedSemaphore relock = relockClient.getSemaphore(name);
        RSemaphore redisson = redisson().getSemaphore(name);
        Future<Object> redissonWaiter = background(() -> {
            redisson.acquire();
            return null;
        });
        awaitSubscribed("redisson_sc:{" + name + "}");
        relock.release();
        redissonWaiter.get(SOON.toSeconds(), TimeUnit.SECONDS);
        Future<Boolean> relockWaiter = background(() -> relock.tryAcquire(1, 60, TimeUnit.SECONDS));
        awaitWaiting(relockClient, 1);
        redisson.release();
        assertTrue(relockWaiter.get(SOON.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0, redisson.availablePermits());
        relock.delete();
    }

    /**
     * Rule 25.6: permit ids cross: each side releases and updates the lease of a permit the other
     * took, a Redisson {@code acquire()} is woken by a relock release and a relock waiter by a
     * Redisson release, and the count stays right on both sides.
     * When it fails: ids must encode and decode the same 16 bytes on both sides, and each side's
     * release must publish what the other side's waiter hears (spec: channel and payload).
     */
    @Test
    void rule25_6_permitIds_crossSides_andWakeUps() throws Exception {
        String name = "tck:pes:x";
        LockClient relockClient = client();
        PermitExpirableSemaphore relock = relockClient.getPermitExpirableSemaphore(name);
        RPermitExpirableSemaphore redisson = redisson().getPermitExpirableSemaphore(name);
        relock.trySetPermits(2);
        String relockId = relock.acquire(30, TimeUnit.SECONDS);
        assertTrue(redisson.updateLeaseTime(relockId, 60, TimeUnit.SECONDS));
        redisson.release(relockId);
        String redissonId = redisson.acquire(30, TimeUnit.SECONDS);
        assertTrue(relock.updateLeaseTime(redissonId, 60, TimeUnit.SECONDS));
        relock.release(redissonId);
        assertEquals(2, redisson.availablePermits());
        List<String> both = relock.acquire(2);
        Future<String> redissonWaiter = background(redisson::acquire);
        awaitSubscribed("redisson_sc:{" + name + "}");
        relock.release(both.get(0));
        String woken = redissonWaiter.get(SOON.toSeconds(), TimeUnit.SECONDS);
        Future<String> relockWaiter = background(() -> relock.tryAcquire(60, -1, TimeUnit.SECONDS));
        awaitWaiting(relockClient, 1);
        redisson.release(woken);
        String got = relockWaiter.get(SOON.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(got);
        relock.release(List.of(got, both.get(1)));
        assertEquals(2, redisson.availablePermits());
        assertEquals(0, relock.acquiredPermits());
        relock.delete();
    }

    /**
     * Rule 25.7: a permit whose lease ended comes back to a waiter of the other library without
     * anyone releasing it, both ways.
     * When it fails: both sides must reclaim expired leases in their acquire script; a waiter must
     * wake at the earliest lease end even without a message.
     */
    @Test
    void rule25_7_endedLease_reclaimedByTheOtherSide() throws Exception {
        String name = "tck:pes:expire-x";
        PermitExpirableSemaphore relock = client().getPermitExpirableSemaphore(name);
        RPermitExpirableSemaphore redisson = redisson().getPermitExpirableSemaphore(name);
        relock.trySetPermits(1);
        relock.acquire(300, TimeUnit.MILLISECONDS);
        String byRedisson = redisson.tryAcquire(SOON.toSeconds(), 300, TimeUnit.SECONDS);
        assertNotNull(byRedisson, "Redisson never reclaimed relock's ended permit");
        assertTrue(redisson.updateLeaseTime(byRedisson, 300, TimeUnit.MILLISECONDS));
        String byRelock = relock.tryAcquire(SOON.toSeconds(), -1, TimeUnit.SECONDS);
        assertNotNull(byRelock, "relock never reclaimed Redisson's ended permit");
        redisson.release(byRelock);
        assertEquals(1, relock.availablePermits());
        relock.delete();
    }

    /**
     * Rule 26.4: a Redisson {@code await()} (woken only by a message) is released by a relock
     * count-down, and a relock await by a Redisson count-down.
     * When it fails: relock's count-down must publish the message Redisson's await listens for, and
     * relock must listen on the latch channel Redisson publishes to (spec: latch section).
     */
    @Test
    void rule26_4_latch_eachSideReleasesTheOthersAwaiter() throws Exception {
        String name = "tck:latch:x";
        LockClient relockClient = client();
        DistributedCountDownLatch relock = relockClient.getCountDownLatch(name);
        RCountDownLatch redisson = redisson().getCountDownLatch(name);
        assertTrue(relock.trySetCount(2));
        assertEquals(2, redisson.getCount());
        Future<Object> redissonWaiter = background(() -> {
            redisson.await();
            return null;
        });
        awaitSubscribed("redisson_countdownlatch__channel__{" + name + "}");
        redisson.countDown();
        relock.countDown();
        redissonWaiter.get(SOON.toSeconds(), TimeUnit.SECONDS);
        assertTrue(redisson.trySetCount(1));
        Future<Boolean> relockWaiter = background(() -> relock.await(60, TimeUnit.SECONDS));
        awaitWaiting(relockClient, 1);
        redisson.countDown();
        assertTrue(relockWaiter.get(SOON.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0, relock.getCount());
    }

    /**
     * Rule 24.14: a semaphore's time to live crosses libraries: Redisson reads the TTL and the
     * existence relock set, relock reads what Redisson set, each clears the other's, and the
     * rate-limit window Redisson opened ({@code trySetPermits} then {@code expire}) ends for relock.
     * When it fails: both must expire the one key N (sync spec 2.8); remainTimeToLive is its PTTL.
     */
    @Test
    void rule24_14_semaphoreExpiry_crossesSides() throws Exception {
        String name = "tck:sem:ttl-x";
        DistributedSemaphore relock = client().getSemaphore(name);
        RSemaphore redisson = redisson().getSemaphore(name);
        assertFalse(redisson.isExists());
        assertTrue(relock.trySetPermits(2));
        assertTrue(redisson.isExists());
        assertTrue(relock.expire(Duration.ofSeconds(30)));
        long ttl = redisson.remainTimeToLive();
        assertTrue(ttl > 0 && ttl <= 30_000, "Redisson reads relock's TTL: " + ttl);
        assertTrue(redisson.clearExpire());
        assertEquals(-1L, relock.remainTimeToLive());
        assertTrue(redisson.expire(Duration.ofSeconds(20)));
        ttl = relock.remainTimeToLive();
        assertTrue(ttl > 0 && ttl <= 20_000, "relock reads Redisson's TTL: " + ttl);
        assertTrue(relock.clearExpire());
        assertEquals(-1L, redisson.remainTimeToLive());
        assertTrue(redisson.expire(Duration.ofMillis(50)), "Redisson's window, short");
        Await.until(SOON, () -> !relock.isExists(), () -> "Redisson's window never ended for relock");
        assertEquals(-2L, redisson.remainTimeToLive());
        assertTrue(relock.trySetPermits(1));
        assertEquals(1, redisson.availablePermits());
        relock.delete();
    }

    /**
     * Rule 25.10: a permit-expirable semaphore's expiry covers the same two keys on both sides:
     * relock's expire reaches the leases zset Redisson keeps, Redisson's reaches the one relock
     * keeps, and each clears the other's on both keys.
     * When it fails: relock's expire and clear scripts must run over N and its leases zset
     * (sync spec 3.12), as Redisson's do.
     */
    @Test
    void rule25_10_permitExpirableExpiry_coversBothKeys_onBothSides() throws Exception {
        String name = "tck:pes:ttl-x";
        String leases = "{" + name + "}:timeout";
        PermitExpirableSemaphore relock = client().getPermitExpirableSemaphore(name);
        RPermitExpirableSemaphore redisson = redisson().getPermitExpirableSemaphore(name);
        assertTrue(relock.trySetPermits(3));
        String held = relock.acquire(60, TimeUnit.SECONDS); // the leases zset exists
        assertTrue(redisson.expire(Duration.ofSeconds(30)));
        for (String key : List.of(name, leases)) {
            long ttl = (Long) redis("PTTL", key);
            assertTrue(ttl > 0 && ttl <= 30_000, "Redisson's expire on " + key + ": PTTL " + ttl);
        }
        assertTrue(relock.remainTimeToLive() > 0);
        assertTrue(relock.clearExpire());
        assertEquals(List.of(-1L, -1L), List.of(redis("PTTL", name), redis("PTTL", leases)), "relock cleared both");
        assertTrue(relock.expire(Duration.ofSeconds(20)));
        for (String key : List.of(name, leases)) {
            long ttl = (Long) redis("PTTL", key);
            assertTrue(ttl > 0 && ttl <= 20_000, "relock's expire on " + key + ": PTTL " + ttl);
        }
        long ttl = redisson.remainTimeToLive();
        assertTrue(ttl > 0 && ttl <= 20_000, "Redisson reads relock's TTL: " + ttl);
        assertTrue(redisson.clearExpire());
        assertEquals(List.of(-1L, -1L), List.of(redis("PTTL", name), redis("PTTL", leases)), "Redisson cleared both");
        assertTrue(redisson.isExists());
        assertTrue(redisson.tryRelease(held), "Redisson releases relock's permit: the lease survived both");
        relock.delete();
    }

    /**
     * Rule 26.6: a latch's existence reads the same on both sides: a count set by one exists for
     * the other, and a latch the other opened does not.
     * When it fails: relock's isExists must read the count key N (sync spec 4) that Redisson checks.
     */
    @Test
    void rule26_6_latchExistence_sameOnBothSides() throws Exception {
        String name = "tck:latch:exists-x";
        DistributedCountDownLatch relock = client().getCountDownLatch(name);
        RCountDownLatch redisson = redisson().getCountDownLatch(name);
        assertTrue(redisson.trySetCount(1));
        assertTrue(relock.isExists());
        redisson.countDown();
        assertFalse(relock.isExists());
        assertTrue(relock.trySetCount(1));
        assertTrue(redisson.isExists());
        relock.countDown();
        assertFalse(redisson.isExists());
    }
}
