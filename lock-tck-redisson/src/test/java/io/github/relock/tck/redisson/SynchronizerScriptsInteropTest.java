package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;

/**
 * relock's synchronizer scripts ({@code lock-core/.../scripts/sync/}, written from
 * {@code docs/spec/redisson-synchronizers-wire-format.md}) against a real Redisson 4.7.0 client
 * (this module's Redisson) on one server, before any engine uses them. Two kinds of check, on the
 * fixture's machinery:
 * <ul>
 *   <li><b>twins</b>: the same starting state under two names, Redisson's operation on one and
 *       relock's script on the other; the keys (type, value, TTL, zset members and scores) and the
 *       messages on each name's channel must match;</li>
 *   <li><b>mixed</b>: Redisson and the scripts on one name: each takes and gives back the other's
 *       permits, the counts agree, and a Redisson waiter parked where it has no timer is woken by
 *       the script's message.</li>
 * </ul>
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
class SynchronizerScriptsInteropTest extends SynchronizerScriptsFixture {

    // ---------------------------------------------------------------- RSemaphore

    @Test
    void semaphore_trySetPermits_twins() {
        twins("sem", SynchronizerScriptsFixture::semKeys, SynchronizerScriptsFixture::semChannel,
                r -> assertTrue(redisson.getSemaphore(r).trySetPermits(3)),
                l -> assertEquals(1L, run("semaphore-try-set-permits", List.of(l, semChannel(l)), "3", "PUBLISH")),
                List.of("3"));
        twins("sem", SynchronizerScriptsFixture::semKeys, SynchronizerScriptsFixture::semChannel,
                r -> assertFalse(redisson.getSemaphore(r).trySetPermits(7)),
                l -> assertEquals(0L, run("semaphore-try-set-permits", List.of(l, semChannel(l)), "7", "PUBLISH")),
                List.of());
        twins("ttl", SynchronizerScriptsFixture::semKeys, SynchronizerScriptsFixture::semChannel,
                r -> assertTrue(redisson.getSemaphore(r).trySetPermits(4, Duration.ofSeconds(30))),
                l -> assertEquals(1L, run("semaphore-try-set-permits", List.of(l, semChannel(l)), "4", "PUBLISH", "30000")),
                List.of("4"));
    }

    @Test
    void semaphore_acquireReleaseAddDrain_twins() {
        both("sem", n -> redis.call("SET", n, "5", "PX", "60000"));
        semTwins(s -> assertTrue(s.tryAcquire(2)), l -> assertEquals(1L, run("semaphore-try-acquire", List.of(l), "2")),
                List.of());
        semTwins(s -> assertFalse(s.tryAcquire(4)), l -> assertEquals(0L, run("semaphore-try-acquire", List.of(l), "4")),
                List.of());
        semTwins(s -> s.release(3), l -> assertEquals(6L, release(l, "3")), List.of("6"));
        // a negative total is published as such (Redisson's own listener chokes on it)
        semTwins(s -> s.addPermits(-10), l -> assertEquals(-4L, addPermits(l, "-10")), List.of("-4"));
        semTwins(s -> assertEquals(-4, s.drainPermits()), l -> assertEquals(-4L, run("semaphore-drain", List.of(l))),
                List.of());
        semTwins(s -> s.addPermits(2), l -> assertEquals(2L, addPermits(l, "2")), List.of("2"));
        semTwins(s -> assertEquals(2, s.availablePermits()),
                l -> assertEquals(2L, run("semaphore-available", List.of(l))), List.of());
        semTwins(s -> assertTrue(s.delete()), l -> assertEquals(1L, run("sync-delete", List.of(l))), List.of());
        semTwins(s -> assertFalse(s.releaseIfExists(1)),
                l -> assertNull(run("semaphore-release", List.of(l, semChannel(l)), "1", "PUBLISH", "ifexists")),
                List.of());
        semTwins(s -> assertEquals(0, s.drainPermits()), l -> assertEquals(0L, run("semaphore-drain", List.of(l))),
                List.of());
        semTwins(s -> s.release(1), l -> assertEquals(1L, release(l, "1")), List.of("1"));
        semTwins(s -> assertTrue(s.releaseIfExists(2)),
                l -> assertEquals(3L, run("semaphore-release", List.of(l, semChannel(l)), "2", "PUBLISH", "ifexists")),
                List.of("3"));
    }

    @Test
    void semaphore_mixed_eachTakesWhatTheOtherGaveBack() {
        RSemaphore s = redisson.getSemaphore("mix");
        assertEquals(1L, run("semaphore-try-set-permits", List.of("mix", semChannel("mix")), "2", "PUBLISH"));
        assertEquals(2, s.availablePermits());
        assertTrue(s.tryAcquire(2));
        assertEquals(0L, run("semaphore-try-acquire", List.of("mix"), "1"));
        assertEquals(1L, release("mix", "1"));
        assertEquals(1, s.availablePermits());
        assertFalse(s.tryAcquire(2));
        s.release(1);
        assertEquals(2L, run("semaphore-available", List.of("mix")));
        assertEquals(1L, run("semaphore-try-acquire", List.of("mix"), "2"));
        assertEquals(0, s.availablePermits());
    }

    @Test
    void semaphore_redissonAcquire_wokenByScriptRelease_andAddPermits() throws Exception {
        RSemaphore s = redisson.getSemaphore("wake");
        assertEquals(1L, run("semaphore-try-set-permits", List.of("wake", semChannel("wake")), "0", "PUBLISH"));
        // RSemaphore.acquire() parks on its local semaphore without a timer: only a message ends that
        Future<?> one = parked(() -> s.acquire(), "org.redisson.RedissonSemaphore");
        assertEquals(1L, release("wake", "1"));
        one.get(WAKE_DEADLINE_S, TimeUnit.SECONDS);

        Future<?> two = parked(() -> s.acquire(2), "org.redisson.RedissonSemaphore");
        assertEquals(2L, addPermits("wake", "2"));
        two.get(WAKE_DEADLINE_S, TimeUnit.SECONDS);
        assertEquals(0, s.availablePermits());
    }

    // ---------------------------------------------------------------- RPermitExpirableSemaphore

    @Test
    void expirable_scriptPermits_areSeenAndReleasedByRedisson() {
        RPermitExpirableSemaphore s = redisson.getPermitExpirableSemaphore("pes");
        assertEquals(1L, run("semaphore-try-set-permits", List.of("pes", semChannel("pes")), "2", "PUBLISH"));
        String leased = newId();
        String forever = newId();
        long now = System.currentTimeMillis();
        assertNull(acquire("pes", now, now + 60_000, leased));
        assertNull(acquire("pes", now, Long.parseLong(NEVER), forever));
        assertEquals(0, s.availablePermits());
        assertEquals(2, s.acquiredPermits());
        assertEquals(2, s.getPermits());
        long left = s.getLeaseTime(leased);
        assertTrue(left > 50_000 && left <= 60_000, "lease left " + left);
        assertEquals(-1, s.getLeaseTime(forever));
        assertNull(s.tryAcquire(), "no permit left for Redisson");
        s.release(leased);
        assertTrue(s.tryRelease(forever));
        assertEquals(2, s.availablePermits());
        assertEquals(0, s.acquiredPermits());
    }

    @Test
    void expirable_redissonPermits_areSeenUpdatedAndReleasedByScripts() throws InterruptedException {
        RPermitExpirableSemaphore s = redisson.getPermitExpirableSemaphore("pes");
        assertTrue(s.trySetPermits(1));
        String id = s.acquire(30, TimeUnit.SECONDS);
        assertNotNull(id);
        // Redisson's member is the 16 bytes the hex id stands for (the dump shows members as hex)
        String member = (String) ((List<?>) dump(List.of(leases("pes"))).get(0)).get(2);
        assertTrue(member.startsWith(id + "="), member + " for id " + id);
        long now = System.currentTimeMillis();
        Object earliest = acquire("pes", now, now + 1_000, newId());
        assertTrue(earliest instanceof Long, "not acquired, answers the earliest deadline: " + earliest);
        long left = (Long) earliest - now;
        assertTrue(left > 25_000 && left <= 30_000, "earliest deadline in " + left + " ms");
        Object lease = run("expirable-lease-time", pesKeys("pes"), id, Long.toString(System.currentTimeMillis()), "PUBLISH");
        assertTrue((Long) lease > 25_000 && (Long) lease <= 30_000, "lease " + lease);
        assertEquals(1L, run("expirable-update-lease", pesKeys("pes"), id, NEVER,
                Long.toString(System.currentTimeMillis()), "PUBLISH"));
        assertEquals(-1, s.getLeaseTime(id));
        assertEquals(0L, acquire("pes", System.currentTimeMillis(), 0, newId()), "only a never-ending lease is held");
        assertEquals(1L, run("expirable-release", pesKeys("pes"), id.toUpperCase(),
                Long.toString(System.currentTimeMillis()), "PUBLISH"));
        assertEquals(-1L, run("expirable-release", pesKeys("pes"), id, Long.toString(System.currentTimeMillis()), "PUBLISH"));
        assertEquals(1, s.availablePermits());
        assertEquals(List.of(1L, 1L, 0L), run("expirable-state", pesKeys("pes"),
                Long.toString(System.currentTimeMillis()), "PUBLISH"));
    }

    @Test
    void expirable_acquire_twins_reclaimAsManyAsWanted_andCopyTheTtl() {
        long now = System.currentTimeMillis();
        both("pes", n -> {
            redis.call("SET", n, "3", "PX", "60000");
            for (int i = 0; i < 3; i++) {
                zaddId(leases(n), now - 5_000 + i, newId());
            }
        });
        // 2 of the 3 ended leases come back (announced: 5), then 2 permits go out with a 20 s lease
        pesTwins(s -> assertEquals(2, s.acquireAsync(2, 20, TimeUnit.SECONDS).toCompletableFuture().join().size()),
                l -> assertNull(acquire(l, System.currentTimeMillis(), System.currentTimeMillis() + 20_000, newId(), newId())),
                List.of("5"));
        // not enough: the last ended lease comes back (announced: 4), nothing is taken
        pesTwins(s -> assertTrue(s.tryAcquire(5).isEmpty()),
                l -> assertTrue((Long) acquire(l, System.currentTimeMillis(), System.currentTimeMillis() + 1, newId(), newId(),
                        newId(), newId(), newId()) > now),
                List.of("4"));
    }

    @Test
    void expirable_releases_twins() {
        long now = System.currentTimeMillis();
        String ended = newId();
        String endedToo = newId();
        String a = newId();
        String b = newId();
        both("pes", n -> {
            redis.call("SET", n, "0");
            zaddId(leases(n), now - 2_000, ended);
            zaddId(leases(n), now - 1_000, endedToo);
            zaddId(leases(n), now + 60_000, a);
            zaddId(leases(n), Long.parseLong(NEVER), b);
        });
        // an ended lease released by id: the permit goes back, the answer is false
        pesTwins(s -> assertFalse(s.tryRelease(ended)),
                l -> assertEquals(0L, run("expirable-release", pesKeys(l), ended, Long.toString(System.currentTimeMillis()),
                        "PUBLISH")),
                List.of("1"));
        // a list with an unknown id is refused whole
        pesTwins(s -> assertEquals(0, s.tryRelease(List.of(a, newId()))),
                l -> assertEquals(0L, releaseMany(l, a, newId())), List.of());
        // a good list: every ended lease is reclaimed first (announced: 2), then the count released
        pesTwins(s -> assertEquals(2, s.tryRelease(List.of(a, b))), l -> assertEquals(2L, releaseMany(l, a, b)),
                List.of("2", "2"));
    }

    @Test
    void expirable_countsSetAddAndUpdate_twins() {
        long now = System.currentTimeMillis();
        String held = newId();
        both("pes", n -> {
            redis.call("SET", n, "1", "PX", "60000");
            zaddId(leases(n), now + 60_000, held);
            zaddId(leases(n), now - 1_000, newId());
        });
        pesTwins(s -> assertEquals(2, s.availablePermits()),
                l -> assertEquals(List.of(1L, 2L, 1L), state(l)), List.of("2"));
        pesTwins(s -> assertEquals(3, s.getPermits()), l -> assertEquals(List.of(1L, 2L, 1L), state(l)), List.of());
        pesTwins(s -> s.setPermits(5), l -> assertEquals(1L, setPermits(l, "5")), List.of("5"));
        pesTwins(s -> s.setPermits(5), l -> assertEquals(0L, setPermits(l, "5")), List.of());
        pesTwins(s -> s.setPermits(0), l -> assertEquals(1L, setPermits(l, "0")), List.of("0"));
        pesTwins(s -> s.addPermits(3), l -> assertEquals(2L, addExpirable(l, "3")), List.of("3"));
        pesTwins(s -> s.addPermits(-1), l -> assertEquals(1L, addExpirable(l, "-1")), List.of());
        pesTwins(s -> assertTrue(s.updateLeaseTime(held, 10, TimeUnit.SECONDS)),
                l -> assertEquals(1L, run("expirable-update-lease", pesKeys(l), held,
                        Long.toString(System.currentTimeMillis() + 10_000), Long.toString(System.currentTimeMillis()), "PUBLISH")),
                List.of());
        pesTwins(s -> assertFalse(s.updateLeaseTime(newId(), 10, TimeUnit.SECONDS)),
                l -> assertEquals(0L, run("expirable-update-lease", pesKeys(l), newId(), NEVER,
                        Long.toString(System.currentTimeMillis()), "PUBLISH")),
                List.of());
        pesTwins(s -> assertTrue(s.delete()), l -> assertEquals(2L, run("sync-delete", List.of(l, leases(l)))), List.of());
    }

    @Test
    void expirable_redissonAcquire_wokenByScriptRelease() throws Exception {
        RPermitExpirableSemaphore s = redisson.getPermitExpirableSemaphore("wake");
        assertEquals(1L, run("semaphore-try-set-permits", List.of("wake", semChannel("wake")), "1", "PUBLISH"));
        String id = newId();
        assertNull(acquire("wake", System.currentTimeMillis(), Long.parseLong(NEVER), id));
        // no lease ends, so Redisson's acquire() parks without a timer: only a message ends that
        AtomicReference<String> taken = new AtomicReference<>();
        Future<?> waiter = parked(() -> taken.set(s.acquire()), "org.redisson.RedissonPermitExpirableSemaphore");
        assertEquals(1L, run("expirable-release", pesKeys("wake"), id, Long.toString(System.currentTimeMillis()), "PUBLISH"));
        waiter.get(WAKE_DEADLINE_S, TimeUnit.SECONDS);
        assertEquals(32, taken.get().length());
        assertEquals(List.of(1L, 0L, 1L), state("wake"));
    }

    // ---------------------------------------------------------------- RCountDownLatch

    @Test
    void latch_twins() {
        latchTwins(c -> assertTrue(c.trySetCount(2)),
                l -> assertEquals(1L, run("latch-try-set-count", latchKeys(l), "2", "PUBLISH")), List.of("1"));
        latchTwins(c -> assertFalse(c.trySetCount(5)),
                l -> assertEquals(0L, run("latch-try-set-count", latchKeys(l), "5", "PUBLISH")), List.of());
        latchTwins(RCountDownLatch::countDown, l -> assertEquals(1L, countDown(l)), List.of());
        latchTwins(c -> assertEquals(1, c.getCount()), l -> assertEquals(1L, run("latch-count", List.of(l))), List.of());
        latchTwins(RCountDownLatch::countDown, l -> assertEquals(0L, countDown(l)), List.of("0"));
        latchTwins(RCountDownLatch::countDown, l -> assertEquals(-1L, countDown(l)), List.of());
        latchTwins(c -> assertEquals(0, c.getCount()), l -> assertEquals(0L, run("latch-count", List.of(l))), List.of());
        latchTwins(c -> assertTrue(c.trySetCount(1)),
                l -> assertEquals(1L, run("latch-try-set-count", latchKeys(l), "1", "PUBLISH")), List.of("1"));
        latchTwins(c -> assertTrue(c.delete()), l -> assertEquals(1L, run("latch-delete", latchKeys(l), "PUBLISH")),
                List.of("1"));
        latchTwins(c -> assertFalse(c.delete()), l -> assertEquals(0L, run("latch-delete", latchKeys(l), "PUBLISH")),
                List.of());
    }

    @Test
    void latch_mixed_andRedissonAwait_wokenByScriptCountDown() throws Exception {
        RCountDownLatch c = redisson.getCountDownLatch("gate");
        assertTrue(c.trySetCount(2));
        assertEquals(1L, countDown("gate"));
        assertEquals(1, c.getCount());
        c.countDown();
        assertEquals(0L, run("latch-count", List.of("gate")));

        assertEquals(1L, run("latch-try-set-count", latchKeys("gate"), "2", "PUBLISH"));
        // await() without a time parks on its local gate without a timer: only the "0" message opens it
        Future<?> waiter = parked(() -> c.await(), "org.redisson.RedissonCountDownLatch");
        assertEquals(1L, countDown("gate"));
        assertEquals(0L, countDown("gate"));
        waiter.get(WAKE_DEADLINE_S, TimeUnit.SECONDS);
        assertEquals(0, c.getCount());
    }
}
