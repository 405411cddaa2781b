package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.FencedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * Chapter 13: the rest of the lock family on Redisson's wire format — the spin lock (spec 2.6,
 * 5.5: no pub/sub, back-off polling), the non-reentrant locks (spec 2.7: a holder's second attempt
 * is refused, never a self-deadlock) and the fenced lock (spec 2.5: a strictly increasing token
 * with every grant). The read-write lock is not in this chapter yet.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("lock-family")
public abstract class LockFamilyChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected LockFamilyChapter(DriverKit kit) {
        super(kit);
    }

    // ---------------------------------------------------------------- 13.1 spin lock

    /**
     * Rule 13.1.1: a spin lock and a reentrant lock of the same name exclude each other both ways.
     * When it fails: the spin lock writes the reentrant lock's hash: each must read the other's
     * field as held.
     */
    @Test
    void rule13_1_1_spinLock_excludesAndIsExcludedByReentrantLock() throws Exception {
        LockClient c = client();
        DistributedLock spin = c.getSpinLock("tck:spin");
        DistributedLock plain = client().getLock("tck:spin");
        spin.lock();
        assertEquals(List.of(c.clientId() + ":" + Thread.currentThread().getId(), "1"),
                redis("HGETALL", "tck:spin"), "the spin lock writes the reentrant lock's hash and field");
        assertFalse(otherThreadReturns(plain::tryLock), "a reentrant lock acquired a held spin lock");
        spin.unlock();
        plain.lock();
        assertFalse(otherThreadReturns(spin::tryLock), "a spin lock acquired a held reentrant lock");
        plain.unlock();
    }

    /**
     * Rule 13.1.2: spin waiters subscribe to nothing and releases publish nothing; the waiter still
     * acquires soon after the release, by polling.
     * When it fails: spin waiters poll with a back-off and never subscribe, and a spin release
     * publishes nothing: a subscription or a message means the spin lock took the pub/sub path.
     */
    @Test
    void rule13_1_2_spinLock_noPubSub_waiterAcquiresByPolling() throws Exception {
        DistributedLock spin = client().getSpinLock("tck:spin-quiet");
        spin.lock();
        redis("CONFIG", "RESETSTAT");
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                boolean ok = spin.tryLock(30, TimeUnit.SECONDS);
                if (ok) {
                    spin.unlock();
                }
                return ok;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        Await.holdsFor(Duration.ofMillis(300), () -> channels().isEmpty(), () -> "a spin waiter subscribed: " + channels());
        spin.unlock();
        assertTrue(waiter.get(Await.scaled(Duration.ofSeconds(20)).toSeconds(), TimeUnit.SECONDS),
                "the spin waiter never acquired after the release");
        String stats = (String) redis("INFO", "commandstats");
        // Sentinels PUBLISH their hello messages through the primary every 2 s: not ours to count.
        boolean sentinels = kit.topology().kind() == RedisTopology.Kind.SENTINEL;
        assertFalse((stats.contains("cmdstat_publish:") && !sentinels) || stats.contains("cmdstat_spublish:")
                || stats.contains("cmdstat_subscribe:"), "the spin lock used pub/sub:\n" + stats);
    }

    /**
     * Rule 13.1.3: a spin {@code tryLock(wait)} on a held lock gives up after the wait and leaves
     * nothing.
     * When it fails: a spin {@code tryLock(wait)} must stop polling at the end of its wait and
     * leave nothing held.
     */
    @Test
    void rule13_1_3_spinLock_tryLockWait_timesOutWithNothingHeld() throws Exception {
        DistributedLock spin = client().getSpinLock("tck:spin-wait");
        DistributedLock other = client().getSpinLock("tck:spin-wait");
        other.lock();
        long start = System.nanoTime();
        assertFalse(otherThreadReturns(() -> spin.tryLock(300, TimeUnit.MILLISECONDS)));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms >= 290, "gave up after " + ms + " ms, before the 300 ms wait");
        assertTrue(other.isHeldByCurrentThread());
        other.unlock();
    }

    /**
     * Rule 13.1.4: threads of two clients incrementing under one spin lock lose no update.
     * When it fails: as rule 6.1 for the spin lock: check the decoding of the spin acquire's reply.
     */
    @Test
    void rule13_1_4_spinLock_contention_noLostUpdate() throws Exception {
        DistributedLock a = client().getSpinLock("tck:spin-count");
        DistributedLock b = client().getSpinLock("tck:spin-count");
        List<Lock> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            workers.add(t % 2 == 0 ? a : b);
        }
        assertEquals(6 * 100, incrementUnderLocks(workers, 100, "tck:spin-counter"));
    }

    /**
     * Rule 13.1.5: a cancelled async spin waiter never takes the lock later; an uncancelled one
     * does. An attempt it sent before the cancel may still land late (a driver's async queue runs
     * it whenever its thread gets to it), so the lock must come free again (that acquisition given
     * back) and then stay free: no attempt after the cancel.
     * When it fails: a cancelled async spin waiter must stop polling, and an acquisition that lands
     * after the cancel must be given back.
     */
    @Test
    void rule13_1_5_spinLock_asyncWaiter_cancelledNeverAcquires() throws Exception {
        DistributedLock spin = client().getSpinLock("tck:spin-async");
        spin.lock();
        CompletableFuture<Void> cancelled = spin.lockAsync(1001);
        CompletableFuture<Void> kept = spin.lockAsync(1002);
        assertTrue(cancelled.cancel(false));
        spin.unlock();
        kept.get(Await.scaled(Duration.ofSeconds(20)).toSeconds(), TimeUnit.SECONDS);
        assertTrue(spin.isHeldByThread(1002));
        assertFalse(spin.isHeldByThread(1001));
        spin.unlockAsync(1002).get(10, TimeUnit.SECONDS);
        Await.until(Duration.ofSeconds(10), () -> !spin.isLocked(),
                () -> "the cancelled spin waiter kept the lock (an attempt that landed late was not given back)");
        Await.holdsFor(Duration.ofMillis(300), () -> !spin.isLocked(),
                () -> "the cancelled spin waiter took the lock again (it polled after the cancel)");
        assertFalse(spin.isHeldByThread(1001));
        assertThrows(CancellationException.class, cancelled::join);
    }

    /**
     * Rule 13.1.6: the back-off is configurable and checked: initial above max is refused, saying
     * both.
     * When it fails: the spin back-off options must be checked when they are set, naming both
     * values.
     */
    @Test
    void rule13_1_6_spinBackOff_badValues_refusedWithValues() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LockOptions.builder().spinBackOff(Duration.ofMillis(200), Duration.ofMillis(100)));
        assertTrue(e.getMessage().contains("200 ms") && e.getMessage().contains("100 ms"), e.getMessage());
        LockOptions o = LockOptions.builder().spinBackOff(Duration.ofMillis(2), Duration.ofMillis(16)).build();
        assertEquals(Duration.ofMillis(2), o.spinBackOffInitial());
        assertEquals(Duration.ofMillis(16), o.spinBackOffMax());
        DistributedLock spin = kit.newLockClient(o).getSpinLock("tck:spin-opts");
        assertTrue(spin.tryLock());
        spin.unlock();
    }

    // ---------------------------------------------------------------- 13.2 non-reentrant locks

    /**
     * Rule 13.2.1: the holder of a non-reentrant lock asking again is refused at once with
     * {@link IllegalMonitorStateException} on every path (lock, tryLock, tryLock(wait), async);
     * the hold count stays 1 and one unlock frees it.
     * When it fails: the holder of a non-reentrant lock must be refused on every acquire path
     * before any wait; a hold count of 2 means the reentrant script ran.
     */
    @Test
    void rule13_2_1_nonReentrant_holderAsksAgain_refusedAtOnce() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getNonReentrantLock("tck:once");
        lock.lock();
        assertEquals(List.of(c.clientId() + ":" + Thread.currentThread().getId(), "1"),
                redis("HGETALL", "tck:once"), "the reentrant lock's hash and field");
        long start = System.nanoTime();
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, lock::lock);
        assertTrue(e.getMessage().contains("not reentrant") && e.getMessage().contains("tck:once"), e.getMessage());
        assertThrows(IllegalMonitorStateException.class, lock::tryLock);
        assertThrows(IllegalMonitorStateException.class, () -> lock.tryLock(30, TimeUnit.SECONDS));
        long tid = Thread.currentThread().getId();
        ExecutionException async = assertThrows(ExecutionException.class,
                () -> lock.lockAsync(tid).get(10, TimeUnit.SECONDS));
        assertTrue(async.getCause() instanceof IllegalMonitorStateException, String.valueOf(async.getCause()));
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 10, "a refusal waited");
        assertEquals(1, lock.getHoldCount());
        assertFalse(otherThreadReturns(lock::tryLock), "another thread took a held non-reentrant lock");
        lock.unlock();
        assertFalse(lock.isLocked());
        assertTrue(otherThreadReturns(() -> {
            boolean ok = lock.tryLock();
            lock.unlock();
            return ok;
        }));
    }

    /**
     * Rule 13.2.2: a non-reentrant lock excludes a reentrant lock of the same name, and its waiter
     * is woken by release.
     * When it fails: the non-reentrant lock shares the reentrant lock's key, and its release must
     * publish so that waiters wake.
     */
    @Test
    void rule13_2_2_nonReentrant_waiterWokenByRelease() throws Exception {
        DistributedLock once = client().getNonReentrantLock("tck:once-wait");
        DistributedLock plain = client().getLock("tck:once-wait");
        plain.lock();
        CompletableFuture<Void> waiter = once.lockAsync(77);
        Await.holdsFor(Duration.ofMillis(200), () -> !waiter.isDone(), () -> "the waiter acquired a held lock");
        plain.unlock();
        waiter.get(Await.scaled(Duration.ofSeconds(10)).toSeconds(), TimeUnit.SECONDS);
        assertTrue(once.isHeldByThread(77));
        once.unlockAsync(77).get(10, TimeUnit.SECONDS);
    }

    /**
     * Rule 13.2.3: the holder of a non-reentrant fair lock asking again is refused at once and
     * leaves no queue entry; other owners queue and acquire in order as on the fair lock.
     * When it fails: the non-reentrant fair lock must refuse its holder without adding a queue
     * entry; other owners queue as on the fair lock.
     */
    @Test
    void rule13_2_3_nonReentrantFair_holderRefused_othersQueueInOrder() throws Exception {
        DistributedLock lock = client().getNonReentrantFairLock("tck:once-fair");
        lock.lock();
        assertThrows(IllegalMonitorStateException.class, () -> lock.tryLock(30, TimeUnit.SECONDS));
        assertEquals(0L, redis("LLEN", "redisson_lock_queue:{tck:once-fair}"), "the refused holder was queued");
        CompletableFuture<Void> first = lock.lockAsync(501);
        Await.until(Duration.ofSeconds(10), () -> (Long) redis("LLEN", "redisson_lock_queue:{tck:once-fair}") == 1,
                () -> "the first waiter never queued");
        CompletableFuture<Void> second = lock.lockAsync(502);
        Await.until(Duration.ofSeconds(10), () -> (Long) redis("LLEN", "redisson_lock_queue:{tck:once-fair}") == 2,
                () -> "the second waiter never queued");
        lock.unlock();
        first.get(Await.scaled(Duration.ofSeconds(10)).toSeconds(), TimeUnit.SECONDS);
        assertFalse(second.isDone(), "the second waiter overtook the first");
        ExecutionException again = assertThrows(ExecutionException.class,
                () -> lock.lockAsync(501).get(10, TimeUnit.SECONDS));
        assertTrue(again.getCause() instanceof IllegalMonitorStateException, String.valueOf(again.getCause()));
        lock.unlockAsync(501).get(10, TimeUnit.SECONDS);
        second.get(Await.scaled(Duration.ofSeconds(10)).toSeconds(), TimeUnit.SECONDS);
        lock.unlockAsync(502).get(10, TimeUnit.SECONDS);
        Await.until(Duration.ofSeconds(10), () -> (Long) redis("EXISTS", "redisson_lock_timeout:{tck:once-fair}") == 0,
                () -> "queue deadlines left behind");
    }

    // ---------------------------------------------------------------- 13.3 fenced lock

    /**
     * Rule 13.3.1: every grant, re-entries and other clients included, takes a token strictly
     * greater than the last; {@code getToken()} and {@code redisson_lock_token:{N}} hold the last.
     * When it fails: every grant must increment the token key in the same script as the
     * acquisition: a repeated or lower token means the token was taken outside the script, or a
     * re-entry skipped it.
     */
    @Test
    void rule13_3_1_fenced_tokensStrictlyIncreaseAcrossGrantsAndClients() throws Exception {
        FencedLock a = client().getFencedLock("tck:fence");
        FencedLock b = client().getFencedLock("tck:fence");
        try {
            assertNull(a.getToken(), "a token before any grant");
            long t1 = a.lockAndGetToken();
            long t2 = a.lockAndGetToken(); // re-entry takes a token too
            assertTrue(t2 > t1, t2 + " after " + t1);
            assertNull(onOtherThread(b::tryLockAndGetToken), "a second client took a held fenced lock");
            a.unlock();
            a.unlock();
            Long t3 = onOtherThread(() -> {
                Long t = b.tryLockAndGetToken(5, TimeUnit.SECONDS);
                b.unlock();
                return t;
            });
            assertNotNull(t3);
            assertTrue(t3 > t2, t3 + " after " + t2);
            assertEquals(t3, a.getToken());
            assertEquals(String.valueOf(t3), redis("GET", "redisson_lock_token:{tck:fence}"));
            assertEquals(-1L, pttl("redisson_lock_token:{tck:fence}"), "the token key must never expire");
        } finally {
            redis("DEL", "redisson_lock_token:{tck:fence}");
        }
    }

    /**
     * Rule 13.3.2: a lease on a fenced lock carries its token, and a lease on any other lock type
     * carries none; the token is the one Redis recorded for that grant.
     * When it fails: a lease must carry the token of its own grant, from that grant's reply; other
     * lock types carry none.
     */
    @Test
    void rule13_3_2_fenced_leaseCarriesItsToken_otherLeasesNone() throws Exception {
        LockClient c = client();
        FencedLock fenced = c.getFencedLock("tck:fence-lease");
        try {
            long before = fenced.lockAndGetToken();
            fenced.unlock();
            try (LockLease lease = fenced.acquire(Duration.ofSeconds(5))) {
                assertTrue(lease.fencingToken().isPresent());
                assertEquals(before + 1, lease.fencingToken().getAsLong());
                assertEquals(before + 1, fenced.getToken());
            }
            try (LockLease plain = c.getLock("tck:fence-plain").acquire(Duration.ofSeconds(5))) {
                assertTrue(plain.fencingToken().isEmpty(), "a reentrant lock's lease has a token");
            }
        } finally {
            redis("DEL", "redisson_lock_token:{tck:fence-lease}");
        }
    }

    /**
     * Rule 13.3.3: a reentrant lock of the same name excludes the fenced lock and takes no token;
     * a lock hash without a TTL (written by anyone) never reads as "acquired" (Redisson's PTTL -1
     * quirk avoided).
     * When it fails: the fenced acquire must treat a hash without a TTL (PTTL -1) as held by
     * someone, not as acquired, and must not take a token for a key it does not own.
     */
    @Test
    void rule13_3_3_fenced_plainLockExcludes_keyWithoutTtlNeverReadsAcquired() throws Exception {
        FencedLock fenced = client().getFencedLock("tck:fence-mix");
        DistributedLock plain = client().getLock("tck:fence-mix");
        try {
            plain.lock();
            assertNull(onOtherThread(fenced::tryLockAndGetToken));
            plain.unlock();
            assertNull(fenced.getToken(), "a failed attempt or a plain grant took a token");
            redis("HSET", "tck:fence-mix", "someone:1", "1"); // no TTL
            assertNull(onOtherThread(() -> fenced.tryLockAndGetToken(200, TimeUnit.MILLISECONDS)),
                    "a lock without a TTL read as acquired");
            redis("DEL", "tck:fence-mix");
        } finally {
            redis("DEL", "redisson_lock_token:{tck:fence-mix}");
        }
    }

    /**
     * Rule 13.3.4: {@code lockAndGetToken(lease)} honours the lease (Redisson ignores it).
     * When it fails: {@code lockAndGetToken(lease)} must pass the lease to the fenced acquire
     * script.
     */
    @Test
    void rule13_3_4_fenced_lockAndGetTokenWithLease_setsThatTtl() throws Exception {
        FencedLock fenced = client().getFencedLock("tck:fence-ttl");
        try {
            fenced.lockAndGetToken(2, TimeUnit.SECONDS);
            long ttl = pttl("tck:fence-ttl");
            assertTrue(ttl > 0 && ttl <= 2000, "TTL should be the 2 s lease, was " + ttl);
            fenced.unlock();
        } finally {
            redis("DEL", "redisson_lock_token:{tck:fence-ttl}");
        }
    }

    /**
     * Rule 13.3.5: a register guarded by the token (a Lua check-and-set, as a protected resource
     * would do) accepts the current holder's writes and refuses a stale holder's, after the stale
     * holder's lease ran out and the lock passed on.
     * When it fails: a stale write accepted means the tokens did not increase strictly across the
     * hand-over: check that the new holder's grant took a new token.
     */
    @Test
    void rule13_3_5_fenced_staleHolderWrite_refusedByTokenCheckingResource() throws Exception {
        FencedLock stale = client().getFencedLock("tck:fence-res");
        FencedLock next = client().getFencedLock("tck:fence-res");
        try {
            long old = stale.lockAndGetToken(300, TimeUnit.MILLISECONDS);
            Await.until(Duration.ofSeconds(10), () -> !next.isLocked(), () -> "the 300 ms lease did not expire");
            try (LockLease lease = next.acquire(Duration.ofSeconds(5))) {
                long current = lease.fencingToken().orElseThrow();
                assertTrue(current > old, current + " after " + old);
                assertEquals(1L, guardedWrite(current, "new"), "the current holder's write was refused");
                assertEquals(0L, guardedWrite(old, "stale"), "a stale token's write was accepted");
                assertEquals("new", redis("HGET", "{tck:fence-res}:register", "value"));
            }
        } finally {
            redis("DEL", "redisson_lock_token:{tck:fence-res}", "{tck:fence-res}:register");
        }
    }

    /**
     * Rule 13.3.6: the async token methods grant the same strictly increasing tokens: a waiting
     * {@code lockAndGetTokenAsync} gets the next token once the holder releases, a timed-out
     * {@code tryLockAndGetTokenAsync} answers null and takes none, and {@code getTokenAsync} reads the last.
     * When it fails: the async token calls must run the same script as the blocking ones; a
     * timed-out try must answer null and take no token.
     */
    @Test
    void rule13_3_6_fenced_asyncTokens_increaseAndTimeoutTakesNone() throws Exception {
        FencedLock fenced = client().getFencedLock("tck:fence-async");
        try {
            long first = fenced.lockAndGetTokenAsync(601).get(10, TimeUnit.SECONDS);
            assertNull(fenced.tryLockAndGetTokenAsync(100, -1, TimeUnit.MILLISECONDS, 602).get(10, TimeUnit.SECONDS),
                    "a timed-out attempt answered a token");
            CompletableFuture<Long> waiting = fenced.lockAndGetTokenAsync(603);
            fenced.unlockAsync(601).get(10, TimeUnit.SECONDS);
            long next = waiting.get(Await.scaled(Duration.ofSeconds(10)).toSeconds(), TimeUnit.SECONDS);
            assertEquals(first + 1, next, "a failed attempt took a token, or the waiter's grant took none");
            assertEquals(next, fenced.getTokenAsync().get(10, TimeUnit.SECONDS));
            fenced.unlockAsync(603).get(10, TimeUnit.SECONDS);
        } finally {
            redis("DEL", "redisson_lock_token:{tck:fence-async}");
        }
    }

    // ---------------------------------------------------------------- 13.4 name mapper

    /**
     * Rule 13.4.1: two clients with different {@code NameMapper.prefix} mappers do not exclude each
     * other on the same user name; each lock's hash in Redis is the prefixed name, and a client with
     * the same prefix is excluded. When it fails: the mapper is not applied, or not to every key.
     */
    @Test
    void rule13_4_1_prefixMapper_differentPrefixesDoNotExclude_keysCarryPrefix() throws Exception {
        LockClient a = kit.newLockClient(LockOptions.builder().nameMapper(io.github.relock.api.NameMapper.prefix("a1:")).build());
        LockClient b = kit.newLockClient(LockOptions.builder().nameMapper(io.github.relock.api.NameMapper.prefix("b1:")).build());
        LockClient a2 = kit.newLockClient(LockOptions.builder().nameMapper(io.github.relock.api.NameMapper.prefix("a1:")).build());
        DistributedLock la = a.getLock("tck:shared");
        DistributedLock lb = b.getLock("tck:shared");
        la.lock();
        assertTrue(otherThreadReturns(() -> {
            boolean ok = lb.tryLock();
            lb.unlock();
            return ok;
        }), "a client with another prefix was excluded");
        assertFalse(otherThreadReturns(() -> a2.getLock("tck:shared").tryLock()), "a client with the same prefix got in");
        assertEquals(1L, redis("EXISTS", "a1:tck:shared"));
        assertEquals(0L, redis("EXISTS", "tck:shared"));
        la.unlock();
        DistributedLock fair = b.getFairLock("tck:shared-fair");
        fair.lock();
        assertEquals(1L, redis("EXISTS", "b1:tck:shared-fair"));
        fair.unlock();
        assertEquals(List.of(), redis("KEYS", "*shared*"));
    }

    private Object guardedWrite(long token, String value) {
        return redis("EVAL", "local last = tonumber(redis.call('hget', KEYS[1], 'token') or '-1') "
                + "if tonumber(ARGV[1]) < last then return 0 end "
                + "redis.call('hset', KEYS[1], 'token', ARGV[1], 'value', ARGV[2]) return 1",
                "1", "{tck:fence-res}:register", Long.toString(token), value);
    }

    // ---------------------------------------------------------------- 13.5 lock types sharing a name

    /**
     * Rule 13.5.1: one client using {@code getLock(n)} and {@code getFairLock(n)} on one name
     * behaves as two Redisson clients would: a reentrant release never hands the lock to a fair
     * waiter behind the queue's back; the fair waiter takes it through the fair protocol, leaving
     * the queue and its deadlines consistent, so another client's fair {@code tryLock} gets the free
     * lock at once afterwards.
     * When it fails: a reentrant release must not give the lock to a fair waiter behind the queue's
     * back: the fair waiter takes it through the fair protocol, leaving the queue and its deadlines
     * consistent.
     */
    @Test
    void rule13_5_1_reentrantAndFairOnOneName_neverCrossHandOff_queueConsistent() throws Exception {
        String name = "tck:mixed-types";
        LockClient c = client();
        DistributedLock plain = c.getLock(name);
        DistributedLock fair = c.getFairLock(name);
        plain.lock();
        CompletableFuture<Void> fairWaiter = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                fair.lock();
                fair.unlock();
                fairWaiter.complete(null);
            } catch (Throwable e) {
                fairWaiter.completeExceptionally(e);
            }
        }, "tck-mixed-fair-waiter");
        t.setDaemon(true);
        t.start();
        String queue = name.indexOf('{') >= 0 ? "redisson_lock_queue:" + name : "redisson_lock_queue:{" + name + "}";
        String timeouts = queue.replace("redisson_lock_queue", "redisson_lock_timeout");
        Await.until(Duration.ofSeconds(20), () -> (Long) redis("LLEN", queue) == 1, () -> "the fair waiter never queued");
        LostReplyChapter.awaitParked(t);
        plain.unlock();
        fairWaiter.get(30, TimeUnit.SECONDS);
        assertEquals(0L, redis("LLEN", queue), "the fair waiter's entry is still queued after it acquired and released");
        assertEquals(0L, redis("ZCARD", timeouts), "the fair waiter's deadline is still in the zset");
        DistributedLock other = client().getFairLock(name);
        long start = System.nanoTime();
        assertTrue(other.tryLock(5, TimeUnit.SECONDS), "another client's fair tryLock found the free lock blocked");
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 1000,
                "another client waited for a free lock: a stale queue entry blocked it");
        other.unlock();
    }

    /**
     * Rule 13.3.7: the fenced lock's async token variants without an owner id (Redisson's
     * {@code RFencedLockAsync}) act for the calling thread: a one-shot try takes a token or answers
     * null, a timed try answers null after its wait, a lock with a lease sets that TTL, and every
     * grant's token is greater than the last.
     * When it fails: the async variants without an owner id must act for the calling thread, taken
     * when they are called.
     */
    @Test
    void rule13_3_7_fenced_asyncTokenVariantsWithoutOwnerId() throws Exception {
        LockClient c = client();
        FencedLock lock = c.getFencedLock("tck:fence-async-own");
        Long first = lock.tryLockAndGetTokenAsync().get(10, TimeUnit.SECONDS);
        assertNotNull(first);
        assertTrue(lock.isHeldByCurrentThread());
        FencedLock other = client().getFencedLock("tck:fence-async-own");
        assertNull(onOtherThread(() -> other.tryLockAndGetTokenAsync().get(10, TimeUnit.SECONDS)));
        assertNull(onOtherThread(() -> other.tryLockAndGetTokenAsync(100, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS)));
        lock.unlock();
        Long second = lock.lockAndGetTokenAsync(5, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        assertTrue(second > first, "tokens must increase: " + first + " then " + second);
        long ttl = (Long) redis("PTTL", "tck:fence-async-own");
        assertTrue(ttl > 0 && ttl <= 5000, "the lease's TTL, was " + ttl);
        lock.unlock();
        Long third = lock.tryLockAndGetTokenAsync(1, 5, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        assertTrue(third > second);
        lock.unlock();
        redis("DEL", "redisson_lock_token:{tck:fence-async-own}");
    }

    /**
     * Rule 13.1.7: {@code getSpinLock(name, backOff)} takes Redisson's back-off choices: a waiter
     * on a constant or an exponential back-off acquires by polling once the lock is free; bad
     * values are refused with the value in the message.
     * When it fails: Redisson's constant and exponential back-offs must map onto relock's poll
     * intervals, and bad values be refused with the value.
     */
    @Test
    void rule13_1_7_spinLockWithBackOff_constantAndExponentialWaitersAcquire() throws Exception {
        LockClient c = client();
        for (io.github.relock.api.SpinBackOff backOff : List.of(
                io.github.relock.api.SpinBackOff.constant(Duration.ofMillis(5)),
                io.github.relock.api.SpinBackOff.exponential(Duration.ofMillis(1), Duration.ofMillis(16), 3))) {
            DistributedLock lock = c.getSpinLock("tck:spin-backoff", backOff);
            lock.lock();
            CompletableFuture<Boolean> waiter = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    waiter.complete(lock.tryLock(20, TimeUnit.SECONDS));
                    lock.unlock();
                } catch (Throwable e) {
                    waiter.completeExceptionally(e);
                }
            });
            t.start();
            Await.until(Duration.ofSeconds(10), () -> c.stats().waiters() == 1, () -> "the spin waiter never waited");
            lock.unlock();
            assertTrue(waiter.get(30, TimeUnit.SECONDS), backOff + ": the waiter never got the free lock");
            t.join(10_000);
        }
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> io.github.relock.api.SpinBackOff.exponential(Duration.ZERO, Duration.ofMillis(10), 2));
        assertTrue(e.getMessage().contains("was 0 ms"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> io.github.relock.api.SpinBackOff.exponential(Duration.ofMillis(5), Duration.ofMillis(2), 2));
        assertTrue(e.getMessage().contains("was 2 ms"), e.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class, () -> c.getSpinLock("tck:spin-backoff", null));
    }
}
