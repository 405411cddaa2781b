package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 33: cohort hand-off ({@code LockOptions.cohort}, {@code -Drelock.cohort}). While a client
 * holds a reentrant lock in Redis and another owner of the same client waits for it, an unlock
 * passes the hold to that owner with no Redis call, within a bound, and only in a run that a
 * transfer in Redis started (its script found no other client's waiter). Redis keeps showing the
 * field of the owner that took the lock from Redis (the run's anchor); the client answers for the
 * owner holding it now: hold counts, {@code isHeldByThread}, renewal, losses, {@code close()}.
 * A run starts with a local hand-off, which is off where lock writes wait for replicas (the
 * default on the Sentinel and cluster fixtures), so this chapter's clients turn that wait off
 * ({@code noReplicaSync()}).
 *
 * <p>The rules drive each owner from a thread of its own ({@link Owner}) and see a waiter ready
 * for a pass by its park blocker (a {@code WaitingForLock} with its offer armed), so the order of
 * events is deterministic.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("cohort")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "engine: a cohort pass sends no command; chapters 20 and 4 require the rest")
public abstract class CohortChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected CohortChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * @return options with cohort hand-off on and {@code watchdog}; runs bounded by passes only (a
     *     minute's time bound), so a rule's steps never outlast a run
     */
    static LockOptions cohortOptions(Duration watchdog) {
        return LockOptions.builder().noReplicaSync().cohort(LockOptions.DEFAULT_COHORT_MAX_PASSES, Duration.ofMinutes(1))
                .lockWatchdogTimeout(watchdog).build();
    }

    /** @return options with cohort hand-off on at its default bounds */
    static LockOptions defaultCohort() {
        return LockOptions.builder().noReplicaSync().cohort().build();
    }

    /** One lock owner: a thread of its own that runs what the rule asks, one call at a time. */
    static final class Owner implements AutoCloseable {
        private final ExecutorService thread;
        private final Thread t;

        Owner(String name) throws Exception {
            AtomicReference<Thread> made = new AtomicReference<>();
            thread = Executors.newSingleThreadExecutor(r -> {
                Thread x = new Thread(r, name);
                x.setDaemon(true);
                made.set(x);
                return x;
            });
            thread.submit(() -> null).get(30, TimeUnit.SECONDS);
            t = made.get();
        }

        long id() {
            return t.getId();
        }

        <T> Future<T> start(Callable<T> call) {
            return thread.submit(call);
        }

        <T> T run(Callable<T> call) throws Exception {
            return thread.submit(call).get(30, TimeUnit.SECONDS);
        }

        /** Waits until this owner is parked waiting for a hand-off (its offer armed). */
        void awaitParked() {
            Await.until(Duration.ofSeconds(20), () -> LocalHandoffChapter.parkedForHandoff(t),
                    () -> t.getName() + " never parked for a hand-off; it is at " + Arrays.toString(t.getStackTrace()));
        }

        @Override
        public void close() {
            thread.shutdownNow();
        }
    }

    private String field(LockClient client, long ownerId) {
        return client.clientId() + ":" + ownerId;
    }

    /**
     * Starts a run: the main thread holds {@code lock}, {@code anchor} waits, the unlock transfers
     * the lock to it in Redis (a run anchored at it starts), then {@code next} waits behind it.
     */
    static Future<Object> startRun(DistributedLock lock, Owner anchor, Owner next) throws Exception {
        lock.lock();
        Future<Object> a = anchor.start(() -> {
            lock.lock();
            return null;
        });
        anchor.awaitParked();
        lock.unlock();
        a.get(30, TimeUnit.SECONDS);
        Future<Object> n = next.start(() -> {
            lock.lock();
            return null;
        });
        next.awaitParked();
        return n;
    }

    /**
     * Rule 33.1: a cohort pass makes the waiter the owner with no Redis call, and every answer
     * about the hold is the current owner's: Redis still names the run's anchor (count 1), the new
     * owner holds it once ({@code getHoldCount}, {@code isHeldByThread}), the anchor holds nothing
     * and cannot re-enter, the new owner's re-entry counts in Redis, and its last unlock frees the
     * lock.
     * When it fails: a pass must move the hold in the registry only (HoldRegistry.pass) and every
     * Redis call of the new holder must use the anchor's field (Hold.redisField); an anchor that
     * re-entered means its attempt reached Redis during the run (Cohort.lent).
     */
    @Test
    void rule33_1_pass_noRedisCall_holdCountsAndOwnershipExact() throws Exception {
        LockClient client = kit.newLockClient(cohortOptions(LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT));
        String name = "tck:cohort:exact";
        DistributedLock lock = client.getLock(name);
        try (Owner a = new Owner("tck-cohort-anchor"); Owner c = new Owner("tck-cohort-next")) {
            Future<Object> cGot = startRun(lock, a, c);
            assertEquals(Map.of(field(client, a.id()), "1"), hashOf(name), "the transfer in Redis names the anchor");
            long scripts = scriptCallsServed();
            a.run(() -> {
                lock.unlock();
                return null;
            });
            cGot.get(30, TimeUnit.SECONDS);
            assertEquals(0, scriptCallsServed() - scripts, "a cohort pass sends no script");
            assertEquals(Map.of(field(client, a.id()), "1"), hashOf(name), "during a run Redis names the anchor");
            assertTrue(lock.isHeldByThread(c.id()), "the owner the lock was passed to holds it");
            assertFalse(lock.isHeldByThread(a.id()), "the anchor passed the lock on: it holds nothing");
            assertEquals(1, c.run(lock::getHoldCount));
            assertEquals(0, a.run(lock::getHoldCount));
            assertFalse(a.run(() -> lock.tryLock()), "the anchor must not re-enter a lock it passed on");
            c.run(() -> {
                lock.lock();
                return null;
            });
            assertEquals(2, c.run(lock::getHoldCount));
            assertEquals(Map.of(field(client, a.id()), "2"), hashOf(name), "the holder's re-entry counts in Redis");
            c.run(() -> {
                lock.unlock();
                return null;
            });
            assertEquals(1, c.run(lock::getHoldCount));
            assertTrue(c.run(lock::isHeldByCurrentThread));
            c.run(() -> {
                lock.unlock();
                return null;
            });
            assertFalse(lock.isLocked(), "the last unlock of the run's last owner frees the lock");
            assertTrue(a.run(() -> lock.tryLock()), "the anchor takes the lock again once the run is over");
            a.run(() -> {
                lock.unlock();
                return null;
            });
        }
        assertEquals(List.of(), client.heldLocks());
    }

    /**
     * Rule 33.2: exclusion holds while threads of two cohort clients loop on one lock (a counter
     * read and written in Redis under the lock loses no update), and nothing is held afterwards.
     * When it fails: two owners overlapped: look at passes racing an unlock in Redis (the run
     * must end when its hold leaves Redis) and at the anchor's attempts during a run.
     */
    @Test
    void rule33_2_twoClientsManyThreads_exclusionHolds() throws Exception {
        LockClient a = kit.newLockClient(defaultCohort());
        LockClient b = kit.newLockClient(defaultCohort());
        String name = "tck:cohort:exclusion";
        List<DistributedLock> workers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            workers.add(a.getLock(name));
            workers.add(b.getLock(name));
        }
        int rounds = loopSize(40, 400);
        assertEquals(8L * rounds, incrementUnderLocks(workers, rounds, "tck:cohort:counter"), "lost updates");
        assertFalse(a.getLock(name).isLocked());
        assertEquals(List.of(), a.heldLocks());
        assertEquals(List.of(), b.heldLocks());
    }

    /**
     * Rule 33.3: a loss during a run reaches the owner holding the lock now: the key deleted while
     * a lease passed within the cohort holds it, the renewal (under the anchor's field) finds it
     * gone and that lease's onLost hears it; the lease that passed it on hears nothing.
     * When it fails: a cohort hold must be renewed under the anchor's field and reported to its
     * own owner; a loss that reached the anchor's lease was reported to the wrong hold.
     */
    @Test
    void rule33_3_lossDuringRun_reachesTheCurrentOwner() throws Exception {
        LockClient client = kit.newLockClient(cohortOptions(Duration.ofMillis(1500)));
        String name = "tck:cohort:loss";
        DistributedLock lock = client.getLock(name);
        try (Owner a = new Owner("tck-cohort-loss-anchor"); Owner c = new Owner("tck-cohort-loss-next")) {
            LockLease first = lock.acquire();
            Future<LockLease> anchor = a.start(lock::acquire);
            a.awaitParked();
            first.close();
            LockLease anchorLease = anchor.get(30, TimeUnit.SECONDS);
            Future<LockLease> next = c.start(lock::acquire);
            c.awaitParked();
            CompletableFuture<LockLostEvent> anchorLost = new CompletableFuture<>();
            anchorLease.onLost(anchorLost::complete);
            anchorLease.close(); // passed within the cohort
            LockLease holder = next.get(30, TimeUnit.SECONDS);
            assertTrue(holder.isValid());
            CompletableFuture<LockLostEvent> lost = new CompletableFuture<>();
            holder.onLost(lost::complete);
            redis("DEL", name);
            LockLostEvent e = lost.get(20, TimeUnit.SECONDS);
            assertEquals(LockLostEvent.Reason.NOT_HELD, e.reason());
            assertFalse(holder.isValid());
            assertFalse(anchorLost.isDone(), "the lease that passed the lock on was told of a loss");
            assertTrue(a.run(() -> lock.tryLock(20, TimeUnit.SECONDS)), "after the loss the anchor takes the lock from Redis");
            assertEquals(Map.of(field(client, a.id()), "1"), hashOf(name));
            a.run(() -> {
                lock.unlock();
                return null;
            });
        }
    }

    /**
     * Rule 33.4: another relock client's waiter is granted the lock within a bounded time, again
     * and again, while three threads of a cohort client loop on it (every unlock could pass).
     * When it fails: runs must end within their bound (passes and time) with an unlock in Redis
     * that reads the outsider signal again.
     */
    @Test
    void rule33_4_outsideRelockClient_grantedWhileRunsGoOn() throws Exception {
        LockClient local = kit.newLockClient(LockOptions.builder().noReplicaSync().cohort(8, Duration.ofMillis(5)).build());
        LockClient outside = client();
        LocalHandoffChapter.assertOutsiderProgresses(local.getLock("tck:cohort:outsider"),
                outside.getLock("tck:cohort:outsider"));
    }

    /**
     * Rule 33.5: {@code close()} during a run leaves no hold: the owner holding the lock by a
     * pass hears CLIENT_CLOSED, the client lists no held lock, and the key is left to expire
     * within the watchdog timeout (it is no longer renewed), as for any hold at close().
     * When it fails: a cohort hold must be in the registry like any other, so close() reports it.
     */
    @Test
    void rule33_5_closeDuringRun_leavesNoHold() throws Exception {
        LockClient client = kit.newLockClient(cohortOptions(Duration.ofMillis(1500)));
        String name = "tck:cohort:close";
        DistributedLock lock = client.getLock(name);
        try (Owner a = new Owner("tck-cohort-close-anchor"); Owner c = new Owner("tck-cohort-close-next")) {
            Future<Object> cGot = startRun(lock, a, c);
            a.run(() -> {
                lock.unlock();
                return null;
            });
            cGot.get(30, TimeUnit.SECONDS);
            CompletableFuture<LockLostEvent> closed = new CompletableFuture<>();
            client.addLockLostListener(e -> {
                if (e.reason() == LockLostEvent.Reason.CLIENT_CLOSED) {
                    closed.complete(e);
                }
            });
            client.close();
            LockLostEvent e = closed.get(20, TimeUnit.SECONDS);
            assertEquals(field(client, c.id()), e.ownerId(), "the loss goes to the owner holding it now");
            assertEquals(List.of(), client.heldLocks());
        }
        long ttl = pttl(name);
        assertTrue(ttl > 0 && ttl <= 1500, "the key is left to expire within the watchdog timeout, as for any hold"
                + " at close(); PTTL was " + ttl);
        redis("DEL", name);
        // The owner that took the pass had registered its client among the lock's waiting clients
        // (directed wake-ups) when its attempt failed; a pass sends nothing, so the registration
        // stays until the client's next release in Redis, or expires a minute after the lock would.
        String waiters = "relock__waiters:{" + name + "}";
        long waitersTtl = (Long) redis("PTTL", waiters);
        assertTrue(waitersTtl == -2 || (waitersTtl > 0 && waitersTtl <= 1500 + 60_000),
                "the waiting clients' key expires with the lock; PTTL was " + waitersTtl);
        redis("DEL", waiters);
    }

    /**
     * Rule 33.6: a reentrant lock with cohorts on, contended by three threads of one client and
     * one thread of another, never sits free while one of them waits, and every thread gets it
     * (chapter 21's monitor and bound, one soak).
     * When it fails: a waiter slept while the lock was free: an anchor polling while its run is
     * over, or a pass to a waiter that had left.
     */
    @Test
    void rule33_6_liveness_withCohortsOn() throws Exception {
        LivenessChapter live = new LivenessChapter(kit) {
        };
        String name = "tck:cohort:live";
        LockClient a = kit.newLockClient(defaultCohort());
        LockClient b = kit.newLockClient(defaultCohort());
        LivenessChapter.Exclusion ex = new LivenessChapter.Exclusion();
        LivenessChapter.Soak soak = live.new Soak();
        var w = soak.watch(name, LivenessChapter.channel(name));
        for (int i = 0; i < 3; i++) {
            soak.thread("a" + i, w, a.getLock(name), ex, false); // three threads of one client: runs of passes
        }
        soak.thread("b0", w, b.getLock(name), ex, false); // and an outsider, which ends them
        soak.run(LivenessChapter.SOAK, ex);
    }

    /**
     * Rule 33.7: hold counts stay exact across many passes: threads of one cohort client each
     * take the lock twice (re-entering), see a hold count of 2, and release it; afterwards nothing
     * is held and the key is gone.
     * When it fails: a pass moved a hold with more than one count, or a re-entry by a cohort
     * holder did not reach the anchor's count in Redis.
     */
    @Test
    void rule33_7_holdCountsExact_acrossManyPasses() throws Exception {
        LockClient client = kit.newLockClient(defaultCohort());
        String name = "tck:cohort:counts";
        AtomicInteger wrong = new AtomicInteger();
        AtomicInteger passes = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            int rounds = loopSize(30, 300);
            for (int i = 0; i < 4; i++) {
                DistributedLock lock = client.getLock(name);
                done.add(pool.submit(() -> {
                    for (int r = 0; r < rounds; r++) {
                        lock.lock();
                        try {
                            if (lock.getHoldCount() != 1) {
                                wrong.incrementAndGet();
                            }
                            lock.lock();
                            try {
                                if (lock.getHoldCount() != 2 || !lock.isHeldByCurrentThread()) {
                                    wrong.incrementAndGet();
                                }
                            } finally {
                                lock.unlock();
                            }
                            passes.incrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, wrong.get(), "hold counts seen by holders that were wrong");
        assertFalse(client.getLock(name).isLocked());
        assertEquals(List.of(), client.heldLocks());
        assertTrue(passes.get() > 0);
    }
}
