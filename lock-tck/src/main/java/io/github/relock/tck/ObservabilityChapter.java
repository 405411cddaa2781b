package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockClientStats;
import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.ReleaseOutcome;
import io.github.relock.tck.fixtures.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * Chapter 19: observability. A client's {@link LockEventListener} hears acquires (with the wait),
 * releases (with the hold time), losses (with the reason) and renewal batches; a throwing listener
 * never breaks locking; the same facts are JFR events ({@code relock.*}); and
 * {@link LockClient#stats()} counts the client's holds, waiters and wait channels as they come and go.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("observability")
public abstract class ObservabilityChapter extends TckChapter {

    private static final Duration WATCHDOG = Duration.ofMillis(600);
    /** For rules that expect NOT_HELD: the confirm deadline (nine tenths of it) outlasts a slow renewal. */
    private static final Duration LOSS_WATCHDOG = Duration.ofSeconds(4);

    /** @param kit the enclosing kit */
    protected ObservabilityChapter(DriverKit kit) {
        super(kit);
    }

    /** What a listener heard, one line per call. */
    static final class Heard implements LockEventListener {
        final List<String> acquired = new CopyOnWriteArrayList<>();
        final List<Duration> waits = new CopyOnWriteArrayList<>();
        final List<String> timedOut = new CopyOnWriteArrayList<>();
        final List<Duration> holds = new CopyOnWriteArrayList<>();
        final List<String> released = new CopyOnWriteArrayList<>();
        final List<LockLostEvent.Reason> lost = new CopyOnWriteArrayList<>();
        final List<int[]> renewals = new CopyOnWriteArrayList<>();

        @Override
        public void acquired(String lockName, Duration waited) {
            acquired.add(lockName);
            waits.add(waited);
        }

        @Override
        public void acquireTimedOut(String lockName, Duration waited) {
            timedOut.add(lockName);
        }

        @Override
        public void released(String lockName, Duration held) {
            released.add(lockName);
            holds.add(held);
        }

        @Override
        public void lost(String lockName, LockLostEvent.Reason reason) {
            lost.add(reason);
        }

        @Override
        public void renewalBatch(int renewed, int failed, Duration duration) {
            renewals.add(new int[] {renewed, failed});
        }
    }

    private LockClient client(LockEventListener listener) {
        return client(listener, WATCHDOG);
    }

    private LockClient client(LockEventListener listener, Duration watchdog) {
        return kit.newLockClient(LockOptions.builder().lockWatchdogTimeout(watchdog).eventListener(listener).build());
    }

    /**
     * Rule 19.1: an acquire that waited behind another holder reports its lock name and a wait
     * above zero.
     * When it fails: the acquire event must carry the lock's name and the time spent waiting: look
     * at where the event is made on the wait path that acquired.
     */
    @Test
    void rule19_1_acquireAfterContention_reportsWait() throws Exception {
        Heard heard = new Heard();
        LockClient holder = client();
        LockClient waiter = client(heard);
        DistributedLock held = holder.getLock("tck:obs:wait");
        held.lock();
        CompletableFuture<Boolean> got = tryLockOnAnotherThread(waiter.getLock("tck:obs:wait"), 10, true);
        Await.until(Duration.ofSeconds(5), () -> !channels().isEmpty(), () -> "the waiter never subscribed");
        held.unlock();
        assertTrue(got.get(15, TimeUnit.SECONDS));
        assertEquals(List.of("tck:obs:wait"), heard.acquired);
        assertTrue(heard.waits.get(0).toNanos() > 0, () -> "wait " + heard.waits.get(0));
    }

    /**
     * Rule 19.2: the last release reports the hold time; a timed-out acquire is reported as such.
     * When it fails: only the last release may report the hold time, and a timed-out acquire must
     * be reported as a timeout: look at the release and timeout events.
     */
    @Test
    void rule19_2_release_reportsHoldTime_andTimeoutReported() throws Exception {
        Heard heard = new Heard();
        LockClient c = client(heard);
        DistributedLock lock = c.getLock("tck:obs:hold");
        lock.lock();
        lock.lock();
        lock.unlock();
        assertEquals(List.of(), heard.released, "a reentrant unlock is not the release");
        lock.unlock();
        assertEquals(List.of("tck:obs:hold"), heard.released);
        assertFalse(heard.holds.get(0).isNegative(), () -> "hold " + heard.holds.get(0));
        tryLockWhileHeldElsewhere(lock);
        assertEquals(List.of("tck:obs:hold"), heard.timedOut);
    }

    /**
     * Rule 19.3: a hold whose key is deleted behind its back is reported lost with reason NOT_HELD.
     * When it fails: a renewal that answers "not held" must produce the lost event with {@code
     * NOT_HELD}.
     */
    @Test
    void rule19_3_keyDeletedBehindBack_lossReportedWithReason() throws Exception {
        Heard heard = new Heard();
        // A watchdog long enough that a renewal slowed by a loaded machine still answers (saying
        // "not held") before the confirm deadline would report RENEWAL_FAILED instead.
        LockClient c = client(heard, LOSS_WATCHDOG);
        LockLease lease = c.getLock("tck:obs:lost").acquire(Duration.ofSeconds(5));
        redis("DEL", "tck:obs:lost");
        Await.until(LOSS_WATCHDOG.multipliedBy(5), () -> !heard.lost.isEmpty(), () -> "loss not reported");
        assertEquals(LockLostEvent.Reason.NOT_HELD, heard.lost.get(0));
        assertEquals(ReleaseOutcome.ALREADY_EXPIRED, lease.releaseIfHeld());
    }

    /**
     * Rule 19.4: each watchdog renewal batch is reported with its renewed and failed counts.
     * When it fails: each renewal batch must be reported once, with its counts of renewed and
     * failed holds.
     */
    @Test
    void rule19_4_heldLock_renewalBatchesReported() {
        Heard heard = new Heard();
        LockClient c = client(heard);
        DistributedLock lock = c.getLock("tck:obs:renew");
        lock.lock();
        try {
            Await.until(WATCHDOG.multipliedBy(5), () -> heard.renewals.stream().anyMatch(r -> r[0] >= 1),
                    () -> "no renewal batch reported");
            assertEquals(0, heard.renewals.get(0)[1], "a held lock's renewal failed");
        } finally {
            lock.unlock();
        }
    }

    /**
     * Rule 19.5: a listener that throws from every callback does not break locking.
     * When it fails: listener calls must be guarded: an exception from a listener is logged and
     * swallowed, never seen by the lock's caller.
     */
    @Test
    void rule19_5_throwingListener_lockingUnaffected() throws Exception {
        LockEventListener thrower = new LockEventListener() {
            @Override
            public void acquired(String lockName, Duration waited) {
                fail(lockName);
            }

            @Override
            public void acquireTimedOut(String lockName, Duration waited) {
                fail(lockName);
            }

            @Override
            public void released(String lockName, Duration held) {
                fail(lockName);
            }

            private void fail(String lockName) {
                throw new IllegalStateException("listener fails on purpose for " + lockName);
            }
        };
        LockClient c = client(thrower);
        DistributedLock lock = c.getLock("tck:obs:throw");
        assertTrue(lock.tryLock(1, TimeUnit.SECONDS));
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        assertFalse(lock.isLocked());
        tryLockWhileHeldElsewhere(lock);
    }

    /**
     * Rule 19.6: an in-process JFR recording holds relock.LockAcquire, LockHold and Renewal events
     * with their fields.
     * When it fails: the {@code relock.*} JFR events must be enabled and committed with their
     * fields: check that the event classes are registered and that {@code jdk.jfr} is readable by
     * the engine's module.
     */
    @Test
    void rule19_6_jfrRecording_holdsRelockEvents() throws Exception {
        Heard heard = new Heard();
        Path file = Files.createTempFile("relock-tck", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("relock.LockAcquire");
            recording.enable("relock.LockHold");
            recording.enable("relock.Renewal");
            recording.enable("relock.LockLost");
            recording.start();
            LockClient c = client(heard);
            DistributedLock lock = c.getLock("tck:obs:jfr");
            lock.lock();
            Await.until(WATCHDOG.multipliedBy(5), () -> !heard.renewals.isEmpty(), () -> "no renewal");
            lock.unlock();
            recording.stop();
            recording.dump(file);
            List<RecordedEvent> events = RecordingFile.readAllEvents(file);
            RecordedEvent acquire = only(events, "relock.LockAcquire", "tck:obs:jfr");
            assertTrue(acquire.getBoolean("acquired"));
            assertTrue(acquire.getDuration("waited").toNanos() >= 0);
            RecordedEvent hold = only(events, "relock.LockHold", "tck:obs:jfr");
            assertTrue(hold.getDuration("held").toNanos() > 0);
            assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("relock.Renewal")
                    && e.getInt("batchSize") >= 1), "no relock.Renewal event");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Rule 19.7: {@code stats()} counts each held lock (a reentrant re-acquisition and a lease
     * included) and drops to 0 once every one is released. When it fails: the hold registry keeps a
     * released hold, or counts per acquisition instead of per lock and owner.
     */
    @Test
    void rule19_7_stats_countHeldLocks_zeroAfterUnlock() throws Exception {
        LockClient c = client();
        assertEquals(LockClientStats.IDLE, c.stats(), "a new client holds nothing");
        DistributedLock lock = c.getLock("tck:obs:stats-held");
        lock.lock();
        lock.lock();
        assertEquals(new LockClientStats(1, 0, 0), c.stats(), "one lock held twice by one thread is one hold");
        LockLease lease = c.getLock("tck:obs:stats-lease").acquire(Duration.ofSeconds(5), Duration.ofSeconds(30));
        assertEquals(2, c.stats().heldLocks(), "a lease with a fixed time is a hold");
        lock.unlock();
        assertEquals(2, c.stats().heldLocks(), "a reentrant unlock keeps the hold");
        lock.unlock();
        lease.close();
        assertEquals(LockClientStats.IDLE, c.stats(), "nothing held after every release");
    }

    /**
     * Rule 19.8: a call waiting for a lock held elsewhere, blocking (pub/sub) or async (spin lock,
     * no channel), counts as a waiter, and the pub/sub one as a subscription, while it waits; once
     * both got their locks and released them, waiters, subscriptions and holds are 0. When it fails:
     * a waiter is not counted on one of the wait paths, or not uncounted when it leaves.
     */
    @Test
    void rule19_8_stats_countWaitersWhileWaiting_notAfter() throws Exception {
        LockClient holder = client();
        LockClient c = client();
        DistributedLock busy = holder.getLock("tck:obs:stats-wait");
        DistributedLock busySpin = holder.getSpinLock("tck:obs:stats-spin");
        busy.lock();
        busySpin.lock();
        CompletableFuture<Boolean> blocking = tryLockOnAnotherThread(c.getLock("tck:obs:stats-wait"), 30, true);
        DistributedLock spin = c.getSpinLock("tck:obs:stats-spin");
        CompletableFuture<Boolean> async = spin.tryLockAsync(30, -1, TimeUnit.SECONDS, 42);
        Await.until(Duration.ofSeconds(5), () -> c.stats().equals(new LockClientStats(0, 2, 1)),
                () -> "two waiters on one channel expected, stats " + c.stats());
        assertEquals(new LockClientStats(2, 0, 0), holder.stats(), "the holder holds two locks and waits for nothing");
        busy.unlock();
        busySpin.unlock();
        assertTrue(blocking.get(15, TimeUnit.SECONDS));
        assertTrue(async.get(15, TimeUnit.SECONDS));
        assertEquals(1, c.stats().heldLocks(), "the async caller holds the spin lock: " + c.stats());
        spin.unlockAsync(42).get(15, TimeUnit.SECONDS);
        Await.until(Duration.ofSeconds(5), () -> c.stats().equals(LockClientStats.IDLE),
                () -> "nothing held or waited for after both waiters got their locks, stats " + c.stats());
        assertEquals(LockClientStats.IDLE, holder.stats());
    }

    /**
     * Rule 19.9: closing a client that holds a lock and has a waiter drops its held locks to 0 at
     * once, and its waiters and subscriptions to 0 as the failed waiter leaves. When it fails:
     * close() leaves a hold registered or a waiter joined.
     */
    @Test
    void rule19_9_close_statsDropToZero() throws Exception {
        LockClient holder = client();
        LockClient c = client();
        DistributedLock busy = holder.getLock("tck:obs:stats-close-busy");
        busy.lock();
        c.getLock("tck:obs:stats-close-held").lock();
        CompletableFuture<Boolean> waiting = tryLockOnAnotherThread(c.getLock("tck:obs:stats-close-busy"), 30, false);
        Await.until(Duration.ofSeconds(5), () -> c.stats().equals(new LockClientStats(1, 1, 1)),
                () -> "one hold, one waiter on one channel expected, stats " + c.stats());
        c.close();
        assertEquals(0, c.stats().heldLocks(), "close() ends every hold before it returns");
        ExecutionException failed = assertThrows(ExecutionException.class, () -> waiting.get(15, TimeUnit.SECONDS));
        assertTrue(failed.getCause() instanceof IllegalStateException, () -> "waiter failed with " + failed.getCause());
        Await.until(Duration.ofSeconds(5), () -> c.stats().equals(LockClientStats.IDLE),
                () -> "a closed client still counts " + c.stats());
        busy.unlock();
        redis("DEL", "tck:obs:stats-close-held"); // closing stopped its renewal; it would expire on its own
    }

    /**
     * Runs {@code lock.tryLock(waitSeconds)} on a pool thread (a blocking waiter).
     *
     * @param release whether the thread unlocks what it got before it returns
     * @return whether it got the lock
     */
    private static CompletableFuture<Boolean> tryLockOnAnotherThread(DistributedLock lock, long waitSeconds,
            boolean release) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                boolean ok = lock.tryLock(waitSeconds, TimeUnit.SECONDS);
                if (ok && release) {
                    lock.unlock();
                }
                return ok;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /** Another client holds {@code lock}'s name while {@code lock} tries for a short while, and fails. */
    private void tryLockWhileHeldElsewhere(DistributedLock lock) throws InterruptedException {
        DistributedLock busy = client().getLock(lock.getName());
        busy.lock();
        try {
            assertFalse(lock.tryLock(20, TimeUnit.MILLISECONDS));
        } finally {
            busy.unlock();
        }
    }

    private static RecordedEvent only(List<RecordedEvent> events, String type, String name) {
        List<RecordedEvent> found = events.stream()
                .filter(e -> e.getEventType().getName().equals(type) && name.equals(e.getString("name"))).toList();
        assertEquals(1, found.size(), () -> type + " events for " + name + ": " + found);
        return found.get(0);
    }
}
