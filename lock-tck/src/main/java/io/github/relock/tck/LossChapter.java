package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockLostException;
import io.github.relock.api.ReleaseOutcome;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 30: losing a lock stops the work, and says so once. A lease lost while its work runs
 * (its key deleted, or taken by another owner, as a failover to a replica that never saw it or an
 * operator's force-unlock does) interrupts the work of {@link DistributedLock#withLock}, which then
 * fails with {@link LockLostException}; closing a lease whose loss was reported is quiet, and one
 * whose loss only the release finds throws {@code LockLostException}, never the generic
 * {@link IllegalMonitorStateException}; {@link LockLease#releaseIfHeld()} says what it found;
 * {@link LockLease#deadline()} never promises past what Redis keeps.
 *
 * <p>The loss is made through Redis itself, the way a driver carries it: the rules run on every
 * driver. The bound is the promise the engine makes: the holder hears of a loss the key showed at
 * its next renewal (a third of the watchdog timeout), and never later than the watchdog timeout.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("lock-loss")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL,
        because = "it checks the engine's loss handling, in lock-core; it runs on every driver because the loss travels through it")
public abstract class LossChapter extends TckChapter {
    /** Short, so that a renewal finds the loss within 200 ms; a renewal at a time is 2/3 of it from expiry. */
    private static final Duration WATCHDOG = Duration.ofMillis(600);
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    /** What a loaded machine may add to the timer's renewal and to waking the interrupted thread. */
    private static final Duration SCHEDULING = Duration.ofSeconds(2);

    /** @param kit the enclosing kit */
    protected LossChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 30.1: a lock deleted while {@code withLock}'s work runs interrupts the work before the
     * watchdog timeout has passed, and {@code withLock} fails with {@link LockLostException}
     * (reason {@code NOT_HELD}, the work's {@code InterruptedException} as its cause); the caller's
     * thread is not left interrupted.
     * When it fails: renewal did not find the key gone, {@code onLost} did not run, or
     * {@code withLock} did not interrupt the thread running the work (or let the work's
     * {@code InterruptedException}, or a plain {@code IllegalMonitorStateException} of the release,
     * escape instead).
     */
    @Test
    void rule30_1_lockDeletedMidWork_withLockInterruptsWorkAndFailsWithLockLost() throws Exception {
        SleepingWork work = SleepingWork.start(client(WATCHDOG).getLock("tck:loss-deleted"));
        work.lossAt.set(System.nanoTime());
        assertEquals(1L, redis("DEL", "tck:loss-deleted"));

        Throwable thrown = work.outcome.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);

        LockLostException lost = assertInstanceOf(LockLostException.class, thrown);
        assertEquals(LockLostEvent.Reason.NOT_HELD, lost.reason());
        assertEquals("tck:loss-deleted", lost.lockName());
        assertInstanceOf(InterruptedException.class, lost.getCause());
        work.assertInterruptedWithin(WATCHDOG);
    }

    /**
     * Rule 30.2: a lock force-unlocked and taken by another client while {@code withLock}'s work
     * runs interrupts the work and fails with {@link LockLostException}; the other client still
     * holds the lock afterwards (the lost holder's release did not take it away).
     * When it fails: renewal did not notice the other owner's field, or the lost holder's release
     * deleted a lock it no longer owned.
     */
    @Test
    void rule30_2_lockTakenByAnotherMidWork_withLockInterruptsWorkAndLeavesTheNewHolder() throws Exception {
        LockClient holder = client(WATCHDOG);
        LockClient other = client();
        SleepingWork work = SleepingWork.start(holder.getLock("tck:loss-taken"));
        DistributedLock taken = other.getLock("tck:loss-taken");
        // false only if the holder's 600 ms watchdog lease ran out first (a stalled, loaded machine):
        // the other client takes the lock either way, and the work must hear of it either way
        taken.forceUnlock();
        LockLease theirs = taken.acquire(Duration.ofSeconds(5));
        try {
            Throwable thrown = work.outcome.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);

            assertInstanceOf(LockLostException.class, thrown);
            assertTrue(theirs.isValid());
            assertTrue(taken.isHeldByThread(theirs.ownerId()), "the lost holder's release took the lock from its new owner");
        } finally {
            theirs.close();
        }
    }

    /**
     * Rule 30.3: closing a lease whose loss {@code onLost} reported returns quietly; closing a lease
     * whose lock was deleted before renewal noticed throws {@link LockLostException} naming the
     * lock, not the generic {@code IllegalMonitorStateException ... thread-id: -1}; a second
     * {@code close()} does nothing.
     * When it fails: {@code close()} threw for a loss its holder was already told of, or let the
     * release script's "not held" answer out as a plain {@code IllegalMonitorStateException}.
     */
    @Test
    void rule30_3_closeOfALostLease_quietWhenReportedLockLostWhenFoundByTheRelease() throws Exception {
        DistributedLock lock = client(WATCHDOG).getLock("tck:loss-close");
        LockLease reported = lock.acquire(Duration.ofSeconds(5));
        CountDownLatch told = new CountDownLatch(1);
        reported.onLost(e -> told.countDown());
        redis("DEL", "tck:loss-close");
        assertTrue(told.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS), "onLost was not told of the deleted lock");
        reported.close(); // quiet: its holder was told
        reported.close();

        // The default watchdog (30 s) renews every 10 s: the release finds the loss first.
        LockLease unnoticed = client().getLock("tck:loss-close").acquire(Duration.ofSeconds(5));
        redis("DEL", "tck:loss-close");
        LockLostException thrown = assertThrows(LockLostException.class, unnoticed::close);
        assertTrue(thrown.getMessage().contains("tck:loss-close"), thrown.getMessage());
        assertFalse(thrown.getMessage().contains("thread-id"), thrown.getMessage());
        unnoticed.close();
    }

    /**
     * Rule 30.4: {@link LockLease#releaseIfHeld()} says what it found, without throwing: a held
     * lease answers {@code RELEASED} (and the lock is free), a lease whose explicit lease ran out
     * answers {@code ALREADY_EXPIRED}, a lease whose lock another owner took answers
     * {@code HELD_BY_ANOTHER} (and leaves that owner's lock alone); asking again answers the same.
     * When it fails: the outcome is mapped from the release script's answer wrongly (free versus
     * held by another), or a lost lease's release threw.
     */
    @Test
    void rule30_4_releaseIfHeld_answersReleasedAlreadyExpiredOrHeldByAnother() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:loss-outcome");
        LockLease held = lock.acquire(Duration.ofSeconds(5));
        assertEquals(ReleaseOutcome.RELEASED, held.releaseIfHeld());
        assertFalse(lock.isLocked());

        LockLease expired = lock.acquire(Duration.ofSeconds(5), Duration.ofMillis(100));
        Await.until(DEADLINE, () -> pttl("tck:loss-outcome") == -2, () -> "the 100 ms lease did not expire");
        assertEquals(ReleaseOutcome.ALREADY_EXPIRED, expired.releaseIfHeld());
        assertEquals(ReleaseOutcome.ALREADY_EXPIRED, expired.releaseIfHeld());

        LockLease lost = lock.acquire(Duration.ofSeconds(5));
        DistributedLock theirs = client().getLock("tck:loss-outcome");
        assertTrue(theirs.forceUnlock());
        LockLease other = theirs.acquire(Duration.ofSeconds(5));
        try {
            assertEquals(ReleaseOutcome.HELD_BY_ANOTHER, lost.releaseIfHeldAsync().join());
        } finally {
            other.close();
        }
    }

    /**
     * Rule 30.5: {@link LockLease#deadline()} is the acquisition's send time plus the lease (or the
     * watchdog timeout), so Redis keeps the key at least until then; a renewal moves it forward; a
     * lost lease's deadline is not after now.
     * When it fails: the deadline is taken from the reply's arrival (after Redis started the TTL),
     * is not moved by renewals, or still promises time after a loss.
     */
    @Test
    void rule30_5_deadline_neverAfterWhatRedisKeeps_movedByRenewal_pastOnceLost() throws Exception {
        DistributedLock lock = client(WATCHDOG).getLock("tck:loss-deadline");
        Instant before = Instant.now();
        LockLease lease = lock.acquire(Duration.ofSeconds(5));
        Instant after = Instant.now();
        Instant first = lease.deadline();
        long slackMs = 20; // the monotonic-to-wall conversion of two readings
        assertTrue(!first.isBefore(before.plus(WATCHDOG).minusMillis(slackMs))
                && !first.isAfter(after.plus(WATCHDOG).plusMillis(slackMs)),
                "deadline " + first + " is not the acquisition's time plus the watchdog timeout ("
                        + before + " .. " + after + " + " + WATCHDOG + ")");
        long pttl = pttl("tck:loss-deadline");
        Instant keptUntil = Instant.now().plusMillis(pttl);
        assertFalse(first.isAfter(keptUntil.plusMillis(slackMs)),
                "deadline " + first + " is after Redis's expiry of the key " + keptUntil);
        Await.until(DEADLINE, () -> lease.deadline().isAfter(first.plusMillis(WATCHDOG.toMillis() / 6)),
                () -> "the deadline did not move forward with a renewal: " + lease.deadline());

        redis("DEL", "tck:loss-deadline");
        Await.until(DEADLINE, () -> !lease.isValid(), () -> "the deleted lock's lease is still valid");
        assertFalse(lease.deadline().isAfter(Instant.now()), "a lost lease's deadline is in the future");
        lease.close();
    }

    /**
     * Rule 30.6: the README's lease pattern ({@code try (LockLease lease = lock.acquire(...)) {
     * lease.onLost(e -> cancel()); work(); }}), run with the lock deleted mid-work, ends without
     * an exception: {@code onLost} cancels the work, and the closing brace is quiet.
     * When it fails: the work was not cancelled (no {@code onLost}), or {@code close()} threw for
     * a loss its holder was told of.
     */
    @Test
    void rule30_6_readmeLeasePattern_lockDeletedMidWork_endsWithoutException() throws Exception {
        DistributedLock lock = client(WATCHDOG).getLock("tck:loss-readme");
        AtomicBoolean cancelled = new AtomicBoolean();
        CountDownLatch working = new CountDownLatch(1);
        CompletableFuture<Integer> done = CompletableFuture.supplyAsync(() -> {
            int steps = 0;
            try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
                lease.onLost(e -> cancelled.set(true));
                working.countDown();
                long end = System.nanoTime() + DEADLINE.toNanos();
                while (!cancelled.get() && System.nanoTime() - end < 0) {
                    steps++; // a unit of work, then check for cancellation
                    Thread.onSpinWait();
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return steps;
        }, LossChapter::newThread);
        assertTrue(working.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS), "the work did not start");
        redis("DEL", "tck:loss-readme");

        done.get(DEADLINE.toMillis() * 2, TimeUnit.MILLISECONDS); // throws if the pattern threw

        assertTrue(cancelled.get(), "onLost did not cancel the work; it ran to its own end");
    }

    /**
     * Rule 30.7: the holder's connections killed ({@code CLIENT KILL}, on every node its client
     * reached: a cluster client's are spread over the nodes) and its lock deleted (on its master)
     * while {@code withLock}'s work runs, as a failover to a replica that never saw the lock does: the
     * work is interrupted within the watchdog timeout of the kill and {@code withLock} fails with
     * {@link LockLostException}; the client works again afterwards.
     * When it fails: a renewal whose connection broke was neither retried on a new connection
     * (which finds the key gone, {@code NOT_HELD}) nor reported lost when its confirmation deadline
     * passed ({@code RENEWAL_FAILED}); or the driver did not reconnect.
     */
    @Test
    void rule30_7_holdersConnectionsKilledAndLockGone_withLockInterruptsWorkAndFailsWithLockLost() throws Exception {
        Duration watchdog = Duration.ofMillis(1500); // a renewal every 500 ms; RENEWAL_FAILED 1350 ms after the last
        Map<RedisServer, Set<String>> before = connectionIds();
        LockClient holder = client(watchdog);
        DistributedLock lock = holder.getLock("tck:loss-killed");
        SleepingWork work = SleepingWork.start(lock);
        Map<RedisServer, Set<String>> holders = connectionsOpenedSince(before); // on every node it reached
        assertTrue(reachesTheNodeOf(holders, "tck:loss-killed"), "no connection of the holder's client found on the"
                + " lock's node; found " + holders);
        work.lossAt.set(System.nanoTime());
        redis("DEL", "tck:loss-killed"); // on the key's master
        killConnections(holders);

        Throwable thrown = work.outcome.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);

        assertInstanceOf(LockLostException.class, thrown);
        work.assertInterruptedWithin(watchdog);
        LockLease again = lock.acquire(DEADLINE); // the driver reconnected
        again.close();
    }

    /**
     * {@code withLock} on a worker thread of its own, whose work sleeps until interrupted: records
     * how long after {@link #lossAt} (set by the rule when it causes the loss) the interrupt came,
     * and what {@code withLock} threw (null if it returned; an error if the thread was left
     * interrupted).
     */
    private static final class SleepingWork {
        final AtomicReference<Long> lossAt = new AtomicReference<>();
        final AtomicReference<Long> interruptedAfter = new AtomicReference<>();
        final CountDownLatch working = new CountDownLatch(1);
        CompletableFuture<Throwable> outcome;

        static SleepingWork start(DistributedLock lock) throws InterruptedException {
            SleepingWork w = new SleepingWork();
            w.outcome = CompletableFuture.supplyAsync(() -> {
                try {
                    lock.withLock(Duration.ofSeconds(5), lease -> {
                        w.working.countDown();
                        try {
                            Thread.sleep(DEADLINE.toMillis());
                        } catch (InterruptedException e) {
                            Long at = w.lossAt.get();
                            w.interruptedAfter.set(at == null ? -1 : System.nanoTime() - at);
                            throw e;
                        }
                        return null;
                    });
                    return null;
                } catch (Throwable t) {
                    return Thread.currentThread().isInterrupted() ? new AssertionError("left interrupted", t) : t;
                }
            }, LossChapter::newThread);
            assertTrue(w.working.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS), "withLock did not start the work");
            return w;
        }

        /**
         * The work was interrupted within {@code bound} of the loss, give or take
         * {@link #SCHEDULING}: the renewal that finds the loss runs on the client's timer, and the
         * interrupted thread must be scheduled, both of which a loaded machine delays by more than
         * a short watchdog's renewal period. A work never interrupted, or only when it ended on its
         * own ({@link #DEADLINE}), still fails.
         */
        void assertInterruptedWithin(Duration bound) {
            Long after = interruptedAfter.get();
            Duration allowed = bound.plus(SCHEDULING);
            assertTrue(after != null && after >= 0 && after < allowed.toNanos(), "the work was interrupted "
                    + (after == null ? "never" : TimeUnit.NANOSECONDS.toMillis(after) + " ms after the loss")
                    + ": not within " + bound + " (plus " + SCHEDULING + " for the machine's scheduling)");
        }
    }

    /** Runs {@code work} on a thread of its own, as an application's worker. */
    private static void newThread(Runnable work) {
        Thread t = new Thread(work, "tck-loss-work");
        t.setDaemon(true);
        t.start();
    }
}
