package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.FencedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockInspection;
import io.github.relock.api.LockInspection.Kind;
import io.github.relock.api.LockInspection.Mode;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockOptions;
import io.github.relock.api.OwnerInfo;
import io.github.relock.api.PermitExpirableSemaphore;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 31: inspection ({@code LockClient.inspect}). One read-only script reads every key of a
 * name and says what it is: which lock kind, who holds it with which hold count and mode, its TTL,
 * a fair lock's queue with deadlines, a read-write lock's read holds, a fenced lock's last token,
 * a semaphore's or latch's count, a permit-expirable semaphore's held permits; and, for holders of
 * relock clients that registered {@code OwnerInfo}, who they are; and, for the client holding a
 * lock through a cohort run, which of its owners holds it now. Rule 31.9 (a Redisson holder) is in
 * the Redisson kit.
 *
 * <p>When a rule fails: compare the inspect script ({@code scripts/inspect.lua}) with the keys of
 * the wire-format spec, 1.4, and the sync spec, 1.1; for owner info, the client's registration on
 * its timer ({@code DefaultLockClient.registerOwner}).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("inspection")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "the engine's reads; a driver that breaks them"
        + " breaks the lock rules first")
public abstract class InspectionChapter extends SynchronizerChapter {

    /** @param kit the enclosing kit */
    protected InspectionChapter(DriverKit kit) {
        super(kit);
    }

    private static LockInspection.Holder only(LockInspection s) {
        assertEquals(1, s.holders().size(), () -> "one holder expected: " + s);
        return s.holders().get(0);
    }

    /**
     * Rule 31.1: a reentrant lock held twice by a thread, and a lease, show as reentrant with the
     * owner field, client id, thread id, hold count, exclusive mode and a TTL, blocking and async
     * ({@code inspectAsync}) alike; the spin and
     * non-reentrant locks look the same; a free name shows as none.
     * When it fails: the lock hash's fields are {@code <clientId>:<threadId> → count} (spec 2.1).
     */
    @Test
    void rule31_1_reentrantLock_showsHolderHoldCountModeAndTtl() throws Exception {
        LockClient c = client();
        String name = "tck:inspect:reentrant";
        assertEquals(Kind.NONE, c.inspect(name).kind());
        assertFalse(c.inspect(name).found());
        DistributedLock lock = c.getLock(name);
        lock.lock();
        lock.lock();
        try {
            LockInspection s = c.inspect(name);
            assertEquals(Kind.REENTRANT, s.kind(), s::toString);
            assertEquals("hash", s.redisType());
            assertTrue(s.ttlMillis() > 0 && s.ttlMillis() <= LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT.toMillis(),
                    s::toString);
            LockInspection.Holder h = only(s);
            long tid = Thread.currentThread().getId();
            assertEquals(c.clientId() + ":" + tid, h.field());
            assertEquals(c.clientId(), h.clientId());
            assertEquals(tid, h.threadId());
            assertEquals(2, h.holdCount());
            assertEquals(Mode.EXCLUSIVE, h.mode());
            assertTrue(h.owner().isEmpty(), "no owner info registered: " + h);
            LockInspection async = c.inspectAsync(name).get(SOON.toSeconds(), TimeUnit.SECONDS);
            assertEquals(s.holders(), async.holders(), "inspectAsync reads the same");
            assertEquals(Kind.REENTRANT, async.kind());
        } finally {
            lock.unlock();
            lock.unlock();
        }
        try (LockLease lease = c.getSpinLock(name).acquire(SOON)) {
            LockInspection.Holder h = only(c.inspect(name));
            assertTrue(h.threadId() < 0, "a lease's thread id is negative: " + h);
            assertEquals(Kind.REENTRANT, c.inspect(name).kind());
        }
        DistributedLock nonReentrant = c.getNonReentrantLock(name);
        nonReentrant.lock();
        assertEquals(1, only(c.inspect(name)).holdCount());
        nonReentrant.unlock();
        assertEquals(Kind.NONE, c.inspect(name).kind());
        assertEquals(-2, c.inspect(name).ttlMillis());
    }

    /**
     * Rule 31.2: a fair lock shows its holder and its waiters head first, each with a deadline in
     * the future; the head's deadline is not after the next one's.
     * When it fails: the queue is {@code redisson_lock_queue:{name}}, deadlines
     * {@code redisson_lock_timeout:{name}} (spec 2.2).
     */
    @Test
    void rule31_2_fairLock_showsHolderAndQueueInOrderWithDeadlines() throws Exception {
        LockClient c = client();
        String name = "tck:inspect:fair";
        DistributedLock fair = c.getFairLock(name);
        fair.lock();
        CompletableFuture<Void> release = new CompletableFuture<>();
        Future<Long> first = background(() -> holdUntil(fair, release));
        Await.until(SOON, () -> c.inspect(name).queue().size() == 1, () -> "first waiter queued: " + c.inspect(name));
        Future<Long> second = background(() -> holdUntil(fair, release));
        Await.until(SOON, () -> c.inspect(name).queue().size() == 2, () -> "second waiter queued: " + c.inspect(name));
        try {
            LockInspection s = c.inspect(name);
            assertEquals(Kind.FAIR, s.kind(), s::toString);
            assertEquals(Thread.currentThread().getId(), only(s).threadId());
            long now = System.currentTimeMillis();
            LockInspection.Waiter head = s.queue().get(0);
            LockInspection.Waiter next = s.queue().get(1);
            assertEquals(1, head.position());
            assertEquals(2, next.position());
            assertEquals(c.clientId(), head.clientId());
            assertNotEquals(head.field(), next.field());
            assertTrue(head.deadlineEpochMillis().orElseThrow() > now - 1000, s::toString);
            assertTrue(head.deadlineEpochMillis().getAsLong() <= next.deadlineEpochMillis().orElseThrow(), s::toString);
            assertEquals(List.of(), s.unqueuedDeadlines());
        } finally {
            fair.unlock();
            release.complete(null);
        }
        first.get(SOON.toSeconds(), TimeUnit.SECONDS);
        second.get(SOON.toSeconds(), TimeUnit.SECONDS);
        awaitIdle(c);
        Await.until(SOON, () -> c.inspect(name).kind() == Kind.NONE, () -> "left: " + c.inspect(name));
    }

    private static long holdUntil(DistributedLock lock, CompletableFuture<Void> release) throws Exception {
        lock.lock();
        try {
            release.get(60, TimeUnit.SECONDS);
            return Thread.currentThread().getId();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Rule 31.3: a read-write lock shows its mode, each reader with its hold count and each read
     * hold's timeout key with a TTL; with the write lock held the mode is write and the writer's
     * field ends in {@code :write}.
     * When it fails: the hash's {@code mode} field and the readers' timeout keys (spec 2.3/2.4).
     */
    @Test
    void rule31_3_readWriteLock_showsModeReadersAndReadHoldKeys() throws Exception {
        LockClient c = client();
        String name = "tck:inspect:{rw}";
        ReadWriteDistributedLock rw = c.getReadWriteLock(name);
        rw.readLock().lock();
        rw.readLock().lock();
        try {
            LockInspection s = c.inspect(name);
            assertEquals(Kind.READ_WRITE, s.kind(), s::toString);
            assertEquals(Mode.READ, s.lockMode().orElseThrow());
            LockInspection.Holder h = only(s);
            assertEquals(Mode.READ, h.mode());
            assertEquals(2, h.holdCount());
            assertEquals(2, s.readHolds().size(), s::toString);
            LockInspection.ReadHold second = s.readHolds().get(1);
            assertEquals(name + ":" + h.field() + ":rwlock_timeout:2", second.key());
            assertEquals(2, second.index());
            assertTrue(second.ttlMillis() > 0, s::toString);
        } finally {
            rw.readLock().unlock();
            rw.readLock().unlock();
        }
        rw.writeLock().lock();
        try {
            LockInspection s = c.inspect(name);
            assertEquals(Mode.WRITE, s.lockMode().orElseThrow());
            LockInspection.Holder h = only(s);
            assertEquals(Mode.WRITE, h.mode());
            assertEquals(c.clientId() + ":" + Thread.currentThread().getId() + ":write", h.field());
            assertEquals(Thread.currentThread().getId(), h.threadId());
            assertEquals(List.of(), s.readHolds());
        } finally {
            rw.writeLock().unlock();
        }
    }

    /**
     * Rule 31.4: a fenced lock shows the last token granted, while held and after release (the
     * token counter outlives the holds).
     * When it fails: the token is {@code redisson_lock_token:{name}} (spec 1.4).
     */
    @Test
    void rule31_4_fencedLock_showsTheLastToken_heldOrFree() throws Exception {
        LockClient c = client();
        String name = "tck:inspect:fenced";
        FencedLock lock = c.getFencedLock(name);
        long token = lock.lockAndGetToken();
        try {
            LockInspection s = c.inspect(name);
            assertEquals(Kind.FENCED, s.kind(), s::toString);
            assertEquals(token, s.fencingToken().orElseThrow());
            assertEquals(1, s.holders().size());
        } finally {
            lock.unlock();
        }
        LockInspection free = c.inspect(name);
        assertEquals(Kind.FENCED, free.kind(), free::toString);
        assertFalse(free.locked());
        assertEquals(token, free.fencingToken().orElseThrow());
        redis("DEL", "redisson_lock_token:{" + name + "}");
    }

    /**
     * Rule 31.5: a semaphore and a latch show their count; a permit-expirable semaphore its
     * available count and its held permits, earliest deadline first, a permit without a lease as
     * never expiring.
     * When it fails: the count is the string {@code name}, held permits the zset
     * <code>&#123;name&#125;:timeout</code> (sync spec 1.1, 3.2).
     */
    @Test
    void rule31_5_semaphoresAndLatch_showCountsAndHeldPermits() throws Exception {
        LockClient c = client();
        c.getSemaphore("tck:inspect:sem").trySetPermits(4);
        LockInspection sem = c.inspect("tck:inspect:sem");
        assertEquals(Kind.SEMAPHORE_OR_LATCH, sem.kind(), sem::toString);
        assertEquals(4, sem.count().orElseThrow());
        assertEquals(-1, sem.ttlMillis());
        c.getSemaphore("tck:inspect:sem").delete();

        c.getCountDownLatch("tck:inspect:latch").trySetCount(3);
        LockInspection latch = c.inspect("tck:inspect:latch");
        assertEquals(Kind.SEMAPHORE_OR_LATCH, latch.kind(), latch::toString);
        assertEquals(3, latch.count().orElseThrow());
        c.getCountDownLatch("tck:inspect:latch").delete();

        PermitExpirableSemaphore pes = c.getPermitExpirableSemaphore("tck:inspect:pes");
        pes.trySetPermits(3);
        String leased = pes.acquire(60, TimeUnit.SECONDS);
        String forever = pes.acquire();
        LockInspection s = c.inspect("tck:inspect:pes");
        assertEquals(Kind.PERMIT_EXPIRABLE_SEMAPHORE, s.kind(), s::toString);
        assertEquals(1, s.count().orElseThrow());
        assertEquals(2, s.heldPermitCount());
        assertEquals(leased, s.heldPermits().get(0).id(), "earliest deadline first: " + s);
        assertTrue(s.heldPermits().get(0).deadlineEpochMillis().orElseThrow() > System.currentTimeMillis(), s::toString);
        assertEquals(forever, s.heldPermits().get(1).id());
        assertTrue(s.heldPermits().get(1).deadlineEpochMillis().isEmpty(), s::toString);
        pes.delete();
        assertEquals(Kind.NONE, c.inspect("tck:inspect:pes").kind());
    }

    /**
     * Rule 31.6: a client with owner info keeps it under {@code relock:{clients}:<clientId>} with
     * a TTL no longer than its watchdog timeout, an inspection by another client (blocking or async)
     * names that owner for its holds (a client without shows none), and closing the client deletes the key.
     * When it fails: the registration on the client's timer and its deletion on close, and the
     * inspection's second read.
     */
    @Test
    void rule31_6_ownerInfo_namesTheHoldersClient_andGoesOnClose() throws Exception {
        OwnerInfo me = new OwnerInfo("pod-7", "billing", "42", "2.4.1");
        LockClient owner = kit.newLockClient(LockOptions.builder().ownerInfo(me).build());
        String key = "relock:{clients}:" + owner.clientId();
        LockClient other = client();
        DistributedLock mine = owner.getLock("tck:inspect:owned");
        DistributedLock theirs = other.getLock("tck:inspect:unowned");
        mine.lock();
        theirs.lock();
        try {
            Await.until(SOON, () -> Long.valueOf(1).equals(redis("EXISTS", key)), () -> key + " was never written");
            long ttl = pttl(key);
            assertTrue(ttl > 0 && ttl <= LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT.toMillis(), "TTL of " + key + ": " + ttl);
            assertEquals(Optional.of(me), only(other.inspect("tck:inspect:owned")).owner(),
                    () -> "the holder's owner info, registered under " + key + ": " + other.inspect("tck:inspect:owned"));
            assertEquals(Optional.of(me), only(other.inspectAsync("tck:inspect:owned").get(SOON.toSeconds(),
                    TimeUnit.SECONDS)).owner(), "inspectAsync reads owner info too");
            assertTrue(only(owner.inspect("tck:inspect:unowned")).owner().isEmpty());
        } finally {
            mine.unlock();
            theirs.unlock();
        }
        owner.close();
        assertEquals(0L, redis("EXISTS", key), "closing the client deletes its owner info");
        assertThrows(IllegalArgumentException.class, () -> new OwnerInfo("h", "a".repeat(OwnerInfo.MAX_LENGTH + 1), "", ""));
        assertThrows(NullPointerException.class, () -> LockOptions.builder().ownerInfo(null));
    }

    /**
     * Rule 31.7: bad input fails at once with a message naming it: a null, blank or unencodable
     * name, and on a cluster a name whose keys would span slots; a closed client refuses; a key of
     * another type, and a hash that is no lock, are {@link Kind#OTHER}.
     * When it fails: inspect must check its name as getLock does.
     */
    @Test
    void rule31_7_badInput_isRefusedOrReportedAsOther() {
        LockClient c = client();
        assertThrows(NullPointerException.class, () -> c.inspect(null));
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class, () -> c.inspect(" "));
        assertTrue(blank.getMessage().contains("blank"), blank::getMessage);
        assertThrows(IllegalArgumentException.class, () -> c.inspect("a\uD800b"));
        if (kit.topology().kind() == RedisTopology.Kind.CLUSTER) {
            IllegalArgumentException spans = assertThrows(IllegalArgumentException.class, () -> c.inspect("a{b"));
            assertTrue(spans.getMessage().contains("'a{b'") && spans.getMessage().contains("hash tag"), spans::getMessage);
        }
        redis("SET", "tck:inspect:text", "hello");
        redis("HSET", "tck:inspect:hash", "colour", "blue");
        redis("RPUSH", "tck:inspect:list", "x");
        try {
            assertEquals(Kind.OTHER, c.inspect("tck:inspect:text").kind());
            assertEquals(Kind.OTHER, c.inspect("tck:inspect:hash").kind());
            LockInspection list = c.inspect("tck:inspect:list");
            assertEquals(Kind.OTHER, list.kind());
            assertEquals("list", list.redisType());
            assertFalse(list.found());
        } finally {
            redis("DEL", "tck:inspect:text");
            redis("DEL", "tck:inspect:hash");
            redis("DEL", "tck:inspect:list");
        }
        LockClient closed = client();
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.inspect("tck:inspect:x"));
    }

    /**
     * Rule 31.10: during a cohort run the holding client's inspection (blocking and async) names
     * the owner holding the lock now ({@code Holder.cohortOwner}) beside the field Redis shows, the
     * run's anchor; before the pass, and after the run, no holder is a cohort one; another client's
     * inspection shows the anchor only (only the holding client knows of the pass). Its clients turn
     * replica acknowledgement off, as chapter 33's do (a run starts with a local hand-off).
     * When it fails: the inspector asks the client's cohort runs (Cohort.holderFor) for the holder
     * Redis shows, by the run's anchor.
     */
    @Test
    void rule31_10_cohortRun_holdingClientNamesTheOwnerHoldingItNow_othersSeeTheAnchor() throws Exception {
        LockClient client = kit.newLockClient(CohortChapter.cohortOptions(LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT));
        LockClient other = client();
        String name = "tck:inspect:cohort";
        DistributedLock lock = client.getLock(name);
        try (CohortChapter.Owner a = new CohortChapter.Owner("tck-inspect-anchor");
                CohortChapter.Owner b = new CohortChapter.Owner("tck-inspect-next")) {
            Future<Object> bGot = CohortChapter.startRun(lock, a, b);
            LockInspection.Holder anchor = only(client.inspect(name));
            assertEquals(a.id(), anchor.threadId(), anchor::toString);
            assertFalse(anchor.cohort(), () -> "the anchor holds it itself before the pass: " + anchor);
            a.run(() -> {
                lock.unlock();
                return null;
            });
            bGot.get(SOON.toSeconds(), TimeUnit.SECONDS);
            assertTrue(lock.isHeldByThread(b.id()), "the lock was passed within the cohort");
            LockInspection.Holder mine = only(client.inspect(name));
            assertEquals(client.clientId() + ":" + a.id(), mine.field(), () -> "Redis shows the run's anchor: " + mine);
            assertEquals(OptionalLong.of(b.id()), mine.cohortOwner(),
                    () -> "the holding client names the owner holding it now: " + mine);
            assertTrue(mine.cohort());
            assertEquals(b.id(), mine.currentThreadId());
            assertEquals(OptionalLong.of(b.id()), only(client.inspectAsync(name).get(SOON.toSeconds(), TimeUnit.SECONDS))
                    .cohortOwner(), "inspectAsync names the owner holding it now too");
            LockInspection.Holder theirs = only(other.inspect(name));
            assertEquals(mine.field(), theirs.field());
            assertFalse(theirs.cohort(), () -> "another client sees the anchor only: " + theirs);
            b.run(() -> {
                lock.unlock();
                return null;
            });
            assertFalse(client.inspect(name).locked(), "the run's last unlock frees the lock");
        } finally {
            lock.forceUnlock(); // a failed step leaves no key behind
        }
        assertEquals(List.of(), client.heldLocks());
    }

    /**
     * Rule 31.8: while two threads pass a lock back and forth, every inspection is one consistent
     * snapshot: a reentrant lock with at most one holder of hold count 1, or none.
     * When it fails: the inspection must read all keys in one script, not command by command.
     */
    @Test
    void rule31_8_inspectionUnderChurn_isOneConsistentSnapshot() throws Exception {
        LockClient c = client();
        String name = "tck:inspect:churn";
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<Integer>> workers = List.of(background(() -> churn(c, name, stop)), background(() -> churn(c, name, stop)));
        try {
            for (int i = 0; i < 50; i++) {
                LockInspection s = c.inspect(name);
                assertTrue(s.kind() == Kind.NONE || s.kind() == Kind.REENTRANT, s::toString);
                assertTrue(s.holders().size() <= 1, s::toString);
                s.holders().forEach(h -> assertEquals(1, h.holdCount(), s::toString));
            }
        } finally {
            stop.set(true);
        }
        for (Future<Integer> w : workers) {
            assertTrue(w.get(SOON.toSeconds(), TimeUnit.SECONDS) > 0);
        }
        awaitIdle(c);
    }

    private static int churn(LockClient c, String name, AtomicBoolean stop) {
        DistributedLock lock = c.getLock(name);
        int n = 0;
        while (!stop.get() || n == 0) {
            lock.lock();
            n++;
            lock.unlock();
        }
        return n;
    }
}
