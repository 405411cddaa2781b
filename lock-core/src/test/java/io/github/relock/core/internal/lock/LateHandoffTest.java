package io.github.relock.core.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.WaitingForLock;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.observe.LockEvents;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.ProtocolContext;
import io.github.relock.core.internal.protocol.ReentrantProtocol;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.testing.GatedRedis;
import io.github.relock.core.internal.testing.RecordingListener;
import io.github.relock.core.internal.util.Args;
import io.github.relock.core.internal.wait.Handoff;
import io.github.relock.core.internal.wait.Waiters;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hand-off release whose script runs late, after its waiter stopped waiting for the claim's
 * decision (twice the command timeout): its async call sat in a stalled driver queue. No transfer
 * is ever given back to an owner that may still take it, and no hold the waiter registered itself
 * is dropped: the registry and Redis agree at the end. Real lock, waits, registry and hand-off
 * lines over {@link GatedRedis}, whose queue the test runs call by call.
 */
class LateHandoffTest {
    private static final String NAME = "orders";
    private static final String CHANNEL = "redisson_lock__channel:{orders}";
    private static final long HOLDER = 7;
    private static final long WAITER = 9;
    private static final String WAITER_FIELD = "c1:9";
    /** Short, so a waiter gives up on an undecided claim after 100 ms. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(50);

    private final GatedRedis redis = new GatedRedis();
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
    private final HoldRegistry holds = new HoldRegistry(LockFixture.WATCHDOG_MS, lost::add, Runnable::run);
    private final Handoff handoff = new Handoff(16, TimeUnit.SECONDS.toNanos(10));
    private final ProtocolContext protocols = new ProtocolContext("PUBLISH", 300_000, 1, 128, 0);
    private final ClientServices services = new ClientServices("c1", LockOptions.builder().commandTimeout(COMMAND_TIMEOUT).build(),
            new ScriptRunner(redis, 0, 250, null, "c1"), holds, new Waiters(redis, false), handoff,
            new LockEvents(new RecordingListener()), protocols, timer);
    private final RedisLock lock = new RedisLock(services,
            new ReentrantProtocol(protocols, NAME, ReentrantProtocol.Variant.REENTRANT));

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    /** The holder holds the lock, in Redis and in the registry. */
    private void holderHolds() {
        redis.set(NAME, lock.field(HOLDER), 1);
        holds.register(NAME, lock.field(HOLDER), HOLDER, NAME, Args.TTL_WATCHDOG, System.nanoTime(), Acquire.NO_TOKEN,
                null);
    }

    /** The holder's unlockAsync claims the waiter's armed offer; its release waits in the stalled queue. */
    private CompletableFuture<Void> holderReleasesHandingOff() {
        CompletableFuture<Void> released = lock.releaseFor(HOLDER);
        assertEquals(1, redis.queued());
        assertEquals(7, Arrays.asList(redis.queuedCalls().get(0).split(",")).size(),
                "a hand-off release naming the waiter: " + redis.queuedCalls());
        return released;
    }

    private void assertWaiterHoldsOnce() {
        assertEquals(Map.of(WAITER_FIELD, 1L), redis.hash(NAME), "Redis: the waiter holds the lock once; " + redis.trace());
        Hold h = holds.get(NAME, WAITER_FIELD);
        assertNotNull(h, "the registry: the waiter's hold is registered, so it is renewed; " + redis.trace());
        assertTrue(h.watchdog());
        assertTrue(holds.lastHold(NAME, WAITER_FIELD), "registered once, as Redis counts it");
        assertTrue(lost.isEmpty(), lost::toString);
    }

    @Test
    void asyncWaiterGivesUpOnClaim_lateTransferIsItsResolveAttemptsGrant_notGivenBack() {
        holderHolds();
        CompletableFuture<Boolean> waiter = lock.acquireFor(Args.WAIT_FOREVER, Args.TTL_WATCHDOG, WAITER);
        redis.runNext(); // its first attempt: busy; it subscribes and attempts again
        redis.runNext(); // busy: its offer is armed and it parks
        CompletableFuture<Void> released = holderReleasesHandingOff();

        redis.publish(CHANNEL, "0"); // a stray "0" wakes the waiter while its offer is claimed
        await(() -> redis.queued() == 2, () -> "the waiter gave up on the claim and attempts in RESOLVE mode: "
                + redis.queuedCalls());
        assertTrue(redis.queuedCalls().get(1).endsWith(", resolve]"), redis.queuedCalls()::toString);
        redis.drain(); // the transfer lands, then the waiter's RESOLVE attempt finds its field

        assertTrue(waiter.join());
        released.join();
        assertWaiterHoldsOnce();
    }

    @Test
    void blockingWaiterGivesUpOnClaim_lateTransferWakesItToTakeIt_notGivenBack() throws Exception {
        holderHolds();
        CompletableFuture<Boolean> waiter = new CompletableFuture<>();
        Thread t = waiterThread(waiter, Args.WAIT_FOREVER);
        await(() -> parked(t, true), () -> "the waiter parks with its offer armed");
        CompletableFuture<Void> released = holderReleasesHandingOff();

        redis.publish(CHANNEL, "0");
        await(() -> attempts() == 3 && parked(t, false), () -> "the waiter gave up on the claim, attempted "
                + "in RESOLVE mode (busy: the release has not run) and parked: " + redis.trace());
        redis.runNext(); // the transfer lands late; its reply tells the waiter
        assertTrue(waiter.get(10, TimeUnit.SECONDS), "the waiter took the transfer");
        redis.drain();

        released.join();
        assertWaiterHoldsOnce();
    }

    @Test
    void waiterTimedOutDuringClaim_locksAgainAsTransferLands_registryCountsWhatRedisCounts() throws Exception {
        holderHolds();
        CompletableFuture<Boolean> first = new CompletableFuture<>();
        Thread t = waiterThread(first, 1_000);
        await(() -> parked(t, true), () -> "the waiter parks with its offer armed");
        holderReleasesHandingOff();
        assertFalse(first.get(10, TimeUnit.SECONDS), "its time ran out while the claim was undecided");

        Runnable lateReply = redis.runNextHoldingReply(); // the transfer lands; its reply comes later
        CompletableFuture<Boolean> again = new CompletableFuture<>();
        waiterThread(again, 1_000);
        assertTrue(again.get(10, TimeUnit.SECONDS), "the owner locks again: re-enters the field the transfer left");
        assertEquals(Map.of(WAITER_FIELD, 2L), redis.hash(NAME));
        lateReply.run();
        redis.drain(); // the transfer to the waiter that left is given back: one count

        assertWaiterHoldsOnce();
        lock.releaseFor(WAITER);
        redis.drain();
        assertEquals(Map.of(), redis.hash(NAME), "its one unlock frees the lock");
        assertNull(holds.get(NAME, WAITER_FIELD));
    }

    @Test
    void asyncWaiterLeavesAfterTransferLandedUnseen_givesTheFieldBackItself() {
        holderHolds();
        CompletableFuture<Boolean> waiter = lock.acquireFor(Args.WAIT_FOREVER, Args.TTL_WATCHDOG, WAITER);
        redis.runNext();
        redis.runNext();
        holderReleasesHandingOff();
        redis.publish(CHANNEL, "0");
        await(() -> redis.queued() == 2, () -> "the waiter attempts in RESOLVE mode: " + redis.queuedCalls());

        waiter.cancel(false); // its caller leaves while the RESOLVE attempt is in flight
        Runnable attemptReply = redis.runNextHoldingReply(1); // a pool thread runs the attempt first: busy
        redis.runNext(); // then the transfer lands, after the waiter's last attempt
        attemptReply.run(); // the waiter finishes without the lock
        // its wait runs its events one at a time on whichever thread came first (the timer may be
        // running one): its give-back can be queued after this thread returns, so drain until done
        await(() -> {
            redis.drain();
            return redis.hash(NAME).isEmpty();
        }, () -> "the transfer nobody took is given back: " + redis.trace());
        assertNull(holds.get(NAME, WAITER_FIELD));
        await(() -> handoff.activeLines() == 0, () -> "the waiter's hand-off line outlives its wait");
    }

    @Test
    void asyncWaiterWhoseAttemptWasInFlightAsTheTransferLanded_attemptsAgainAtOnce_notAfterItsPark() {
        holderHolds();
        CompletableFuture<Boolean> waiter = lock.acquireFor(Args.WAIT_FOREVER, Args.TTL_WATCHDOG, WAITER);
        redis.runNext();
        redis.runNext();
        CompletableFuture<Void> released = holderReleasesHandingOff();
        redis.publish(CHANNEL, "0");
        await(() -> redis.queued() == 2, () -> "the waiter attempts in RESOLVE mode: " + redis.queuedCalls());

        Runnable attemptReply = redis.runNextHoldingReply(1); // its RESOLVE attempt runs first: busy
        redis.runNext(); // the transfer lands while that reply is on its way; the wake finds the wait not parked
        attemptReply.run();

        // The wait may be running another event (the wake) on another thread: its re-attempt follows that
        // event. 10 s tells "at once" from "after its park": the park would last the holder's PTTL, 30 s.
        await(() -> redis.queued() == 1, () -> "the waiter attempts again at once (it would otherwise park for "
                + "the holder's whole PTTL while holding the lock): " + redis.queuedCalls());
        redis.drain();
        assertTrue(waiter.join());
        released.join();
        assertWaiterHoldsOnce();
    }

    // ---------------------------------------------------------------- helpers

    /** Starts the waiter's blocking acquisition on a thread of its own; its outcome completes {@code outcome}. */
    private Thread waiterThread(CompletableFuture<Boolean> outcome, long waitMs) {
        Thread t = new Thread(() -> {
            try {
                outcome.complete(lock.acquire(waitMs, Args.TTL_WATCHDOG, WAITER, false));
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        }, "waiter");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private int attempts() {
        return (int) redis.trace().stream().filter(s -> s.startsWith("lock-acquire")).count();
    }

    /** @return whether {@code t} is parked between attempts, with its hand-off offer armed or not, as its blocker says */
    private static boolean parked(Thread t, boolean offerArmed) {
        return LockSupport.getBlocker(t) instanceof WaitingForLock w && w.handoffOffered() == offerArmed;
    }

    private static void await(BooleanSupplier condition, Supplier<String> what) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not true within 10 s: " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
