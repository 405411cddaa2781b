package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedSemaphore;
import io.github.relock.api.LockClient;
import java.time.Duration;
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
}
