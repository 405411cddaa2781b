package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.PermitExpirableSemaphore;
import io.github.relock.api.PermitLease;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 25: the permit-expirable semaphore ({@code LockClient.getPermitExpirableSemaphore},
 * Redisson's RPermitExpirableSemaphore). Available permits live in the key {@code name}, held ones
 * in the zset <code>&#123;name&#125;:timeout</code> (member: the id's 16 bytes, score: the epoch-ms
 * deadline, 922337203685477 for never). The rules prove ids and leases (release, all-or-nothing
 * lists, lease updates), that an ended lease comes back to a waiter without anyone releasing it,
 * that callers of two clients never hold more than the permits, that cancelling leaves nothing,
 * and that a {@code PermitLease} reports its loss as a lost lock is.
 *
 * <p>When a rule fails: for the zset, compare with sync spec 3 and {@code scripts/sync/expirable-*};
 * for a waiter that never got an expired permit, look at the earliest-deadline bound in
 * {@code SyncCalls.expirableAcquire}; for a missing loss report, at {@code PermitLeases}.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("synchronizers")
public abstract class PermitExpirableSemaphoreChapter extends SynchronizerChapter {

    /** @param kit the enclosing kit */
    protected PermitExpirableSemaphoreChapter(DriverKit kit) {
        super(kit);
    }

    private static String leases(String name) {
        return "{" + name + "}:timeout";
    }

    /**
     * Rule 25.1: ids and leases. Acquired ids are 32 hex characters whose 16 bytes are the zset's
     * members; a lease's score is its deadline and "never" is Redisson's constant; leases can be
     * read and updated; single releases answer per id; a list is released all or none.
     * When it fails: compare the zset members (16 raw bytes per id), the scores and the 'never'
     * constant with the spec's permit-expirable semaphore section.
     */
    @Test
    void rule25_1_idsAndLeases_asRedissonKeepsThem() throws Exception {
        String name = "tck:pes:ops";
        PermitExpirableSemaphore s = client().getPermitExpirableSemaphore(name);
        assertTrue(s.trySetPermits(4));
        String forever = s.acquire();
        assertTrue(forever.matches("[0-9a-f]{32}"), forever);
        List<String> two = s.tryAcquire(2, 0, 30, TimeUnit.SECONDS);
        assertEquals(2, two.size());
        assertEquals(1, s.availablePermits());
        assertEquals(3, s.acquiredPermits());
        assertEquals(4, s.getPermits());
        assertEquals(3L, redis("ZCARD", leases(name)));
        assertEquals(1L, redis("ZCOUNT", leases(name), "922337203685477", "922337203685477"),
                "a permit without lease has Redisson's 'never' score");
        assertEquals(-1, s.getLeaseTime(forever));
        long left = s.getLeaseTime(two.get(0));
        assertTrue(left > 0 && left <= 30_000, "lease left " + left);
        assertTrue(s.updateLeaseTime(two.get(0), 60, TimeUnit.SECONDS));
        assertTrue(s.getLeaseTime(two.get(0)) > 30_000);
        String unknown = "00112233445566778899aabbccddeeff";
        assertEquals(0, s.tryRelease(List.of(two.get(0), unknown)), "a list with an unknown id is refused whole");
        assertEquals(3, s.acquiredPermits());
        assertEquals(2, s.tryRelease(two));
        assertFalse(s.tryRelease(unknown));
        assertThrows(IllegalArgumentException.class, () -> s.release(unknown));
        s.release(forever);
        assertEquals(4, s.availablePermits());
        assertEquals(0L, redis("ZCARD", leases(name)));
        s.setPermits(2);
        assertEquals(2, s.getPermits());
        s.addPermits(1);
        assertEquals(3, s.availablePermits());
        assertTrue(s.delete());
        assertEquals(0L, redis("EXISTS", name));
    }

    /**
     * Rule 25.2: a permit whose lease ends comes back to a waiter of another client without anyone
     * releasing it (the waiter parks at most until the earliest lease ends), and the holder's
     * {@code PermitLease} reports it lost (LEASE_EXPIRED), to its callback and the client's listeners.
     * When it fails: the acquire script must reclaim expired leases before counting, a waiter must
     * park no longer than the earliest lease end, and the holder's lease watch must report
     * LEASE_EXPIRED.
     */
    @Test
    void rule25_2_endedLease_reclaimedByWaiter_reportedLost() throws Exception {
        String name = "tck:pes:expire";
        LockClient holder = client();
        List<LockLostEvent> heard = new CopyOnWriteArrayList<>();
        holder.addLockLostListener(heard::add);
        PermitExpirableSemaphore s = holder.getPermitExpirableSemaphore(name);
        s.trySetPermits(1);
        PermitLease lease = s.acquireLease(Duration.ZERO, Duration.ofMillis(300));
        CompletableFuture<LockLostEvent> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);
        LockClient waiter = client();
        Future<String> next = background(() -> waiter.getPermitExpirableSemaphore(name).tryAcquire(60, -1,
                TimeUnit.SECONDS));
        String id = next.get(SOON.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(id, "the waiter never got the permit whose lease ended");
        LockLostEvent e = lost.get(SOON.toSeconds(), TimeUnit.SECONDS);
        assertEquals(LockLostEvent.Reason.LEASE_EXPIRED, e.reason());
        assertEquals(lease.permitId(), e.ownerId());
        assertFalse(lease.isValid());
        assertFalse(lease.updateLeaseTime(Duration.ofSeconds(5)));
        lease.close(); // a lost lease closes quietly
        Await.until(SOON, () -> heard.stream().anyMatch(h -> h.ownerId().equals(lease.permitId())),
                () -> "the client's listeners never heard of the lost permit: " + heard);
        waiter.getPermitExpirableSemaphore(name).release(id);
        s.delete();
    }

    /**
     * Rule 25.3: threads and asynchronous callers of two clients, with and without leases, never
     * hold more than the two permits, and every permit comes back.
     * When it fails: the acquire script must move permits between the count and the zset
     * atomically; a permit lost points at a release path (single, list, lease end) that drops or
     * doubles one.
     */
    @Test
    void rule25_3_twoClients_neverHoldMoreThanThePermits() throws Exception {
        String name = "tck:pes:exclusion";
        List<LockClient> clients = List.of(client(), client());
        clients.get(0).getPermitExpirableSemaphore(name).trySetPermits(2);
        Holders holders = new Holders(2);
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            PermitExpirableSemaphore s = clients.get(c).getPermitExpirableSemaphore(name);
            for (int t = 0; t < 3; t++) {
                String who = "c" + c + "t" + t;
                long lease = t == 0 ? -1 : 30;
                workers.add(background(() -> {
                    for (int i = 0; i < 15; i++) {
                        String id = s.acquire(lease, TimeUnit.SECONDS);
                        holders.enter(1, who);
                        holders.exit(1);
                        s.release(id);
                    }
                    return null;
                }));
            }
            workers.add(background(() -> {
                for (int i = 0; i < 15; i++) {
                    String id = s.acquireAsync(30, TimeUnit.SECONDS).get(1, TimeUnit.MINUTES);
                    holders.enter(1, "async");
                    holders.exit(1);
                    s.releaseAsync(id).get(1, TimeUnit.MINUTES);
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(2, TimeUnit.MINUTES);
        }
        assertEquals(List.of(), holders.overlaps);
        assertEquals(2, clients.get(1).getPermitExpirableSemaphore(name).availablePermits());
        assertEquals(0, clients.get(1).getPermitExpirableSemaphore(name).acquiredPermits());
        clients.get(0).getPermitExpirableSemaphore(name).delete();
    }

    /**
     * Rule 25.4: a cancelled or timed-out waiter takes no permit and leaves nothing; a permit lease
     * closed releases its permit; closing the client reports a lease still held (CLIENT_CLOSED).
     * When it fails: a waiter that gives up must release a permit it took after giving up; close()
     * must report still-held leases as CLIENT_CLOSED before it returns.
     */
    @Test
    void rule25_4_cancelAndClose_leaveNothing_closeReportsHeldLeases() throws Exception {
        String name = "tck:pes:cancel";
        LockClient a = client();
        PermitExpirableSemaphore s = a.getPermitExpirableSemaphore(name);
        s.trySetPermits(1);
        PermitLease held = s.acquireLease(Duration.ZERO, Duration.ofSeconds(30));
        CompletableFuture<String> cancelled = s.acquireAsync();
        awaitWaiting(a, 1);
        cancelled.cancel(false);
        assertThrows(CancellationException.class, () -> cancelled.get(1, TimeUnit.SECONDS));
        assertNull(s.tryAcquire(100, -1, TimeUnit.MILLISECONDS));
        awaitIdle(a);
        held.close();
        assertEquals(1, s.availablePermits(), "the closed lease gave its permit back; nobody else took it");
        PermitLease open = s.acquireLease(Duration.ZERO, null);
        CompletableFuture<LockLostEvent> lost = new CompletableFuture<>();
        open.onLost(lost::complete);
        a.close();
        assertEquals(LockLostEvent.Reason.CLIENT_CLOSED, lost.get(10, TimeUnit.SECONDS).reason());
        PermitExpirableSemaphore other = client().getPermitExpirableSemaphore(name);
        other.release(open.permitId()); // a permit outlives its closed client; any client may release it
        assertEquals(1, other.availablePermits());
        other.delete();
    }

    /**
     * Rule 25.5: bad ids and leases are refused with a message naming what was passed. When it
     * fails: ids are checked (32 hex characters) and leases (positive, or never) before any script,
     * with the value in the message.
     */
    @Test
    void rule25_5_badInput_refusedWithWhatWasPassed() {
        PermitExpirableSemaphore s = client().getPermitExpirableSemaphore("tck:pes:bad");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.release("not-an-id"));
        assertTrue(e.getMessage().contains("not-an-id"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> s.tryAcquire(1, 0, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("leaseTime"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> s.tryAcquire(0));
        assertThrows(IllegalArgumentException.class, () -> s.tryRelease(List.of()));
        assertEquals(0L, redis("EXISTS", "tck:pes:bad"));
    }

    /**
     * Rule 25.8: the permit-expirable semaphore's time to live covers its two keys, as Redisson's
     * does: {@code expire} and {@code clearExpire} change the permits key and the leases zset
     * together, {@code remainTimeToLive} and {@code isExists} read the permits key; once both
     * expire the permits and their leases are gone, and {@code trySetPermits} starts afresh.
     * When it fails: the expire and clear scripts must run over both keys (sync spec 3.12); the
     * reads over the permits key only.
     */
    @Test
    void rule25_8_expire_coversPermitsAndLeases_asRedisson() throws Exception {
        String name = "tck:pes:ttl";
        PermitExpirableSemaphore s = client().getPermitExpirableSemaphore(name);
        assertFalse(s.isExists());
        assertEquals(-2L, s.remainTimeToLive());
        assertFalse(s.expire(Duration.ofSeconds(30)), "nothing to expire");
        assertTrue(s.trySetPermits(3));
        String held = s.acquire(60, TimeUnit.SECONDS);
        assertEquals(-1L, s.remainTimeToLive());
        assertTrue(s.expire(Duration.ofSeconds(30)));
        for (String key : List.of(name, leases(name))) {
            long ttl = pttl(key);
            assertTrue(ttl > 0 && ttl <= 30_000, key + " after expire(30 s): PTTL " + ttl);
        }
        assertTrue(Math.abs(s.remainTimeToLive() - pttl(name)) < 5_000, "remainTimeToLive is the permits key's PTTL");
        assertTrue(s.clearExpireAsync().get(10, TimeUnit.SECONDS));
        assertEquals(List.of(-1L, -1L), List.of(pttl(name), pttl(leases(name))), "clearExpire clears both keys");
        if (serverHasExpireConditions()) {
            assertTrue(s.expireIfNotSet(Duration.ofSeconds(30)));
            assertTrue(pttl(leases(name)) > 0, "a conditional expire covers the leases too");
            assertFalse(s.expireIfNotSetAsync(Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS));
        }
        assertTrue(s.isExistsAsync().get(10, TimeUnit.SECONDS));
        assertTrue(s.expireAsync(java.time.Instant.now().minusSeconds(1)).get(10, TimeUnit.SECONDS));
        assertEquals(0L, redis("EXISTS", name, leases(name)), "an instant already past deletes both keys");
        assertFalse(s.isExists());
        assertEquals(0, s.getPermits(), "the permits went with the keys");
        assertFalse(s.tryRelease(held), "and so did the lease");
        assertTrue(s.trySetPermits(3), "trySetPermits starts afresh");
        assertEquals(3, s.availablePermits());
        assertTrue(s.delete());
    }

    /**
     * Rule 25.9: the async overloads Redisson has: {@code acquireAsync(n)} and
     * {@code tryAcquireAsync(n)} take permits without a lease (or none, for a try with too few),
     * {@code tryAcquireAsync(wait, unit)} waits for one, woken by another client's release, and
     * {@code releaseAsync(ids)} releases a list all or none.
     * When it fails: each overload must call what its blocking twin does (no lease: Redisson's
     * 'never' score; the list release's all-or-none script).
     */
    @Test
    void rule25_9_asyncOverloads_asTheirBlockingTwins() throws Exception {
        String name = "tck:pes:async";
        LockClient waiting = client();
        PermitExpirableSemaphore s = waiting.getPermitExpirableSemaphore(name);
        assertTrue(s.trySetPermits(2));
        List<String> two = s.acquireAsync(2).get(30, TimeUnit.SECONDS);
        assertEquals(2, two.size());
        assertEquals(2L, redis("ZCOUNT", leases(name), "922337203685477", "922337203685477"), "no lease: 'never'");
        assertEquals(List.of(), s.tryAcquireAsync(1).get(30, TimeUnit.SECONDS), "none left: an empty list");
        CompletableFuture<String> waiter = s.tryAcquireAsync(SOON.toMillis(), TimeUnit.MILLISECONDS);
        awaitWaiting(waiting, 1);
        client().getPermitExpirableSemaphore(name).release(two.get(0));
        String third = waiter.get(30, TimeUnit.SECONDS);
        assertNotNull(third, "the waiter got the released permit");
        String unknown = "00112233445566778899aabbccddeeff";
        java.util.concurrent.ExecutionException refused = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> s.releaseAsync(List.of(two.get(1), unknown)).get(30, TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof IllegalArgumentException, String.valueOf(refused.getCause()));
        assertEquals(2, s.acquiredPermits(), "a list with an unknown id released nothing");
        s.releaseAsync(List.of(two.get(1), third)).get(30, TimeUnit.SECONDS);
        assertEquals(2, s.availablePermits());
        assertEquals(2, s.tryAcquireAsync(2).get(30, TimeUnit.SECONDS).size());
        assertTrue(s.delete());
    }
}
