package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.api.RPermitExpirableSemaphore;

/**
 * relock's synchronizer scripts ({@code lock-core/.../scripts/sync/}, written from
 * {@code docs/spec/redisson-synchronizers-wire-format.md}) against a real Redisson 4.7.0 client
 * (this module's Redisson) on one server, before any engine uses them: the checks every Redisson
 * line shares (inherited) and those of the operations 3.17.7 lacks (here). Two kinds of check:
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
class SynchronizerScriptsInteropTest extends SynchronizerScriptsChecks {

    @Test
    void semaphore_trySetPermitsWithTtl_twins() {
        semTwins(s -> assertTrue(s.trySetPermits(4, Duration.ofSeconds(30))),
                l -> assertEquals(1L, run("semaphore-try-set-permits", List.of(l, semChannel(l)), "4", "PUBLISH", "30000")),
                List.of("4"));
    }

    @Test
    void semaphore_releaseIfExists_twins() {
        semTwins(s -> assertFalse(s.releaseIfExists(1)),
                l -> assertNull(run("semaphore-release", List.of(l, semChannel(l)), "1", "PUBLISH", "ifexists")),
                List.of());
        both("sem", n -> redis.call("SET", n, "1", "PX", "60000"));
        semTwins(s -> assertTrue(s.releaseIfExists(2)),
                l -> assertEquals(3L, run("semaphore-release", List.of(l, semChannel(l)), "2", "PUBLISH", "ifexists")),
                List.of("3"));
    }

    @Test
    void expirable_acquireMany_twins_reclaimAsManyAsWanted() {
        long now = System.currentTimeMillis();
        endedLeases("pes", 3, now);
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
    void expirable_releaseMany_twins_allOrNothing() {
        long now = System.currentTimeMillis();
        String a = newId();
        String b = newId();
        both("pes", n -> {
            redis.call("SET", n, "0");
            zaddId(leases(n), now - 1_000, newId());
            zaddId(leases(n), now + 60_000, a);
            zaddId(leases(n), Long.parseLong(NEVER), b);
        });
        // a list with an unknown id is refused whole
        pesTwins(s -> assertEquals(0, s.tryRelease(List.of(a, newId()))),
                l -> assertEquals(0L, releaseMany(l, a, newId())), List.of());
        // a good list: every ended lease is reclaimed first (announced: 1), then the count released
        pesTwins(s -> assertEquals(2, s.tryRelease(List.of(a, b))), l -> assertEquals(2L, releaseMany(l, a, b)),
                List.of("1", "2"));
    }

    @Test
    void expirable_getPermitsAndSetPermits_twins() {
        long now = System.currentTimeMillis();
        both("pes", n -> {
            redis.call("SET", n, "1", "PX", "60000");
            zaddId(leases(n), now + 60_000, newId());
            zaddId(leases(n), now - 1_000, newId());
        });
        // getPermits reclaims the ended lease (announced: 2) and counts 2 available + 1 held
        pesTwins(s -> assertEquals(3, s.getPermits()), l -> assertEquals(List.of(1L, 2L, 1L), state(l)), List.of("2"));
        pesTwins(s -> assertEquals(1, s.acquiredPermits()), l -> assertEquals(List.of(1L, 2L, 1L), state(l)), List.of());
        pesTwins(s -> s.setPermits(5), l -> assertEquals(1L, setPermits(l, "5")), List.of("5"));
        pesTwins(s -> s.setPermits(5), l -> assertEquals(0L, setPermits(l, "5")), List.of());
        pesTwins(s -> s.setPermits(0), l -> assertEquals(1L, setPermits(l, "0")), List.of("0"));
        pesTwins(s -> assertEquals(-1, s.availablePermits()), l -> assertEquals(List.of(1L, -1L, 1L), state(l)), List.of());
    }

    @Test
    void expirable_scriptLeases_areReadByRedisson() {
        String leased = newId();
        String forever = newId();
        RPermitExpirableSemaphore s = heldByScripts("pes", 3, forever, leased, newId());
        assertEquals(3, s.acquiredPermits());
        assertEquals(3, s.getPermits());
        long left = s.getLeaseTime(leased);
        assertTrue(left > 50_000 && left <= 60_000, "lease left " + left);
        assertEquals(-1, s.getLeaseTime(forever));
        assertEquals(1L, run("expirable-update-lease", pesKeys("pes"), leased, NEVER,
                Long.toString(System.currentTimeMillis()), "PUBLISH"));
        assertEquals(-1, s.getLeaseTime(leased));
        s.release(List.of(leased, forever));
        assertEquals(1, s.acquiredPermits());
    }
}
