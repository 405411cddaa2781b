package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedSemaphore;
import io.github.relock.api.LockClient;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 24: the semaphore ({@code LockClient.getSemaphore}, Redisson's RSemaphore). Its state is
 * one string key, the number of available permits; releases publish the new count on
 * {@code redisson_sc:{name}}. The rules prove the operations' effects on that key, that callers of
 * two clients never hold more permits than exist, that releases wake waiters (blocking and
 * asynchronous), that cancelling, interrupting, timing out or closing a waiter leaves nothing
 * behind and takes no permit, and liveness: no waiter sleeps while permits are available.
 *
 * <p>When a rule fails: for the key's value, compare with the scripts in {@code scripts/sync/} and
 * sync spec 2; for a waiter that never wakes, look at how a semaphore message wakes waiters
 * ({@code SyncPolicy.PERMITS}) and at the poll bound; for a permit taken by a cancelled waiter,
 * at giving back in {@code SyncTarget}.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("synchronizers")
public abstract class SemaphoreChapter extends SynchronizerChapter {

    /** @param kit the enclosing kit */
    protected SemaphoreChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 24.1: every operation leaves the count Redisson would: set once, take, give back, add
     * and remove, drain, releaseIfExists only into an existing key, and nothing created by a
     * failed take.
     * When it fails: compare the semaphore's key with the spec's counter (a plain integer string);
     * a take that fails must not create the key, and releaseIfExists must not create one either.
     */
    @Test
    void rule24_1_operations_leaveRedissonsCount() throws Exception {
        DistributedSemaphore s = client().getSemaphore("tck:sem:ops");
        assertFalse(s.tryAcquire(), "no permits before anyone set them");
        assertEquals(0L, redis("EXISTS", "tck:sem:ops"), "a failed take creates nothing");
        assertFalse(s.releaseIfExists(1));
        assertEquals(0L, redis("EXISTS", "tck:sem:ops"));
        assertTrue(s.trySetPermits(3));
        assertFalse(s.trySetPermits(7), "set only once");
        assertEquals("3", redis("GET", "tck:sem:ops"));
        assertTrue(s.tryAcquire(2));
        assertFalse(s.tryAcquire(2));
        assertTrue(s.tryAcquire(0), "zero permits: true without a call, as in Redisson");
        assertEquals(1, s.availablePermits());
        s.release(2);
        s.addPermits(-1);
        assertEquals(2, s.availablePermits());
        assertTrue(s.releaseIfExists(1));
        assertEquals(3, s.drainPermits());
        assertEquals("0", redis("GET", "tck:sem:ops"));
        assertTrue(s.tryAcquireAsync(1, Duration.ofMillis(50)).get(30, TimeUnit.SECONDS) == Boolean.FALSE);
        assertTrue(s.delete());
        assertTrue(s.trySetPermits(1, Duration.ofSeconds(30)));
        assertTrue(pttl("tck:sem:ops") > 0, "trySetPermits with a time to live sets the key's TTL");
        s.addPermits(1);
        assertEquals(-1L, pttl("tck:sem:ops"), "addPermits rewrites the key without TTL, as Redisson does");
        assertTrue(s.deleteAsync().get(30, TimeUnit.SECONDS));
    }

    /**
     * Rule 24.2: threads and asynchronous callers of two clients, some taking two permits at once,
     * never hold more than the two permits that exist, and every permit comes back.
     * When it fails: the take script must check and decrement the count atomically for the number
     * of permits asked; a permit lost points at a release not sent or sent twice (look at the async
     * cancellation path).
     */
    @Test
    void rule24_2_twoClients_neverHoldMoreThanThePermits_noPermitLost() throws Exception {
        String name = "tck:sem:exclusion";
        List<LockClient> clients = List.of(client(), client());
        clients.get(0).getSemaphore(name).trySetPermits(2);
        Holders holders = new Holders(2);
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            DistributedSemaphore s = clients.get(c).getSemaphore(name);
            for (int t = 0; t < 3; t++) {
                int want = t == 0 ? 2 : 1;
                String who = "c" + c + "t" + t;
                workers.add(background(() -> {
                    for (int i = 0; i < 15; i++) {
                        s.acquire(want);
                        holders.enter(want, who);
                        holders.exit(want);
                        s.release(want);
                    }
                    return null;
                }));
            }
            workers.add(asyncLoop(s, holders, "c" + c + "async", 15));
        }
        for (Future<?> w : workers) {
            w.get(2, TimeUnit.MINUTES);
        }
        assertEquals(List.of(), holders.overlaps);
        assertEquals(2, clients.get(1).getSemaphore(name).availablePermits(), "every permit came back");
        clients.get(0).getSemaphore(name).delete();
    }

    private static CompletableFuture<Void> asyncLoop(DistributedSemaphore s, Holders holders, String who, int rounds) {
        if (rounds == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return s.acquireAsync().thenCompose(v -> {
            holders.enter(1, who);
            holders.exit(1);
            return s.releaseAsync();
        }).thenCompose(v -> asyncLoop(s, holders, who, rounds - 1));
    }

    /**
     * Rule 24.3: waiters of two clients, blocked and asynchronous, parked on a semaphore without
     * permits, all get a permit when another client releases as many.
     * When it fails: a release publishes on the semaphore's channel; each woken waiter must try
     * again and, if it took nothing, pass the wake-up on: check the channel name and the message-
     * wake policy for semaphores.
     */
    @Test
    void rule24_3_release_wakesWaitersOfEveryClient() throws Exception {
        String name = "tck:sem:wake";
        LockClient a = client();
        LockClient b = client();
        Future<Boolean> blockedA = background(() -> a.getSemaphore(name).tryAcquire(1, 60, TimeUnit.SECONDS));
        CompletableFuture<Void> asyncA = a.getSemaphore(name).acquireAsync();
        Future<Boolean> blockedB = background(() -> b.getSemaphore(name).tryAcquire(1, 60, TimeUnit.SECONDS));
        awaitWaiting(a, 2);
        awaitWaiting(b, 1);
        client().getSemaphore(name).release(3);
        assertTrue(blockedA.get(SOON.toSeconds(), TimeUnit.SECONDS));
        asyncA.get(SOON.toSeconds(), TimeUnit.SECONDS);
        assertTrue(blockedB.get(SOON.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0, a.getSemaphore(name).availablePermits());
        awaitIdle(a, b);
        a.getSemaphore(name).delete();
    }

    /**
     * Rule 24.4: a waiter that is cancelled, times out, or is interrupted takes no permit and
     * leaves no subscription: a permit released afterwards is still there.
     * When it fails: a waiter that gives up must leave its channel and must not take a permit after
     * it has answered (look at the race between a take's reply and the cancellation).
     */
    @Test
    void rule24_4_cancelledTimedOutInterrupted_takeNothing_leaveNothing() throws Exception {
        String name = "tck:sem:cancel";
        LockClient a = client();
        DistributedSemaphore s = a.getSemaphore(name);
        CompletableFuture<Void> cancelled = s.acquireAsync(1);
        awaitWaiting(a, 1);
        cancelled.cancel(false);
        assertThrows(CancellationException.class, () -> cancelled.get(1, TimeUnit.SECONDS));
        assertFalse(s.tryAcquire(1, 100, TimeUnit.MILLISECONDS));
        Thread waiter = new Thread(() -> {
            try {
                s.acquire();
                s.release(); // not expected: it is interrupted below, before any permit exists
            } catch (InterruptedException expected) {
                Thread.currentThread().interrupt();
            }
        }, "tck-sem-interrupted");
        waiter.start();
        awaitWaiting(a, 1);
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(waiter.isAlive(), "the interrupted waiter did not leave");
        awaitIdle(a);
        s.release();
        assertEquals(1, s.availablePermits(), "no left-over waiter took the permit");
        s.delete();
    }

    /**
     * Rule 24.5: liveness. Three threads of each of two clients loop acquire/release on a
     * semaphore of two permits while a {@link LivenessMonitor} watches it: it never holds a free
     * permit for longer than the kit's {@link DriverKit#livenessBound()} while a caller is inside acquire.
     * When it fails: a waiter was parked while permits were free: check that a release wakes as
     * many waiters as it gave permits, and that a woken waiter that lost the race parks again only
     * after re-reading the count.
     */
    @Test
    @Tag("liveness")
    void rule24_5_liveness_noWaiterAsleepWhilePermitsAreAvailable() throws Exception {
        String name = "tck:sem:live";
        List<LockClient> clients = List.of(client(), client());
        clients.get(0).getSemaphore(name).trySetPermits(2);
        Holders holders = new Holders(2);
        try (LivenessMonitor monitor = new LivenessMonitor(kit.topology(), kit.livenessBound())) {
            LivenessMonitor.Watched w = monitor.watchPermits(name, name, "redisson_sc:{" + name + "}");
            List<Thread> threads = new ArrayList<>();
            List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            long end = System.nanoTime() + LivenessChapter.SOAK.toNanos();
            for (int c = 0; c < 2; c++) {
                DistributedSemaphore s = clients.get(c).getSemaphore(name);
                for (int t = 0; t < 3; t++) {
                    String who = "c" + c + "t" + t;
                    threads.add(new Thread(() -> {
                        while (System.nanoTime() - end < 0) {
                            w.enter();
                            try {
                                s.acquire();
                            } catch (InterruptedException | RuntimeException e) {
                                w.exit(false);
                                failures.add(who + ": " + e);
                                return;
                            }
                            w.exit(true);
                            holders.enter(1, who);
                            holders.exit(1);
                            s.release();
                        }
                    }, who));
                }
            }
            monitor.start();
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(TimeUnit.MINUTES.toMillis(1));
            }
            monitor.stop();
            List<String> problems = new ArrayList<>(failures);
            problems.addAll(monitor.violations());
            problems.addAll(holders.overlaps);
            threads.stream().filter(Thread::isAlive).forEach(t -> problems.add(t.getName() + " still waiting at "
                    + LivenessMonitor.topOf(t)));
            assertEquals(List.of(), problems, "liveness (bound " + kit.livenessBound().toMillis() + " ms)");
        }
        assertEquals(2, clients.get(0).getSemaphore(name).availablePermits());
        clients.get(0).getSemaphore(name).delete();
    }

    /**
     * Rule 24.6: closing a client fails its waiting calls (blocked and asynchronous) with
     * IllegalStateException, leaves no subscription, and takes no permit.
     * When it fails: close() must fail the pending calls and unsubscribe before it returns; a
     * permit taken by a call whose caller was already told it failed must be given back.
     */
    @Test
    void rule24_6_closeWhileWaiting_failsWaiters_leavesNothing() throws Exception {
        String name = "tck:sem:close";
        LockClient a = client();
        Future<Boolean> blocked = background(() -> a.getSemaphore(name).tryAcquire(1, 60, TimeUnit.SECONDS));
        CompletableFuture<Void> async = a.getSemaphore(name).acquireAsync();
        awaitWaiting(a, 2);
        a.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> blocked.get(30, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        e = assertThrows(ExecutionException.class, () -> async.get(30, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        DistributedSemaphore other = client().getSemaphore(name);
        other.release();
        assertEquals(1, other.availablePermits());
        other.delete();
    }

    /**
     * Rule 24.7: bad input is refused before any call, with a message naming what was passed. When
     * it fails: the argument checks run before any script; the message names the value passed and
     * what is allowed.
     */
    @Test
    void rule24_7_badInput_refusedWithWhatWasPassed() {
        DistributedSemaphore s = client().getSemaphore("tck:sem:bad");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.acquire(-3));
        assertTrue(e.getMessage().contains("-3"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> s.release(-1));
        e = assertThrows(IllegalArgumentException.class, () -> s.tryAcquire(1, -2, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("-2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> s.trySetPermits(1, Duration.ZERO));
        ExecutionException async = assertThrows(ExecutionException.class,
                () -> s.acquireAsync(-1).get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalArgumentException.class, async.getCause());
        assertThrows(NullPointerException.class, () -> client().getSemaphore(null));
        assertEquals(0L, redis("EXISTS", "tck:sem:bad"));
    }

    /**
     * Rule 24.10: the semaphore's time to live and existence, as Redisson's {@code RExpirable} has
     * them, on its one key: a missing semaphore does not exist and cannot be expired;
     * {@code expire} (by duration and by instant) sets the key's TTL, {@code remainTimeToLive}
     * reads it (-1 none, -2 missing), {@code clearExpire} removes it, an instant already past
     * deletes the key; the async forms answer the same.
     * When it fails: compare the key's PTTL with what the call said (the expire script's PEXPIRE
     * or PEXPIREAT over the one key, the clear script's PERSIST; sync spec 2.8).
     */
    @Test
    void rule24_10_expireAndExistence_onTheOneKey_asRedisson() throws Exception {
        String name = "tck:sem:ttl";
        DistributedSemaphore s = client().getSemaphore(name);
        assertFalse(s.isExists(), "a semaphore nobody set does not exist");
        assertEquals(-2L, s.remainTimeToLive());
        assertFalse(s.expire(Duration.ofSeconds(30)), "nothing to expire");
        assertFalse(s.clearExpire());
        assertEquals(0L, redis("EXISTS", name), "expire created nothing");
        assertTrue(s.trySetPermits(2));
        assertTrue(s.isExists());
        assertEquals(-1L, s.remainTimeToLive(), "trySetPermits(n) sets no TTL");
        assertTrue(s.expire(Duration.ofSeconds(30)));
        long ttl = s.remainTimeToLive();
        assertTrue(ttl > 0 && ttl <= 30_000, "remainTimeToLive after expire(30 s): " + ttl);
        assertTrue(Math.abs(pttl(name) - ttl) < 5_000, "remainTimeToLive is the key's PTTL");
        assertTrue(s.clearExpire());
        assertEquals(-1L, pttl(name), "clearExpire removes the key's TTL");
        assertFalse(s.clearExpire(), "nothing left to clear");
        assertTrue(s.expire(Instant.now().plusSeconds(20)));
        ttl = pttl(name);
        assertTrue(ttl > 0 && ttl <= 20_000, "expire(instant in 20 s) left PTTL " + ttl);
        assertTrue(s.expireAsync(Duration.ofSeconds(40)).get(10, TimeUnit.SECONDS));
        assertTrue(s.remainTimeToLiveAsync().get(10, TimeUnit.SECONDS) > 20_000);
        assertTrue(s.isExistsAsync().get(10, TimeUnit.SECONDS));
        assertTrue(s.clearExpireAsync().get(10, TimeUnit.SECONDS));
        assertEquals(-1L, pttl(name));
        assertEquals(2, s.availablePermits(), "an expiry changes no count");
        assertTrue(s.expire(Instant.now().minusSeconds(1)), "an instant already past deletes the key");
        assertEquals(0L, redis("EXISTS", name));
        assertFalse(s.isExistsAsync().get(10, TimeUnit.SECONDS));
        assertEquals(-2L, s.remainTimeToLiveAsync().get(10, TimeUnit.SECONDS));
    }

    /**
     * Rule 24.11: the conditional forms ({@code expireIfSet}, {@code expireIfNotSet},
     * {@code expireIfGreater}, {@code expireIfLess}, by duration, instant and asynchronously) change
     * the TTL only when Redis's condition holds, as Redisson's do; skipped on a server older than
     * Redis 7.0 (no conditions to PEXPIRE).
     * When it fails: the expire script must pass the condition (XX, NX, GT, LT) to PEXPIRE or
     * PEXPIREAT unchanged, and answer 1 only when the key took the expiry.
     */
    @Test
    void rule24_11_conditionalExpire_onlyWhenRedissConditionHolds() throws Exception {
        assumeTrue(serverHasExpireConditions(), "PEXPIRE conditions need Redis 7.0+");
        String name = "tck:sem:ttl-if";
        DistributedSemaphore s = client().getSemaphore(name);
        assertTrue(s.trySetPermits(1));
        assertFalse(s.expireIfSet(Duration.ofSeconds(30)), "XX: the key has no TTL");
        assertFalse(s.expireIfGreater(Duration.ofSeconds(30)), "GT: no TTL counts as never ending");
        assertEquals(-1L, pttl(name));
        assertTrue(s.expireIfNotSet(Duration.ofSeconds(30)), "NX: the key had no TTL");
        assertFalse(s.expireIfNotSet(Instant.now().plusSeconds(60)), "NX: it has one now");
        assertTrue(s.expireIfSet(Duration.ofSeconds(40)), "XX: it has one");
        assertTrue(pttl(name) > 30_000);
        assertFalse(s.expireIfGreater(Duration.ofSeconds(10)), "GT: 10 s is not later");
        assertTrue(s.expireIfLess(Instant.now().plusSeconds(10)), "LT: 10 s is sooner");
        assertTrue(pttl(name) <= 10_000);
        assertFalse(s.expireIfLessAsync(Duration.ofSeconds(50)).get(10, TimeUnit.SECONDS), "LT: 50 s is not sooner");
        assertTrue(s.expireIfGreaterAsync(Instant.now().plusSeconds(50)).get(10, TimeUnit.SECONDS));
        assertTrue(pttl(name) > 40_000);
        assertTrue(s.expireIfSetAsync(Instant.now().plusSeconds(30)).get(10, TimeUnit.SECONDS));
        assertTrue(s.clearExpire());
        assertTrue(s.expireIfNotSetAsync(Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS));
        assertTrue(s.expireIfGreaterAsync(Duration.ofSeconds(45)).get(10, TimeUnit.SECONDS));
        assertTrue(s.expireIfSetAsync(Duration.ofSeconds(20)).get(10, TimeUnit.SECONDS));
        assertTrue(s.expireIfLessAsync(Instant.now().plusSeconds(5)).get(10, TimeUnit.SECONDS));
        assertTrue(pttl(name) <= 5_000);
        assertTrue(s.delete());
    }

    /**
     * Rule 24.12: the rate-limit pattern of Redisson tutorials, {@code trySetPermits(n)} then
     * {@code expire(window)}: within the window the permits run out; once the key expires they are
     * gone (the semaphore no longer exists) and the next {@code trySetPermits} sets a fresh window
     * without a TTL, which the next {@code expire} bounds again.
     * When it fails: {@code trySetPermits} sets only a missing key (an expired one is missing);
     * the expiry must not be lost to a take (the take script's DECRBY keeps the TTL).
     */
    @Test
    void rule24_12_rateLimitPattern_permitsGoneAfterTheWindow_trySetPermitsStartsAnother() throws Exception {
        String name = "tck:sem:rate";
        DistributedSemaphore s = client().getSemaphore(name);
        assertTrue(s.trySetPermits(2));
        assertTrue(s.expire(Duration.ofSeconds(30)));
        assertTrue(s.tryAcquire());
        assertTrue(s.tryAcquire());
        assertFalse(s.tryAcquire(), "the window's permits are used up");
        assertFalse(s.trySetPermits(2), "the window is still open");
        assertTrue(pttl(name) > 0, "taking permits kept the window's TTL");
        assertTrue(s.expire(Duration.ofMillis(50)), "the window ends soon (shortened, so no wait depends on it)");
        Await.until(SOON, () -> !s.isExists(), () -> "the window's key never expired: PTTL " + pttl(name));
        assertEquals(0, s.availablePermits(), "the permits are gone with the key");
        assertEquals(-2L, s.remainTimeToLive());
        assertTrue(s.trySetPermits(2), "a new window");
        assertEquals(-1L, s.remainTimeToLive(), "trySetPermits(n) sets no TTL of its own");
        assertTrue(s.expire(Duration.ofSeconds(30)));
        assertEquals(2, s.availablePermits());
        assertTrue(s.delete());
    }

    /**
     * Rule 24.13: {@code tryAcquireAsync(Duration)}, Redisson's async wait for one permit, waits
     * within its bound: woken by a release of another client, it answers true; with no permit
     * within a short bound, false, and it takes nothing.
     * When it fails: the overload must wait as {@code tryAcquireAsync(1, Duration)} does (one
     * permit, the same wait).
     */
    @Test
    void rule24_13_tryAcquireAsyncDuration_waitsForOnePermit() throws Exception {
        String name = "tck:sem:async-duration";
        LockClient waiting = client();
        DistributedSemaphore s = waiting.getSemaphore(name);
        assertTrue(s.trySetPermits(0));
        assertEquals(Boolean.FALSE, s.tryAcquireAsync(Duration.ofMillis(30)).get(30, TimeUnit.SECONDS));
        CompletableFuture<Boolean> waiter = s.tryAcquireAsync(SOON);
        awaitWaiting(waiting, 1);
        client().getSemaphore(name).release(2);
        assertEquals(Boolean.TRUE, waiter.get(30, TimeUnit.SECONDS));
        assertEquals(1, s.availablePermits(), "the waiter took one permit of the two");
        assertTrue(s.delete());
    }
}
