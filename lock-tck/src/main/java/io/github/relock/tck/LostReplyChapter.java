package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.api.WaitingForLock;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 22: lost replies. A script that ran on Redis but whose reply never reached the client
 * (a timeout, a reset connection, an interrupted Spring connection factory) leaves the engine
 * unsure what happened. Each rule makes the {@link FaultInjectingDriver} run a script and then fail
 * the call ({@code failAfterRun}), and checks that the engine resolved the outcome from Redis
 * rather than by trying again blind: local and Redis hold counts agree, the lock is free as soon
 * as its holder's last {@code unlock()} returns, and another client gets it within
 * {@link #PROMPT}. Each rule records a {@link History} and appends its totals to the fault report
 * ({@code docs/FAULTS.md}): "fault → next grant" is the lost reply to the next grant, "heal →
 * next grant" the holder's matching {@code unlock()} to the other client's grant.
 *
 * <p>When a rule fails with a hold count of 2, or with the other client waiting out a whole lease:
 * the engine treated an attempt after a lost reply as a fresh acquisition (Redis counted a
 * re-entry the caller never made), or re-armed a waiter whose transfer had in fact landed.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("faults")
@Tag("lost-reply")
public abstract class LostReplyChapter extends TckChapter {
    /** How soon after the matching unlock another client must get the lock. */
    static final Duration PROMPT = Duration.ofSeconds(1);
    private static final Duration DEADLINE = Duration.ofSeconds(40);

    /** The faults of this rule's faulty clients. */
    protected final Faults faults = new Faults();

    /** @param kit the enclosing kit */
    protected LostReplyChapter(DriverKit kit) {
        super(kit);
    }

    @AfterEach
    void clearFaults() {
        faults.clear();
    }

    /**
     * The hand-off rules' options: replica acknowledgement off, as hand-off is off on a node whose
     * lock writes wait for replicas (the default on the Sentinel and cluster fixtures).
     */
    private static final LockOptions HANDOFF = LockOptions.builder().noReplicaSync().build();

    private LockClient faulty(LockOptions options) {
        return kit.newFaultyLockClient(options, faults);
    }

    private static String field(LockClient c, long threadId) {
        return c.clientId() + ":" + threadId;
    }

    /** A thread that takes a lock, reports its hold count, holds until told, then unlocks. */
    private final class Holder {
        final String name;
        final History history;
        final CompletableFuture<Integer> granted = new CompletableFuture<>();
        final CompletableFuture<Void> release = new CompletableFuture<>();
        final CompletableFuture<Long> released = new CompletableFuture<>();
        final AtomicReference<Thread> thread = new AtomicReference<>();

        Holder(String name, History history, DistributedLock lock, String lockName) {
            this.name = name;
            this.history = history;
            Thread t = new Thread(() -> {
                try {
                    history.record(name, History.Op.REQUEST, lockName, -1, "");
                    lock.lock();
                    history.record(name, History.Op.GRANT, lockName, -1, "");
                    granted.complete(lock.getHoldCount());
                    release.get(60, TimeUnit.SECONDS);
                    history.record(name, History.Op.RELEASING, lockName, -1, "");
                    lock.unlock();
                    history.record(name, History.Op.RELEASE, lockName, -1, "ok");
                    released.complete(System.nanoTime());
                } catch (Throwable e) {
                    history.record(name, History.Op.ERROR, lockName, -1, e.toString());
                    granted.completeExceptionally(e);
                    released.completeExceptionally(e);
                }
            }, "tck-lost-reply-" + name);
            t.setDaemon(true);
            thread.set(t);
            t.start();
        }

        long id() {
            return thread.get().getId();
        }
    }

    /**
     * Another client's caller, started now: tryLock(40 s), then unlock; its future completes with
     * its grant time. Returns once it is parked waiting.
     */
    private CompletableFuture<Long> outsider(History history, DistributedLock lock, String lockName) {
        CompletableFuture<Long> grantedAt = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                history.record("O", History.Op.REQUEST, lockName, -1, "");
                if (!lock.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    grantedAt.completeExceptionally(new AssertionError("the other client never got " + lockName));
                    return;
                }
                long at = System.nanoTime();
                history.record("O", History.Op.GRANT, lockName, -1, "");
                history.record("O", History.Op.RELEASING, lockName, -1, "");
                lock.unlock();
                history.record("O", History.Op.RELEASE, lockName, -1, "ok");
                grantedAt.complete(at);
            } catch (Throwable e) {
                grantedAt.completeExceptionally(e);
            }
        }, "tck-lost-reply-outsider");
        t.setDaemon(true);
        t.start();
        awaitParked(t);
        return grantedAt;
    }

    /** Waits until {@code t} is parked inside the engine, waiting for a lock (not sending an attempt). */
    static void awaitParked(Thread t) {
        Await.until(DEADLINE, () -> parkedInEngine(t), () -> t.getName() + " never parked waiting for the lock; it is at "
                + LivenessMonitor.topOf(t));
    }

    /**
     * @return whether {@code t} is parked by relock's engine, waiting for a lock: its park blocker is
     *     a {@link WaitingForLock}
     */
    static boolean parkedInEngine(Thread t) {
        return LockSupport.getBlocker(t) instanceof WaitingForLock;
    }

    private static long millis(long fromNanos, long toNanos) {
        return TimeUnit.NANOSECONDS.toMillis(toNanos - fromNanos);
    }

    /**
     * Runs {@code body} {@code relock.faults.runs} times (default 1) and appends the totals.
     *
     * @param scenario the fault report's row name
     */
    private void scenario(String scenario, ScenarioBody body) throws Exception {
        int runs = Integer.getInteger(FaultChapter.RUNS_PROPERTY, 1);
        FaultTotals totals = new FaultTotals(scenario);
        for (int i = 0; i < runs; i++) {
            faults.clear();
            History history = new History();
            int injected = body.run(history, "tck:lost:" + i);
            History.Verdict v = history.check(null);
            totals.add(injected, v);
            assertEquals(0, v.overlaps(), () -> "a grant while another holder believed it held: " + history.events());
        }
        if (kit.topology().kind() == RedisTopology.Kind.SINGLE) {
            totals.append(kit.kitName());
        }
    }

    @FunctionalInterface
    private interface ScenarioBody {
        /** @return faults injected */
        int run(History history, String name) throws Exception;
    }

    /**
     * The lock goes from the main thread to {@code waiter} through a release whose reply is lost;
     * the waiter must hold it exactly once, and another client must get it within {@link #PROMPT}
     * of the waiter's unlock.
     */
    private int handOffLost(History h, LockClient c, DistributedLock lock, DistributedLock others, String name,
                            String releaseScript) throws Exception {
        lock.lock();
        h.record("A", History.Op.GRANT, name, -1, "");
        Holder w = new Holder("W", h, lock, name);
        Await.until(DEADLINE, () -> LocalHandoffChapter.parkedForHandoff(w.thread.get()),
                () -> "W never parked for a hand-off; it is at " + LivenessMonitor.topOf(w.thread.get()));
        faults.on(releaseScript).failAfterRun();
        h.fault("reply lost on the release that hands " + name + " to W");
        h.record("A", History.Op.RELEASING, name, -1, "");
        assertThrows(RedisUnavailableException.class, lock::unlock, "the release's reply was lost");
        h.record("A", History.Op.RELEASE, name, -1, "RedisUnavailableException");
        int count = w.granted.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertEquals(1, count, "W's hold count after one lock(), as the engine reads it from Redis");
        assertEquals("1", redis("HGET", name, field(c, w.id())), "W's count in Redis");
        CompletableFuture<Long> o = outsider(h, others, name);
        w.release.complete(null);
        long unlockedAt = w.released.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        h.heal();
        long grantedAt = o.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertTrue(millis(unlockedAt, grantedAt) <= PROMPT.toMillis(), "another client got " + name + " "
                + millis(unlockedAt, grantedAt) + " ms after W's unlock (at most " + PROMPT.toMillis() + " ms)");
        return 1;
    }

    /**
     * Rule 22.1: a release that hands a reentrant lock to a waiting thread of the same client and
     * whose reply is lost: the waiter ends up holding it once (Redis count 1, {@code getHoldCount}
     * 1), and the lock is free when its one {@code unlock()} returns.
     * When it fails: after a hand-off release whose reply was lost the waiter must find out from
     * Redis that it holds the lock, once, rather than attempt again (a hold count of 2).
     */
    @Test
    void rule22_1_handOffReleaseReplyLost_waiterHoldsOnce_freeAfterItsUnlock() throws Exception {
        scenario("reply lost on a hand-off release", (h, name) -> {
            LockClient c = faulty(HANDOFF);
            return handOffLost(h, c, c.getLock(name), client().getLock(name), name, "lock-release");
        });
    }

    /**
     * Rule 22.2: as 22.1 for the fair lock: the waiter heads the queue, is handed the lock, holds
     * it once.
     * When it fails: as rule 22.1 for the fair lock: the head that was handed the lock must not
     * attempt again.
     */
    @Test
    void rule22_2_fairHandOffReleaseReplyLost_waiterHoldsOnce_freeAfterItsUnlock() throws Exception {
        scenario("reply lost on a fair hand-off release", (h, name) -> {
            LockClient c = faulty(HANDOFF);
            return handOffLost(h, c, c.getFairLock(name), client().getFairLock(name), name, "fair-release");
        });
    }

    /**
     * Rule 22.3: a waiter's own attempt (after it was woken) runs and acquires, but its reply is
     * lost; the waiter tries again and must not count the lock twice: it holds it once, and the lock
     * is free when its one {@code unlock()} returns. Reentrant and fair, hand-off off (so the waiter
     * attempts itself).
     * When it fails: after its attempt's reply was lost the waiter must read the lock's state
     * before it tries again; a hold count of 2 means it acquired blind a second time.
     */
    @Test
    void rule22_3_waitersAttemptReplyLost_retryDoesNotCountTwice() throws Exception {
        for (String kind : List.of("lock", "fair")) {
            scenario("reply lost on a waiter's " + kind + " acquisition", (h, name) -> {
                LockClient c = faulty(LockOptions.builder().noLocalHandoff().build());
                DistributedLock lock = kind.equals("fair") ? c.getFairLock(name) : c.getLock(name);
                LockClient o = client();
                DistributedLock others = kind.equals("fair") ? o.getFairLock(name) : o.getLock(name);
                lock.lock();
                h.record("A", History.Op.GRANT, name, -1, "");
                Holder w = new Holder("W", h, lock, name);
                awaitParked(w.thread.get());
                faults.on(kind.equals("fair") ? "fair-acquire" : "lock-acquire").failAfterRun();
                h.fault("reply lost on W's acquisition");
                h.record("A", History.Op.RELEASING, name, -1, "");
                lock.unlock();
                h.record("A", History.Op.RELEASE, name, -1, "ok");
                int count = w.granted.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                assertEquals(1, count, "W's hold count after one lock(), as the engine reads it from Redis");
                assertEquals("1", redis("HGET", name, field(c, w.id())), "W's count in Redis");
                CompletableFuture<Long> og = outsider(h, others, name);
                w.release.complete(null);
                long unlockedAt = w.released.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                h.heal();
                long grantedAt = og.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                assertTrue(millis(unlockedAt, grantedAt) <= PROMPT.toMillis(), "another client got " + name + " "
                        + millis(unlockedAt, grantedAt) + " ms after W's unlock (at most " + PROMPT.toMillis() + " ms)");
                return 1;
            });
        }
    }

    /**
     * Rule 22.4: a plain release (nobody of this client waits) whose reply is lost: {@code unlock()}
     * throws, the lock is free (the script ran), nothing stays registered or renewed, and another
     * client gets it at once. Reentrant and fair.
     * When it fails: a release whose reply was lost did run: the engine must stop renewing the hold
     * and report the error to the caller, not keep the hold.
     */
    @Test
    void rule22_4_plainReleaseReplyLost_lockFree_nothingRenewed() throws Exception {
        for (String kind : List.of("lock", "fair")) {
            scenario("reply lost on a " + kind + " release", (h, name) -> {
                LockClient c = faulty(LockOptions.defaults());
                DistributedLock lock = kind.equals("fair") ? c.getFairLock(name) : c.getLock(name);
                lock.lock();
                h.record("A", History.Op.GRANT, name, -1, "");
                faults.on(kind.equals("fair") ? "fair-release" : "lock-release").failAfterRun();
                h.fault("reply lost on A's release");
                h.record("A", History.Op.RELEASING, name, -1, "");
                assertThrows(RedisUnavailableException.class, lock::unlock);
                h.record("A", History.Op.RELEASE, name, -1, "RedisUnavailableException");
                h.heal();
                assertEquals(0L, redis("EXISTS", name), "the release ran: the lock is free");
                assertEquals(0, c.stats().heldLocks(), "the client still counts a hold it released");
                LockClient o = client();
                long at = System.nanoTime();
                assertTrue((kind.equals("fair") ? o.getFairLock(name) : o.getLock(name)).tryLock(0, TimeUnit.SECONDS));
                h.record("O", History.Op.GRANT, name, -1, "");
                h.record("O", History.Op.RELEASING, name, -1, "");
                (kind.equals("fair") ? o.getFairLock(name) : o.getLock(name)).unlock();
                h.record("O", History.Op.RELEASE, name, -1, "ok");
                assertTrue(millis(at, System.nanoTime()) < DEADLINE.toMillis());
                return 1;
            });
        }
    }

    /**
     * Rule 22.5: a read unlock and a write unlock whose replies are lost: each throws, the lock is
     * free afterwards, nothing stays renewed, and another client's writer gets it at once.
     * When it fails: as rule 22.4 for the read and the write half.
     */
    @Test
    void rule22_5_readAndWriteUnlockReplyLost_lockFree() throws Exception {
        for (String mode : List.of("read", "write")) {
            scenario("reply lost on a " + mode + " unlock", (h, name) -> {
                LockClient c = faulty(LockOptions.defaults());
                ReadWriteDistributedLock rw = c.getReadWriteLock(name);
                DistributedLock half = mode.equals("read") ? rw.readLock() : rw.writeLock();
                half.lock();
                h.record("A", History.Op.GRANT, name, -1, "");
                faults.on(mode + "-release").failAfterRun();
                h.fault("reply lost on A's " + mode + " unlock");
                h.record("A", History.Op.RELEASING, name, -1, "");
                assertThrows(RedisUnavailableException.class, half::unlock);
                h.record("A", History.Op.RELEASE, name, -1, "RedisUnavailableException");
                h.heal();
                assertEquals(0L, redis("EXISTS", name), "the unlock ran: the lock is free");
                assertEquals(0, c.stats().heldLocks(), "the client still counts a hold it released");
                DistributedLock writer = client().getReadWriteLock(name).writeLock();
                assertTrue(writer.tryLock(0, TimeUnit.SECONDS), "another client's writer was refused");
                h.record("O", History.Op.GRANT, name, -1, "");
                h.record("O", History.Op.RELEASING, name, -1, "");
                writer.unlock();
                h.record("O", History.Op.RELEASE, name, -1, "ok");
                return 1;
            });
        }
    }

    /**
     * Rule 22.6: a multi-lock's release in which one member's reply is lost: {@code unlock()}
     * throws, every member is free, nothing stays renewed, and another client takes the multi-lock
     * at once.
     * When it fails: as rule 22.4 for every member of a multi-lock.
     */
    @Test
    void rule22_6_multiLockReleaseReplyLost_everyMemberFree() throws Exception {
        scenario("reply lost on a multi-lock release", (h, name) -> {
            String a = "{" + name + "}:a";
            String b = "{" + name + "}:b";
            LockClient c = faulty(LockOptions.defaults());
            DistributedLock multi = c.getMultiLock(c.getLock(a), c.getLock(b));
            multi.lock();
            h.record("A", History.Op.GRANT, name, -1, "");
            faults.on("lock-release").failAfterRun();
            h.fault("reply lost on one member's release");
            h.record("A", History.Op.RELEASING, name, -1, "");
            assertThrows(RedisUnavailableException.class, multi::unlock);
            h.record("A", History.Op.RELEASE, name, -1, "RedisUnavailableException");
            h.heal();
            assertEquals(0L, redis("EXISTS", a), "member a is still held");
            assertEquals(0L, redis("EXISTS", b), "member b is still held");
            assertEquals(0, c.stats().heldLocks(), "the client still counts a hold it released");
            LockClient o = client();
            DistributedLock others = o.getMultiLock(o.getLock(a), o.getLock(b));
            assertTrue(others.tryLock(0, TimeUnit.SECONDS), "another client could not take the multi-lock");
            h.record("O", History.Op.GRANT, name, -1, "");
            h.record("O", History.Op.RELEASING, name, -1, "");
            others.unlock();
            h.record("O", History.Op.RELEASE, name, -1, "ok");
            return 1;
        });
    }
}
