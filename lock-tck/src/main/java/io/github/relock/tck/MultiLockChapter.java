package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Chapter 11: MultiLock and RedLock (spec 6) over independent embedded servers: all-or-nothing,
 * release on partial failure, RedLock quorum with servers down, leases on every server.
 * Skipped, saying why, when {@code REDIS_URL} is set (the chapter starts its own servers).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("multi-lock")
public abstract class MultiLockChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected MultiLockChapter(DriverKit kit) {
        super(kit);
    }

    private List<RedisServer> servers(int n) {
        assumeTrue(RedisFixture.canControlServers(), "REDIS_URL is set: the kit may not start servers");
        assumeSingleServer("it starts private single servers, one per RedLock member; the same rule on a cluster kit would repeat it");
        List<RedisServer> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(kit.closeAfterTest(RedisServer.startEmbedded()));
        }
        return list;
    }

    private List<LockClient> clients(List<RedisServer> servers) {
        List<LockClient> list = new ArrayList<>();
        for (RedisServer s : servers) {
            list.add(kit.newLockClient(s, LockOptions.builder().commandTimeout(java.time.Duration.ofSeconds(1)).build()));
        }
        return list;
    }

    private static DistributedLock[] locks(List<LockClient> clients, String name) {
        return clients.stream().map(c -> c.getLock(name)).toArray(DistributedLock[]::new);
    }

    /**
     * Ten threads race for {@code multi} with {@code tryLock(waitMs, 10 s)}; the winners keep it.
     *
     * @return how many won
     */
    private static int winnersOfTenRacers(DistributedLock multi, long waitMs) throws Exception {
        AtomicInteger winners = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(10);
        List<Future<Boolean>> results = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                results.add(pool.submit(() -> {
                    boolean ok = multi.tryLock(waitMs, 10_000, TimeUnit.MILLISECONDS);
                    if (ok) {
                        winners.incrementAndGet();
                    }
                    return ok;
                }));
            }
            for (Future<Boolean> f : results) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return winners.get();
    }

    /**
     * Rule 11.1: ten threads race for a multi-lock over three servers: exactly one wins.
     * When it fails: more than one winner: a multi-lock must hold every member before it reports
     * success; look at the all-or-nothing check of its attempt.
     */
    @Test
    void rule11_1_multiLock_tenThreads_exactlyOneWins() throws Exception {
        List<LockClient> clients = clients(servers(3));
        DistributedLock multi = clients.get(0).getMultiLock(locks(clients, "tck:multi"));
        assertEquals(1, winnersOfTenRacers(multi, -1));
        for (LockClient c : clients) {
            c.getLock("tck:multi").forceUnlock();
        }
    }

    /**
     * Rule 11.6: a multi-lock over three locks of one client on the kit's deployment (on a cluster:
     * different slots, on different masters): of ten racers exactly one wins; a member held by
     * another client fails it with nothing left taken; after the winner's unlock every member is free.
     * When it fails: as rules 11.1 and 11.2 on one deployment: on a cluster the members live on
     * different masters, so each member's script must go to its own node.
     */
    @Test
    void rule11_6_multiLock_oneDeployment_membersOnDifferentSlots_exactlyOneWins() throws Exception {
        LockClient c = client();
        String[] names = {"tck:multi-a", "tck:multi-b", "tck:multi-c"};
        if (kit.topology() instanceof RedisCluster cluster) {
            assertEquals(3, java.util.Arrays.stream(names).map(n -> cluster.masterFor(n).port()).distinct().count(),
                    "the members should live on three different masters");
        }
        DistributedLock multi = c.getMultiLock(c.getLock(names[0]), c.getLock(names[1]), c.getLock(names[2]));
        assertEquals(1, winnersOfTenRacers(multi, 0));
        for (String n : names) {
            assertEquals(1L, redis("EXISTS", n), n + " is not held by the winner");
            c.getLock(n).forceUnlock();
        }
        DistributedLock blocker = client().getLock(names[2]);
        assertTrue(ReentrantLockChapter.otherThreadReturns(blocker::tryLock));
        assertFalse(multi.tryLock(300, TimeUnit.MILLISECONDS));
        assertEquals(0L, redis("EXISTS", names[0]), "a failed multi-lock kept a member");
        assertEquals(0L, redis("EXISTS", names[1]), "a failed multi-lock kept a member");
        blocker.forceUnlock();
        assertTrue(multi.tryLock(5, TimeUnit.SECONDS));
        multi.unlock();
        for (String n : names) {
            assertEquals(0L, redis("EXISTS", n), n + " still held after the multi-lock's unlock");
        }
    }

    /**
     * Rule 11.2: when one lock is held elsewhere, a multi-lock fails and releases what it took.
     * When it fails: a failed multi-lock must release the members it took before it returns false.
     */
    @Test
    void rule11_2_multiLock_partialFailure_releasesWhatItTook() throws Exception {
        List<RedisServer> servers = servers(3);
        List<LockClient> clients = clients(servers);
        DistributedLock blocker = clients.get(2).getLock("tck:multi");
        assertTrue(ReentrantLockChapter.otherThreadReturns(blocker::tryLock));
        DistributedLock multi = clients.get(0).getMultiLock(locks(clients, "tck:multi"));
        assertFalse(multi.tryLock(300, TimeUnit.MILLISECONDS));
        assertEquals(0L, servers.get(0).call("EXISTS", "tck:multi"), "lock on server 1 not released");
        assertEquals(0L, servers.get(1).call("EXISTS", "tck:multi"), "lock on server 2 not released");
        assertEquals(1L, servers.get(2).call("EXISTS", "tck:multi"));
        blocker.forceUnlock();
        assertTrue(multi.tryLock(5, TimeUnit.SECONDS));
        assertTrue(multi.isHeldByCurrentThread());
        multi.unlock();
        assertFalse(multi.isHeldByCurrentThread());
    }

    /**
     * Rule 11.3: a lease given to a multi-lock is applied on every server.
     * When it fails: the caller's lease must be set on every member once all are held.
     */
    @Test
    void rule11_3_multiLock_leaseOnEveryServer() throws Exception {
        List<RedisServer> servers = servers(3);
        List<LockClient> clients = clients(servers);
        DistributedLock multi = clients.get(0).getMultiLock(locks(clients, "tck:lease"));
        assertTrue(multi.tryLock(2, 5, TimeUnit.SECONDS));
        for (RedisServer s : servers) {
            long ttl = (Long) s.call("PTTL", "tck:lease");
            assertTrue(ttl > 3_000 && ttl <= 5_000, "TTL on " + s + " was " + ttl + ", lease 5 s");
        }
        multi.unlock();
        for (RedisServer s : servers) {
            assertEquals(0L, s.call("EXISTS", "tck:lease"));
        }
    }

    /**
     * Rule 11.4: RedLock over five servers acquires with two stopped, and fails with three stopped.
     * When it fails: RedLock needs a majority of members within the wait: look at the quorum count
     * and at how a stopped server's failure is counted (one member not acquired, not an error of
     * the whole call).
     */
    @Test
    void rule11_4_redLock_minorityDown_acquires_majorityDown_fails() throws Exception {
        List<RedisServer> servers = servers(5);
        List<LockClient> clients = clients(servers);
        DistributedLock red = clients.get(0).getRedLock(locks(clients, "tck:red"));
        servers.get(3).stop();
        servers.get(4).stop();
        assertTrue(red.tryLock(3, 10, TimeUnit.SECONDS), "RedLock failed with 3 of 5 servers up");
        for (int i = 0; i < 3; i++) {
            assertEquals(1L, servers.get(i).call("EXISTS", "tck:red"));
        }
        red.unlock();
        servers.get(2).stop();
        assertFalse(red.tryLock(1, 10, TimeUnit.SECONDS), "RedLock acquired with 2 of 5 servers up");
        assertEquals(0L, servers.get(0).call("EXISTS", "tck:red"), "a failed RedLock left a lock behind");
        assertEquals(0L, servers.get(1).call("EXISTS", "tck:red"), "a failed RedLock left a lock behind");
    }

    /**
     * Rule 11.5: unsupported operations say so; bad input is rejected.
     * When it fails: these operations mean nothing for a multi-lock and must throw {@code
     * UnsupportedOperationException} naming it; no members, or a null one, must be refused.
     */
    @Test
    void rule11_5_unsupportedAndBadInput() {
        LockClient c = client();
        DistributedLock multi = c.getMultiLock(c.getLock("tck:a"), c.getLock("tck:b"));
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, multi::forceUnlock);
        assertTrue(e.getMessage().contains("MultiLock"), e.getMessage());
        assertThrows(UnsupportedOperationException.class, multi::getHoldCount);
        assertThrows(UnsupportedOperationException.class, multi::remainTimeToLive);
        assertThrows(UnsupportedOperationException.class, multi::isLocked);
        assertThrows(IllegalArgumentException.class, () -> c.getMultiLock());
        assertThrows(NullPointerException.class, () -> c.getRedLock(c.getLock("x"), null));
    }

    /** The field name Redisson 4.7.0 writes for the value "a" under its default Kryo5Codec (spec 2.8). */
    static final String FIELD_OF_A = "Jon6GCcO+0QSJkhre5wXYA";

    /**
     * Rule 11.7: grouped multi-locks ({@code getMultiLock(group, values)}) of two clients exclude
     * each other on overlapping values of a group and not on disjoint ones; a holder re-enters and
     * releases count for count, a waiter is woken by the release, the async calls and leases
     * (acquire, expireIn, closeAsync) work on a set, the watchdog renews each value's expiry, and
     * the hash holds Redisson's fields (owner, {@code :expire_time} on the client's
     * clock, {@code :lock_count}).
     * When it fails: check the grouped scripts (spec 2.8): an overlap with a live owner must refuse
     * the whole set, a re-entry count every value, a release free a value only at count 0 and
     * publish on the group's lock channel; the renewal must reach the group's hash (renew-hold).
     */
    @Test
    void rule11_7_groupedMultiLock_overlapExcludes_disjointDoesNot_reentrantAndRenewed() throws Exception {
        LockClient a = client(java.time.Duration.ofMillis(600));
        LockClient b = client();
        DistributedLock ab = a.getMultiLock("tck:grouped", List.of("a", "b"));
        DistributedLock bc = b.getMultiLock("tck:grouped", List.of("b", "c"));
        DistributedLock c = b.getMultiLock("tck:grouped", List.of("c"));
        assertEquals("tck:grouped", ab.getName());
        long before = System.currentTimeMillis();
        ab.lock();
        assertEquals(a.clientId() + ":" + Thread.currentThread().getId(), redis("HGET", "tck:grouped", FIELD_OF_A),
                "the value's field names its owner, as Redisson's (spec 2.8)");
        String lockName = a.clientId() + ":" + Thread.currentThread().getId();
        long expiry = Long.parseLong(String.valueOf(redis("HGET", "tck:grouped", FIELD_OF_A + ":" + lockName + ":expire_time")));
        assertTrue(expiry >= before + 600 && expiry <= System.currentTimeMillis() + 600,
                "expire_time is the client's clock plus the watchdog timeout: " + expiry);
        assertTrue(ab.tryLock(), "the holder re-enters");
        assertEquals("2", String.valueOf(redis("HGET", "tck:grouped", FIELD_OF_A + ":" + lockName + ":lock_count")));
        assertFalse(bc.tryLock(), "an overlapping set of another client is refused");
        assertFalse(ab.isHeldByThread(Thread.currentThread().getId() + 1), "another thread does not hold it");
        assertTrue(ab.isHeldByCurrentThread());
        assertTrue(bc.isLocked(), "a set with a held value is locked");
        assertTrue(c.tryLock(), "a disjoint set of the same group is free");
        c.unlock();
        assertFalse(bc.tryLockAsync().get(5, TimeUnit.SECONDS), "async: the overlapping set is refused too");
        io.github.relock.api.LockLease lease = c.acquireAsync(java.time.Duration.ZERO, java.time.Duration.ofSeconds(10))
                .get(5, TimeUnit.SECONDS);
        assertTrue(lease.expireIn(java.time.Duration.ofSeconds(20)), "a lease of a held set extends");
        assertTrue(Long.parseLong(String.valueOf(redis("PTTL", "tck:grouped"))) > 10_000, "the key's TTL follows the lease");
        lease.closeAsync().get(5, TimeUnit.SECONDS);
        assertTrue(c.tryLock(), "the lease's release freed its set");
        c.unlock();
        long taken = Long.parseLong(String.valueOf(redis("HGET", "tck:grouped", FIELD_OF_A + ":" + lockName + ":expire_time")));
        Await.until(java.time.Duration.ofSeconds(5), () -> Long.parseLong(String.valueOf(redis("HGET", "tck:grouped",
                FIELD_OF_A + ":" + lockName + ":expire_time"))) > taken, () -> "the watchdog never renewed the values");
        assertTrue(ab.isHeldByCurrentThread(), "renewed, still held");
        ab.unlock();
        assertFalse(bc.tryLock(), "one release of two leaves the set held");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> waiter = pool.submit(() -> {
                boolean got = bc.tryLock(10, TimeUnit.SECONDS);
                if (got) {
                    bc.unlock();
                }
                return got;
            });
            Await.until(java.time.Duration.ofSeconds(5), () -> !channels().isEmpty(), () -> "the waiter never subscribed");
            ab.unlock();
            assertTrue(waiter.get(10, TimeUnit.SECONDS), "the waiter takes the set once the holder releases it");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0L, redis("EXISTS", "tck:grouped"), "releases delete every field");
    }

    /**
     * Rule 11.9: a grouped multi-lock refuses bad input, saying what it got and what it takes: no
     * values, a null value, a value of a type the codec does not write, a null codec.
     * When it fails: getMultiLock(group, values) must check its values before building the lock,
     * with an IllegalArgumentException naming the value, its type and the types allowed.
     */
    @Test
    void rule11_9_groupedMultiLock_badInput_isRefusedWithWhatItTakes() {
        LockClient c = client();
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> c.getMultiLock("tck:grouped", List.of()));
        assertTrue(none.getMessage().contains("at least one value"), none.getMessage());
        IllegalArgumentException nul = assertThrows(IllegalArgumentException.class,
                () -> c.getMultiLock("tck:grouped", java.util.Arrays.asList("a", null)));
        assertTrue(nul.getMessage().contains("null") && nul.getMessage().contains("String, Integer or Long"), nul.getMessage());
        IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
                () -> c.getMultiLock("tck:grouped", List.of("a", 1.5d)));
        assertTrue(type.getMessage().contains("java.lang.Double") && type.getMessage().contains("'1.5'")
                && type.getMessage().contains("String, Integer or Long"), type.getMessage());
        IllegalArgumentException shortKryo = assertThrows(IllegalArgumentException.class,
                () -> c.getMultiLock("tck:grouped", List.of((short) 1), io.github.relock.api.RedissonValueCodec.KRYO5));
        assertTrue(shortKryo.getMessage().contains("java.lang.Short"), shortKryo.getMessage());
        assertEquals("tck:grouped", c.getMultiLock("tck:grouped", List.of((short) 1),
                io.github.relock.api.RedissonValueCodec.STRING).getName(), "StringCodec writes a Short as its text");
        assertThrows(NullPointerException.class, () -> c.getMultiLock("tck:grouped", (java.util.Collection<?>) null));
        assertThrows(NullPointerException.class, () -> c.getMultiLock("tck:grouped", List.of("a"), null));
        assertThrows(NullPointerException.class, () -> c.getMultiLock((String) null, List.of("a")));
        assertThrows(IllegalArgumentException.class, () -> c.getMultiLock(" ", List.of("a")));
    }
}
