package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Chapter 5: waiting and wake-up (spec 3, 5). Waiters are woken by the unlock message, survive a
 * lost message within the TTL bound, share one subscription per channel, and async waiters park
 * no thread.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("waiting")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class WaitingChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected WaitingChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 5.1: a waiter is woken by the unlock message, long before the 30 s watchdog TTL.
     * When it fails: the waiter woke only when the TTL ran out, so the unlock's message never
     * reached it: check that the driver delivers messages of a channel to that channel's listener,
     * and that the waiter listens on {@code redisson_lock__channel:{name}}.
     */
    @Test
    void rule5_1_waiter_wokenByUnlock_notByTtl() throws Exception {
        DistributedLock held = client().getLock("tck:wake");
        DistributedLock wanted = client().getLock("tck:wake");
        held.lock();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Long> waited = pool.submit(() -> {
                if (!wanted.tryLock(60, TimeUnit.SECONDS)) {
                    return -1L;
                }
                long at = System.nanoTime();
                wanted.unlock();
                return at;
            });
            Await.until(Duration.ofSeconds(10), () -> !channels().isEmpty(), () -> "waiter never subscribed");
            long unlockedAt = System.nanoTime();
            held.unlock();
            long acquiredAt = waited.get(60, TimeUnit.SECONDS);
            assertTrue(acquiredAt > 0, "waiter gave up");
            long ms = (acquiredAt - unlockedAt) / 1_000_000;
            assertTrue(ms < 10_000, "waiter took " + ms + " ms: woken by TTL (30 s), not by the message");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Rule 5.2: when no message comes (the lease simply expires), the waiter still gets the lock
     * within the TTL bound.
     * When it fails: without a message the waiter must try again when the TTL its attempt saw runs
     * out: look at how long the wait parks after an attempt that found the lock held.
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL,
            because = "engine: the TTL bound of a wait that hears no message")
    @Test
    void rule5_2_noMessage_leaseExpiry_waiterAcquiresWithinTtl() throws Exception {
        DistributedLock held = client().getLock("tck:expiry-wake");
        DistributedLock wanted = client().getLock("tck:expiry-wake");
        assertTrue(held.tryLock(0, 800, TimeUnit.MILLISECONDS));
        assertTrue(ReentrantLockChapter.otherThreadReturns(() -> {
            boolean ok = wanted.tryLock(30, TimeUnit.SECONDS);
            if (ok) {
                wanted.unlock();
            }
            return ok;
        }), "waiter did not acquire after the holder's lease expired");
    }

    /**
     * Rule 5.3: after the pub/sub connection is killed, the waiter re-subscribes and is woken
     * again.
     * When it fails: after {@code CLIENT KILL TYPE pubsub} the driver must reconnect, subscribe the
     * waiter's channel again and then call {@code onReconnect()}, on which core attempts again:
     * find which of the three is missing (rule 1.5.4 checks the driver alone).
     */
    @Test
    void rule5_3_pubsubKilled_waiterResubscribesAndIsWoken() throws Exception {
        DistributedLock held = client().getLock("tck:kill");
        DistributedLock wanted = client().getLock("tck:kill");
        held.lock();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> waited = pool.submit(() -> {
                boolean ok = wanted.tryLock(60, TimeUnit.SECONDS);
                if (ok) {
                    wanted.unlock();
                }
                return ok;
            });
            Await.until(Duration.ofSeconds(10), () -> !channels().isEmpty(), () -> "waiter never subscribed");
            redis("CLIENT", "KILL", "TYPE", "pubsub");
            Await.until(Duration.ofSeconds(20), () -> channels().contains("redisson_lock__channel:{tck:kill}"),
                    () -> "waiter's channel not subscribed again after the kill");
            held.unlock();
            assertTrue(waited.get(60, TimeUnit.SECONDS), "waiter never acquired after reconnect");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Rule 5.4: many waiters of one client on one lock share one subscription; all acquire in turn.
     * When it fails: one client subscribes a channel once and shares it among its waiters: a second
     * subscriber means the driver opened a connection per subscribe, or core does not count its
     * waiters per channel.
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL,
            because = "engine: core subscribes a channel once per client; rule 1.5.1 holds the driver to one "
            + "connection")
    @Test
    void rule5_4_manyWaiters_shareOneSubscription_allAcquire() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:shared");
        lock.lock();
        int n = 8;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                results.add(pool.submit(() -> {
                    boolean ok = lock.tryLock(60, TimeUnit.SECONDS);
                    if (ok) {
                        lock.unlock();
                    }
                    return ok;
                }));
            }
            Await.until(Duration.ofSeconds(10), () -> !channels().isEmpty(), () -> "waiters never subscribed");
            List<?> numsub = (List<?>) redis("PUBSUB", "NUMSUB", "redisson_lock__channel:{tck:shared}");
            assertEquals(1L, numsub.get(1), "waiters of one client must share one subscription");
            lock.unlock();
            for (Future<Boolean> f : results) {
                assertTrue(f.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Rule 5.5: 200 async waiters all acquire in turn, and waiting parks no thread per waiter.
     * When it fails: async waiting must not hold a thread per waiter: the driver's async calls must
     * run on a bounded set of threads (a cached or unbounded pool grows with the calls in flight),
     * and no wait in core may block one.
     */
    @Test
    void rule5_5_asyncWaiters_allAcquire_noThreadPerWaiter() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:async-wait");
        lock.lock();
        int before = Thread.activeCount();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            long owner = 50_000 + i;
            all.add(lock.lockAsync(owner).thenCompose(v -> lock.unlockAsync(owner)));
        }
        Await.until(Duration.ofSeconds(10), () -> !channels().isEmpty(), () -> "async waiters never subscribed");
        int during = Thread.activeCount();
        assertTrue(during - before < 50, "async waiting started " + (during - before) + " threads for 200 waiters");
        lock.unlock();
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        assertTrue(!lock.isLocked());
    }
}
