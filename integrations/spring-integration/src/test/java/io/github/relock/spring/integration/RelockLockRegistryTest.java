package io.github.relock.spring.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/** {@link RelockLockRegistry} on a real Redis: two registries stand for two application instances. */
@Timeout(60)
class RelockLockRegistryTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final RedisServer server = RedisFixture.shared();
    private LockClient clientA;
    private LockClient clientB;
    private RelockLockRegistry registryA;
    private RelockLockRegistry registryB;
    private String key;

    @BeforeEach
    void setUp(TestInfo info) {
        clientA = connect(LockOptions.defaults());
        clientB = connect(LockOptions.defaults());
        registryA = new RelockLockRegistry(clientA, "test");
        registryB = new RelockLockRegistry(clientB, "test");
        key = info.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void tearDown() {
        clientA.close();
        clientB.close();
        server.call("DEL", "test:" + key);
    }

    private LockClient connect(LockOptions options) {
        return RedisLocks.connect(server.uri().toString(), options);
    }

    /** Runs {@code action} on a new thread and waits for it: the thread owns what it acquires. */
    private static <T> T onOtherThread(java.util.concurrent.Callable<T> action) throws Exception {
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicReference<T> result = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                result.set(action.call());
            } catch (Exception e) {
                failure.set(e);
            }
        });
        t.start();
        t.join(DEADLINE.toMillis());
        if (failure.get() != null) {
            throw failure.get();
        }
        return result.get();
    }

    @Test
    void lockKey_isRegistryKeyColonStringValueOfKey() {
        assertEquals("test:42", registryA.obtain(42).delegate().getName());
        RelockLock lock = registryA.obtain(key);
        lock.lock();
        try {
            assertEquals(1L, server.call("EXISTS", "test:" + key));
        } finally {
            lock.unlock();
        }
        assertEquals(0L, server.call("EXISTS", "test:" + key));
    }

    @Test
    void lockHeldByOneThread_isNotAcquirableByAnotherThreadOrAnotherRegistry() throws Exception {
        Lock a = registryA.obtain(key);
        a.lock();
        try {
            assertFalse(onOtherThread(() -> registryA.obtain(key).tryLock()), "another thread of the same client");
            assertFalse(onOtherThread(() -> registryB.obtain(key).tryLock()), "another client");
            assertFalse(registryB.obtain(key).tryLock(), "another client's thread with the same id is another owner");
        } finally {
            a.unlock();
        }
        assertAcquirableThrough(registryB);
        onOtherThread(() -> {
            assertAcquirableThrough(registryA);
            return null;
        });
    }

    @Test
    void owningThread_reentersAndReleasesAfterAsManyUnlocks() throws Exception {
        Lock first = registryA.obtain(key);
        Lock second = registryA.obtain(key);
        first.lock();
        assertTrue(second.tryLock(), "the owning thread re-enters through any lock object of the key");
        first.unlock();
        assertFalse(registryB.obtain(key).tryLock(), "one hold remains");
        second.unlock();
        assertAcquirableThrough(registryB);
    }

    @Test
    void tryLockWithTimeout_returnsFalseWhenHeldForTheWholeWait() throws Exception {
        Lock b = registryB.obtain(key);
        b.lock();
        try {
            assertFalse(registryA.obtain(key).tryLock(200, TimeUnit.MILLISECONDS));
            assertFalse(registryA.obtain(key).tryLock(0, TimeUnit.SECONDS), "zero wait makes one attempt");
            assertFalse(registryA.obtain(key).tryLock(-5, TimeUnit.SECONDS), "negative wait makes one attempt");
        } finally {
            b.unlock();
        }
    }

    @Test
    void tryLockWithTimeout_acquiresWhenReleasedDuringTheWait() throws Exception {
        Lock b = registryB.obtain(key);
        b.lock();
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(() -> {
            Lock a = registryA.obtain(key);
            waiting.countDown();
            try {
                boolean got = a.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                if (got) {
                    a.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(waiting.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
        b.unlock();
        assertTrue(acquired.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
    }

    @Test
    void unlockByThreadThatDoesNotHoldTheLock_isRefused() throws Exception {
        Lock a = registryA.obtain(key);
        a.lock();
        try {
            assertThrows(IllegalMonitorStateException.class, () -> onOtherThread(() -> {
                registryA.obtain(key).unlock();
                return null;
            }));
            assertThrows(IllegalMonitorStateException.class, () -> registryB.obtain(key).unlock());
            assertFalse(registryB.obtain(key).tryLock(), "the refused unlocks released nothing");
        } finally {
            a.unlock();
        }
        assertThrows(IllegalMonitorStateException.class, a::unlock, "a free lock cannot be unlocked");
    }

    @Test
    void lockInterruptibly_throwsWhenInterruptedBeforeOrWhileWaiting() throws Exception {
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> registryA.obtain(key).lockInterruptibly());
        assertFalse(Thread.currentThread().isInterrupted(), "the status is consumed by the exception");

        Lock b = registryB.obtain(key);
        b.lock();
        try {
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try {
                    registryA.obtain(key).lockInterruptibly();
                    outcome.set(new AssertionError("acquired a held lock"));
                } catch (InterruptedException e) {
                    outcome.set(e);
                }
            });
            waiter.start();
            Await.until(DEADLINE, () -> waiter.getState() == Thread.State.WAITING
                    || waiter.getState() == Thread.State.TIMED_WAITING, () -> "waiter parks");
            waiter.interrupt();
            waiter.join(DEADLINE.toMillis());
            assertTrue(outcome.get() instanceof InterruptedException, () -> "outcome: " + outcome.get());
        } finally {
            b.unlock();
        }
    }

    @Test
    void newCondition_isUnsupportedWithAMessage() {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> registryA.obtain(key).newCondition());
        assertTrue(e.getMessage().contains("test:" + key), e.getMessage());
    }

    @Test
    void renewLock_setsTheHoldersTtlAndKeepsTheHoldCount() throws Exception {
        RelockLockRegistry leased = new RelockLockRegistry(clientA, "test", Duration.ofSeconds(5), false);
        RelockLock lock = leased.obtain(key);
        lock.lock();
        try {
            long ttl = pttl();
            assertTrue(ttl > 0 && ttl <= 5_000, "lease TTL, was " + ttl);
            leased.renewLock(key, Duration.ofSeconds(60));
            ttl = pttl();
            assertTrue(ttl > 50_000 && ttl <= 60_000, "renewed TTL, was " + ttl);
            leased.renewLock(key);
            ttl = pttl();
            assertTrue(ttl > 0 && ttl <= 5_000, "renewed for the registry's lease, was " + ttl);
            assertEquals(1, lock.delegate().getHoldCount(), "renewal leaves one hold");
        } finally {
            lock.unlock();
        }
        assertEquals(0L, server.call("EXISTS", "test:" + key), "one unlock released it");
    }

    @Test
    void renewLock_ofWatchdogHold_extendsItForOneWatchdogTimeout() {
        RelockLock lock = registryA.obtain(key);
        lock.lock();
        try {
            registryA.renewLock(key, Duration.ofMillis(2_000));
            long ttl = pttl();
            assertTrue(ttl > 0 && ttl <= 2_000, "shortened, was " + ttl);
            registryA.renewLock(key);
            ttl = pttl();
            assertTrue(ttl > 2_000 && ttl <= LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT.toMillis(),
                    "watchdog timeout again, was " + ttl);
        } finally {
            lock.unlock();
        }
    }

    @Test
    void renewLock_byThreadThatDoesNotHoldTheLock_isRefused() throws Exception {
        assertThrows(IllegalStateException.class, () -> registryA.renewLock(key));
        Lock b = registryB.obtain(key);
        b.lock();
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> registryA.renewLock(key, Duration.ofSeconds(5)));
            assertTrue(e.getMessage().contains("test:" + key), e.getMessage());
            assertFalse(registryA.obtain(key).tryLock(), "the refused renewal acquired nothing");
        } finally {
            b.unlock();
        }
    }

    @Test
    void lockOfClosedClient_expiresWithinTheWatchdogTimeout() throws Exception {
        LockClient shortLived = connect(LockOptions.builder().lockWatchdogTimeout(Duration.ofSeconds(1)).build());
        RelockLockRegistry registry = new RelockLockRegistry(shortLived, "test");
        registry.obtain(key).lock();
        shortLived.close();
        Lock b = registryB.obtain(key);
        Await.until(DEADLINE, b::tryLock, () -> "the closed client's lock expires");
        b.unlock();
    }

    @Test
    void fairRegistry_excludesAcrossClientsAndTheReentrantLockOfTheSameName() throws Exception {
        RelockLockRegistry fairA = new RelockLockRegistry(clientA, "test", null, true);
        RelockLockRegistry fairB = new RelockLockRegistry(clientB, "test", null, true);
        Lock a = fairA.obtain(key);
        a.lock();
        try {
            assertFalse(fairB.obtain(key).tryLock(100, TimeUnit.MILLISECONDS));
            assertFalse(registryB.obtain(key).tryLock());
        } finally {
            a.unlock();
        }
        Lock b = fairB.obtain(key);
        assertTrue(b.tryLock(1, TimeUnit.SECONDS));
        b.unlock();
    }

    @Test
    void executeLocked_runsTheTaskUnderTheLock() throws Exception {
        boolean heldInside = registryA.executeLocked(key, () -> !registryB.obtain(key).tryLock());
        assertTrue(heldInside);
        assertEquals(0L, server.call("EXISTS", "test:" + key));
    }

    @Test
    void badInput_isRejectedWithWhatWasPassed() {
        assertThrows(NullPointerException.class, () -> registryA.obtain(null));
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
                () -> new RelockLockRegistry(clientA, " "));
        assertTrue(blank.getMessage().contains("' '"), blank.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new RelockLockRegistry(clientA, "test", Duration.ZERO, false));
        assertThrows(IllegalArgumentException.class, () -> registryA.renewLock(key, Duration.ofSeconds(-1)));
    }

    private void assertAcquirableThrough(RelockLockRegistry registry) {
        Lock lock = registry.obtain(key);
        assertTrue(lock.tryLock(), "the lock is free");
        lock.unlock();
    }

    private long pttl() {
        return (Long) server.call("PTTL", "test:" + key);
    }
}
