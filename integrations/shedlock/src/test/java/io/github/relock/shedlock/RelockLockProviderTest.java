package io.github.relock.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RelockLockProvider} on a real Redis: two providers on two clients stand for two application
 * instances. Covers what ShedLock's own provider test support checks, without fixed sleeps.
 * {@link RelockLockProviderWatchdogTest} runs it again on {@link RelockLockProvider#withWatchdog()}.
 */
@Timeout(60)
class RelockLockProviderTest {
    static final Duration DEADLINE = Duration.ofSeconds(10);
    static final Duration LONG = Duration.ofSeconds(30);

    final RedisServer server = RedisFixture.shared();
    String name; // the test's lock name
    private LockClient clientA;
    RelockLockProvider providerA; // instance A
    private LockClient clientB;
    RelockLockProvider providerB; // instance B

    /** @return a client standing for one application instance */
    LockClient connect() {
        return RedisLocks.connect(server.uri().toString());
    }

    /** @return the provider under test, on {@code client} */
    RelockLockProvider provider(LockClient client) {
        return new RelockLockProvider(client);
    }

    @BeforeEach
    void setUp(TestInfo info) {
        clientA = connect();
        clientB = connect();
        providerA = provider(clientA);
        providerB = provider(clientB);
        name = info.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void tearDown() {
        clientA.close();
        clientB.close();
        server.call("DEL", key());
    }

    String key() {
        return RelockLockProvider.DEFAULT_KEY_PREFIX + name;
    }

    LockConfiguration config(Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    long pttl() {
        return (Long) server.call("PTTL", key());
    }

    boolean exists() {
        return (Long) server.call("EXISTS", key()) == 1L;
    }

    /** @return a client whose watchdog ticks every 100 ms and whose lock-lost listener adds to {@code lost} */
    private LockClient clientTelling(List<LockLostEvent> lost) {
        LockClient client = RedisLocks.connect(server.uri().toString(),
                LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(300)).build());
        client.addLockLostListener(lost::add);
        return client;
    }

    /** One ShedLock attempt by {@code provider}; a lock it gets is given back at once. */
    boolean lockable(LockProvider provider) {
        Optional<SimpleLock> lock = provider.lock(config(LONG, Duration.ZERO));
        lock.ifPresent(SimpleLock::unlock);
        return lock.isPresent();
    }

    @Test
    void lock_createsTheKeyWithLockAtMostForAsTtl_andUnlockDeletesIt() {
        SimpleLock lock = providerA.lock(config(Duration.ofSeconds(20), Duration.ZERO)).orElseThrow();
        long ttl = pttl();
        assertTrue(ttl > 15_000 && ttl <= 20_000, "TTL is lockAtMostFor, was " + ttl);
        lock.unlock();
        assertFalse(exists());
    }

    @Test
    void lockHeldElsewhere_givesEmpty_evenToTheSameProviderAndThread() {
        SimpleLock lock = providerA.lock(config(LONG, Duration.ZERO)).orElseThrow();
        assertFalse(lockable(providerB), "another instance");
        assertFalse(lockable(providerA), "the same provider, on the same thread: ShedLock locks do not re-enter");
        lock.unlock();
        assertTrue(lockable(providerB));
    }

    @Test
    void locksOfDifferentNames_areIndependent() {
        SimpleLock first = providerA.lock(config(LONG, Duration.ZERO)).orElseThrow();
        SimpleLock second = providerB.lock(new LockConfiguration(ClockProvider.now(), name + "-other", LONG,
                Duration.ZERO)).orElseThrow();
        second.unlock();
        first.unlock();
        server.call("DEL", key() + "-other");
    }

    @Test
    void lock_canBeTakenAgainRightAfterUnlock() {
        for (int i = 0; i < 10; i++) {
            assertTrue(lockable(i % 2 == 0 ? providerA : providerB), "attempt " + i);
        }
    }

    @Test
    void lockAtMostFor_expiryFreesTheLockWithoutUnlock() {
        providerA.lock(config(Duration.ofMillis(500), Duration.ZERO)).orElseThrow();
        long ttl = pttl();
        assertTrue(ttl > 0 && ttl <= 500, "TTL is lockAtMostFor, was " + ttl);
        assertFalse(lockable(providerB));
        Await.until(DEADLINE, () -> lockable(providerB), () -> "the lock expires after lockAtMostFor");
    }

    @Test
    void unlockBeforeLockAtLeastFor_keepsTheLockUntilThen() {
        SimpleLock lock = providerA.lock(config(LONG, Duration.ofMillis(1_500))).orElseThrow();
        lock.unlock();
        long ttl = pttl();
        assertTrue(ttl > 0 && ttl <= 1_500, "TTL is the rest of lockAtLeastFor, was " + ttl);
        assertFalse(lockable(providerB), "kept for lockAtLeastFor");
        assertFalse(lockable(providerA), "kept for lockAtLeastFor, for the same provider too");
        Await.until(DEADLINE, () -> lockable(providerB), () -> "the lock is free after lockAtLeastFor");
    }

    @Test
    void lockKeptForLockAtLeastFor_expiresWithoutALossReport() {
        // The kept lock is no longer the application's: its expiry is no loss (LockLease.releaseAfter).
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockClient client = clientTelling(lost)) {
            provider(client).lock(config(LONG, Duration.ofMillis(300))).orElseThrow().unlock();
            Await.until(DEADLINE, () -> !exists(), () -> "the kept lock expires after lockAtLeastFor");
            Await.holdsFor(Duration.ofMillis(600), lost::isEmpty, () -> "the kept lock was reported lost: " + lost);
        }
    }

    @Test
    void extendedLock_outlivesItsFirstLockAtMostFor_withoutALossReport() {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockClient client = clientTelling(lost)) {
            SimpleLock lock = provider(client).lock(config(Duration.ofMillis(500), Duration.ZERO))
                    .orElseThrow();
            SimpleLock extended = lock.extend(Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
            Await.holdsFor(Duration.ofMillis(1_000), () -> lost.isEmpty() && exists(),
                    () -> "the extended lock ended at its first lockAtMostFor: " + lost);
            extended.unlock();
            assertFalse(exists());
        }
    }

    @Test
    void unlockAfterLockAtLeastFor_deletesTheLock() {
        LockConfiguration config = config(LONG, Duration.ofMillis(300));
        SimpleLock lock = providerA.lock(config).orElseThrow();
        Await.until(DEADLINE, () -> ClockProvider.now().isAfter(config.getLockAtLeastUntil()),
                () -> "lockAtLeastFor passes");
        assertFalse(lockable(providerB), "still held after lockAtLeastFor");
        lock.unlock();
        assertFalse(exists());
    }

    @Test
    void unlock_worksFromAnotherThread() throws Exception {
        SimpleLock lock = providerA.lock(config(LONG, Duration.ZERO)).orElseThrow();
        CompletableFuture.runAsync(lock::unlock).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        assertFalse(exists());
    }

    @Test
    void unlockAfterExpiry_leavesTheNextHoldersLockAlone() {
        SimpleLock expired = providerA.lock(config(Duration.ofMillis(200), Duration.ZERO)).orElseThrow();
        Await.until(DEADLINE, () -> !exists(), () -> "the first lock expires");
        SimpleLock next = providerB.lock(config(LONG, Duration.ZERO)).orElseThrow();
        expired.unlock();
        assertTrue(exists(), "the late unlock did not delete the next holder's lock");
        assertFalse(lockable(providerA));
        next.unlock();
    }

    @Test
    void extend_setsTheTtlToTheNewLockAtMostFor_andRetiresTheOldLock() {
        SimpleLock lock = providerA.lock(config(Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
        long ttl = pttl();
        assertTrue(ttl > 15_000 && ttl <= 20_000, "extended TTL, was " + ttl);
        assertThrows(IllegalStateException.class, lock::unlock, "the old lock is no longer valid");
        assertTrue(exists());
        extended.unlock();
        assertFalse(exists(), "one unlock of the extended lock releases it");
    }

    @Test
    void extend_afterExpiry_givesEmptyAndTakesNothing() {
        SimpleLock lock = providerA.lock(config(Duration.ofMillis(200), Duration.ZERO)).orElseThrow();
        Await.until(DEADLINE, () -> !exists(), () -> "the lock expires");
        assertTrue(lock.extend(LONG, Duration.ZERO).isEmpty());
        assertFalse(exists());
        SimpleLock next = providerB.lock(config(LONG, Duration.ZERO)).orElseThrow();
        SimpleLock again = providerA.lock(config(Duration.ofMillis(200), Duration.ZERO)).orElse(null);
        assertEquals(null, again, "held by the next holder");
        next.unlock();
    }

    @Test
    void lockingTaskExecutor_skipsTheTaskOnAnotherInstanceWhileHeld() {
        AtomicInteger runs = new AtomicInteger();
        DefaultLockingTaskExecutor executorA = new DefaultLockingTaskExecutor(providerA);
        DefaultLockingTaskExecutor executorB = new DefaultLockingTaskExecutor(providerB);
        executorA.executeWithLock((Runnable) () -> {
            runs.incrementAndGet();
            // another thread: ShedLock's executor runs a nested task of the same name on the same thread unlocked
            CompletableFuture.runAsync(() -> executorB.executeWithLock((Runnable) runs::incrementAndGet,
                    config(LONG, Duration.ZERO))).join();
        }, config(LONG, Duration.ZERO));
        assertEquals(1, runs.get(), "the second instance skipped the task");
        assertFalse(exists());
    }

    @Test
    void concurrentInstances_neverHoldTheLockTogether() throws Exception {
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger maxHolders = new AtomicInteger();
        AtomicInteger acquisitions = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            RelockLockProvider provider = w % 2 == 0 ? providerA : providerB;
            workers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 100; i++) {
                    Optional<SimpleLock> lock = provider.lock(config(LONG, Duration.ZERO));
                    if (lock.isPresent()) {
                        maxHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
                        acquisitions.incrementAndGet();
                        holders.decrementAndGet();
                        lock.get().unlock();
                    }
                }
            }));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(DEADLINE.toMillis() * 3,
                TimeUnit.MILLISECONDS);
        assertEquals(1, maxHolders.get(), "at most one holder at a time");
        assertTrue(acquisitions.get() > 0, "some attempts succeeded");
    }

    @Test
    void badInput_isRejectedWithWhatWasPassed() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new RelockLockProvider(clientA, null));
        assertTrue(e.getMessage().contains("keyPrefix"), e.getMessage());
        assertThrows(NullPointerException.class, () -> providerA.lock(null));
    }
}
