package io.github.relock.shedlock;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * {@link RelockLockProvider#withWatchdog()}: every rule of {@link RelockLockProviderTest} again, on
 * clients whose watchdog renews a lock every 333 ms (a 1 s watchdog timeout, a 500 ms command
 * timeout, so renewal stops 1.5 s before lockAtMostUntil and a longer lockAtMostFor is renewed),
 * and what the watchdog adds: a running job keeps its lock past the watchdog timeout, a stopped
 * instance frees it within that timeout, and lockAtMostFor stays a hard ceiling.
 */
class RelockLockProviderWatchdogTest extends RelockLockProviderTest {
    private static final Duration WATCHDOG = Duration.ofSeconds(1);
    /** Why rules whose lockAtMostFor is under 1.5 s are not run again here. */
    private static final String FIXED_LEASE = "its lockAtMostFor is within the renewal lead, so it takes the fixed "
            + "lease RelockLockProviderTest runs it on (aLockAtMostForWithinTheRenewalLead_getsAFixedLease)";

    @Override
    LockClient connect() {
        return watchdogClient(new CopyOnWriteArrayList<>());
    }

    @Override
    RelockLockProvider provider(LockClient client) {
        return new RelockLockProvider(client).withWatchdog();
    }

    /**
     * @return a client with a 1 s watchdog (renewal every 333 ms) and a 500 ms command timeout, so its
     *     watchdog providers stop renewing 1.5 s before lockAtMostUntil; its lock-lost listener adds to {@code lost}
     */
    private LockClient watchdogClient(List<LockLostEvent> lost) {
        LockClient client = RedisLocks.connect(server.uri().toString(), LockOptions.builder()
                .lockWatchdogTimeout(WATCHDOG).commandTimeout(Duration.ofMillis(500)).build());
        client.addLockLostListener(lost::add);
        return client;
    }

    @Override
    @Test
    @Disabled("a renewed lock's TTL is the watchdog timeout, not lockAtMostFor: "
            + "aJobRunningLongerThanTheWatchdogTimeout_keepsItsLockWhileRunning checks it")
    void lock_createsTheKeyWithLockAtMostForAsTtl_andUnlockDeletesIt() {
    }

    @Override
    @Test
    @Disabled(FIXED_LEASE)
    void lockAtMostFor_expiryFreesTheLockWithoutUnlock() {
    }

    @Override
    @Test
    @Disabled(FIXED_LEASE)
    void extendedLock_outlivesItsFirstLockAtMostFor_withoutALossReport() {
    }

    @Override
    @Test
    @Disabled(FIXED_LEASE)
    void unlockAfterExpiry_leavesTheNextHoldersLockAlone() {
    }

    @Override
    @Test
    @Disabled(FIXED_LEASE)
    void extend_afterExpiry_givesEmptyAndTakesNothing() {
    }

    @Test
    void aJobRunningLongerThanTheWatchdogTimeout_keepsItsLockWhileRunning() {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockClient client = watchdogClient(lost)) {
            SimpleLock lock = provider(client).lock(config(LONG, Duration.ZERO)).orElseThrow();
            long ttl = pttl();
            assertTrue(ttl > 0 && ttl <= WATCHDOG.toMillis(), "TTL is the watchdog timeout, not lockAtMostFor, was " + ttl);
            Await.holdsFor(WATCHDOG.plusMillis(200), () -> !lockable(providerB),
                    () -> "the running job's lock was taken by another instance after the watchdog timeout");
            assertTrue(lost.isEmpty(), "no loss while renewed: " + lost);
            lock.unlock();
            assertFalse(exists());
        }
    }

    @Test
    void anInstanceThatStops_freesTheLockWithinTheWatchdogTimeout_notAtLockAtMostFor() {
        LockClient client = watchdogClient(new CopyOnWriteArrayList<>());
        provider(client).lock(config(Duration.ofMinutes(10), Duration.ZERO)).orElseThrow();
        client.close(); // as a crashed instance: renewal stops, the lock is not deleted
        assertTrue(exists(), "close() does not delete the lock");
        long ttl = pttl();
        assertTrue(ttl > 0 && ttl <= WATCHDOG.toMillis(), "what is left is at most the watchdog timeout, was " + ttl);
        Await.until(DEADLINE, () -> lockable(providerB), () -> "the stopped instance's lock frees");
    }

    @Test
    void theLockIsGoneAtLockAtMostFor_evenIfTheJobNeverEnds() {
        LockConfiguration config = config(Duration.ofSeconds(2), Duration.ZERO); // renewal stops after 0.5 s
        Instant lockedAt = Instant.now();
        providerA.lock(config).orElseThrow(); // never unlocked
        Instant[] lastSeen = {lockedAt};
        Await.until(DEADLINE, () -> {
            Instant before = Instant.now();
            long ttl = pttl();
            if (ttl < 0) {
                return true;
            }
            // the key never lives past lockAtMostUntil (slack for the switch's own round trip)
            Instant expiry = before.plusMillis(ttl);
            assertFalse(expiry.isAfter(config.getLockAtMostUntil().plusMillis(250)),
                    "the key expires at " + expiry + ", past lockAtMostUntil " + config.getLockAtMostUntil());
            lastSeen[0] = before;
            return false;
        }, () -> "the lock of a job that never ends is gone at lockAtMostFor");
        assertTrue(Duration.between(lockedAt, lastSeen[0]).compareTo(WATCHDOG) > 0,
                "kept past the watchdog timeout, last seen after " + Duration.between(lockedAt, lastSeen[0]));
        assertTrue(lockable(providerB), "another instance takes it");
    }

    @Test
    void extend_givesTheNewLockAtMostFor_andTheOldCeilingNoLongerApplies() {
        // lockAtMostFor 2 s: without the extend, the TTL would be cut to end at it after 0.5 s
        SimpleLock lock = providerA.lock(config(Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
        Await.holdsFor(Duration.ofMillis(800), () -> pttl() > 15_000,
                () -> "the extended lock was cut back to its first lockAtMostFor, TTL " + pttl());
        extended.unlock();
        assertFalse(exists());
    }

    @Test
    void aLockAtMostForWithinTheRenewalLead_getsAFixedLease() {
        // 1.4 s is under watchdog timeout + command timeout (1.5 s): renewal could not help it
        SimpleLock lock = providerA.lock(config(Duration.ofMillis(1_400), Duration.ZERO)).orElseThrow();
        long ttl = pttl();
        assertTrue(ttl > WATCHDOG.toMillis() && ttl <= 1_400, "TTL is lockAtMostFor, was " + ttl);
        lock.unlock();
        assertFalse(exists());
    }
}
