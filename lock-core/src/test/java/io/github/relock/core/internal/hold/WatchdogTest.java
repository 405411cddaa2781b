package io.github.relock.core.internal.hold;

import static io.github.relock.core.internal.hold.RegistryFixture.WATCHDOG_MS;
import static io.github.relock.core.internal.hold.RegistryFixture.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockLostEvent.Reason;
import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.observe.LockEvents;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.testing.DirectExecutorService;
import io.github.relock.core.internal.testing.FakeExecutor;
import io.github.relock.core.internal.testing.FakeExecutor.Invocation;
import io.github.relock.core.internal.testing.RecordingListener;
import io.github.relock.core.internal.util.Args;
import io.github.relock.spi.Lane;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Slots;
import io.github.relock.spi.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The watchdog, driven by hand: {@code tick()} is called directly, the timer only records what is
 * scheduled, and renewals answer when the test completes their futures ({@link FakeExecutor}'s
 * async path stands in for the client's {@code Watchdog.AsyncScripts}).
 */
class WatchdogTest {
    private static final String RENEW = "lock-renew";
    private static final String RENEW_NODE = "lock-renew-node";
    private static final long NO_TIMEOUT_MS = 600_000; // a renewal in these tests never times out by itself

    private final RegistryFixture f = new RegistryFixture();
    private final HoldRegistry registry = f.registry;
    private final FakeExecutor redis = new FakeExecutor();
    private final ManualScheduler timer = new ManualScheduler();
    private final RecordingListener listener = new RecordingListener();
    private final LockEvents events = new LockEvents(listener);

    /** The watchdog's calls, as core sends them: on the driver's renewal lane. */
    private CompletableFuture<Object> renew(Script script, List<String> keys, List<String> args) {
        return redis.evalAsync(ScriptCall.bySha(script, keys, args), Lane.RENEWAL);
    }

    private Watchdog watchdog(int batchSize) {
        return new Watchdog(registry, this::renew, timer, WATCHDOG_MS, batchSize, false, null, NO_TIMEOUT_MS, events);
    }

    private Watchdog cluster(IntFunction<Object> nodeOfSlot) {
        return new Watchdog(registry, this::renew, timer, WATCHDOG_MS, 500, true, nodeOfSlot, NO_TIMEOUT_MS, events);
    }

    // ---------------------------------------------------------------- batches

    @Test
    void tick_moreHoldsThanBatchSize_sendsOneRenewalPerBatch() {
        for (int i = 1; i <= 5; i++) {
            f.watchdog("lock" + i, "c:" + i);
        }
        redis.hold(RENEW);

        watchdog(2).tick();

        List<Invocation> calls = redis.calls(RENEW);
        assertEquals(List.of(2, 2, 1), calls.stream().map(c -> c.keys().size()).toList());
        Invocation first = calls.get(0);
        assertEquals(List.of(Long.toString(WATCHDOG_MS), "c:" + first.keys().get(0).substring(4), "",
                "c:" + first.keys().get(1).substring(4), ""), first.args(), "ARGV: timeout, then field and prefix per key");
    }

    @Test
    void tick_readHold_sendsItsTimeoutKeyPrefixBesideItsField() {
        registry.register("rw", "c:1", 1, "rw", Args.TTL_WATCHDOG, System.nanoTime(), Acquire.NO_TOKEN, "{rw}");
        redis.hold(RENEW);

        watchdog(500).tick();

        assertEquals(List.of(Long.toString(WATCHDOG_MS), "c:1", "{rw}"), redis.calls(RENEW).get(0).args());
    }

    @Test
    void tick_cluster_sendsOneBatchPerSlotWithKeysOfThatSlotOnly() {
        f.watchdog("{x}:1", "c:1");
        f.watchdog("{y}:1", "c:1");
        f.watchdog("{x}:2", "c:1");
        assertNotEquals(Slots.slot("{x}"), Slots.slot("{y}"));
        redis.hold(RENEW);

        cluster(slot -> null).tick();

        List<Invocation> calls = redis.calls(RENEW);
        assertEquals(2, calls.size());
        for (Invocation c : calls) {
            assertEquals(1, c.keys().stream().map(Slots::slot).distinct().count(), "one slot per call: " + c.keys());
        }
        assertEquals(3, calls.stream().mapToInt(c -> c.keys().size()).sum());
    }

    @Test
    void tick_clusterWithNodeTokens_sendsOneBatchPerNodeRoutedByItsFirstKey() {
        f.watchdog("{x}:1", "c:1");
        f.watchdog("{y}:1", "c:2");
        redis.hold(RENEW_NODE);

        cluster(slot -> "node-A").tick();

        assertTrue(redis.calls(RENEW).isEmpty());
        List<Invocation> calls = redis.calls(RENEW_NODE);
        assertEquals(1, calls.size());
        Invocation c = calls.get(0);
        assertEquals(1, c.keys().size());
        assertEquals(List.of(Long.toString(WATCHDOG_MS), c.keys().get(0), c.keys().get(0).equals("{x}:1") ? "c:1" : "c:2", ""),
                c.args().subList(0, 4), "ARGV: timeout, then key, field and prefix per hold");
        assertEquals(7, c.args().size());
    }

    @Test
    void tick_clusterNodeBatchOfOneSlot_sendsPlainSlotRenewal() {
        f.watchdog("{x}:1", "c:1");
        f.watchdog("{x}:2", "c:1");
        redis.hold(RENEW);

        cluster(slot -> "node-A").tick();

        assertTrue(redis.calls(RENEW_NODE).isEmpty());
        assertEquals(List.of("{x}:1", "{x}:2"), redis.calls(RENEW).get(0).keys().stream().sorted().toList());
    }

    @Test
    void tick_nodeBatchFails_renewsItsHoldsSlotBySlot() {
        Hold x = f.watchdog("{x}:1", "c:1", 1_000);
        Hold y = f.watchdog("{y}:1", "c:1", 1_000);
        redis.fail(RENEW_NODE, new RedisUnavailableException("CROSSSLOT: a slot moved"));
        redis.reply(RENEW, List.of(1L));
        long before = System.nanoTime();

        cluster(slot -> "node-A").tick();

        assertEquals(1, redis.calls(RENEW_NODE).size());
        assertEquals(2, redis.calls(RENEW).size());
        assertTrue(x.lastConfirmedNanos - before >= 0 && y.lastConfirmedNanos - before >= 0, "both renewed");
    }

    @Test
    void tick_serverRefusesScriptFlags_renewsSlotBySlot_thenBatchesBySlotFromTheStart_reportedOnce() {
        Hold x = f.watchdog("{x}:1", "c:1", 1_000);
        Hold y = f.watchdog("{y}:1", "c:1", 1_000);
        redis.fail(RENEW_NODE, new RedisErrorException("ERR Error compiling script (new function): user_script:1:"
                + " unexpected symbol near '#'", null)); // Redis 6.2 reading "#!lua flags=..." as Lua
        redis.reply(RENEW, List.of(1L));
        Watchdog w = cluster(slot -> "node-A");

        w.tick();
        long first = x.lastConfirmedNanos;
        w.tick();

        assertEquals(1, redis.calls(RENEW_NODE).size(), "the second round groups by slot from the start");
        assertEquals(4, redis.calls(RENEW).size(), "two slots, two rounds");
        assertTrue(x.lastConfirmedNanos - first > 0, "renewed in the second round");
        assertEquals(List.of("serverFallback PER_SLOT_RENEWAL"), listener.starting("serverFallback"));
    }

    @Test
    void tick_nodeOfSlotThrows_renewsThatSlotOnItsOwn() {
        f.watchdog("{x}:1", "c:1");
        f.watchdog("{y}:1", "c:1");
        redis.hold(RENEW);

        cluster(slot -> {
            throw new IllegalStateException("the driver cannot tell");
        }).tick();

        assertTrue(redis.calls(RENEW_NODE).isEmpty());
        assertEquals(2, redis.calls(RENEW).size());
    }

    @Test
    void sendAll_moreBatchesThanInFlight_sendsTheNextWhenOneAnswers() {
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        List<Supplier<CompletableFuture<Void>>> batches = new ArrayList<>();
        for (int i = 0; i < Watchdog.IN_FLIGHT + 2; i++) {
            batches.add(() -> {
                CompletableFuture<Void> c = new CompletableFuture<>();
                sent.add(c);
                return c;
            });
        }

        CompletableFuture<Void> done = Watchdog.sendAll(batches);

        assertEquals(Watchdog.IN_FLIGHT, sent.size());
        sent.get(0).complete(null);
        assertEquals(Watchdog.IN_FLIGHT + 1, sent.size());
        new ArrayList<>(sent).forEach(c -> c.complete(null));
        assertEquals(Watchdog.IN_FLIGHT + 2, sent.size());
        assertFalse(done.isDone());
        sent.get(sent.size() - 1).complete(null);
        assertTrue(done.isDone());
    }

    // ---------------------------------------------------------------- answers

    @Test
    void tick_replyPerHold_renewsConfirmedHoldsAndLosesTheOthers() {
        Hold kept = f.watchdog("a", "c:1", 1_000);
        Hold gone = f.watchdog("b", "c:1", 1_000);
        redis.hold(RENEW);
        long before = System.nanoTime();
        watchdog(500).tick();
        Invocation call = redis.calls(RENEW).get(0);

        redis.pending(0).complete(call.keys().get(0).equals("a") ? List.of(1L, 0L) : List.of(0L, 1L));

        assertTrue(kept.lastConfirmedNanos - before >= 0, "confirmed from the renewal's send time");
        assertSame(kept, registry.get("a", "c:1"));
        assertTrue(gone.lost());
        assertEquals(List.of(Reason.NOT_HELD), f.reasons());
        assertEquals(List.of("renewalBatch 1 1"), listener.starting("renewalBatch"));
    }

    @Test
    void tick_renewalFailsAtOnce_sendsItOnceMoreThenCountsItFailed() {
        Hold h = f.watchdog("orders", "c:1");
        long confirmed = h.lastConfirmedNanos;
        redis.fail(RENEW, new RedisUnavailableException("connection reset"));

        watchdog(500).tick();

        assertEquals(2, redis.calls(RENEW).size(), "sent once more at once, not more");
        assertEquals(List.of("renewalBatch 0 1"), listener.starting("renewalBatch"));
        assertEquals(confirmed, h.lastConfirmedNanos);
        assertSame(h, registry.get("orders", "c:1"), "not lost before its confirmation deadline");
    }

    @Test
    void tick_renewalFailsOnceThenAnswers_renewsHold() {
        Hold h = f.watchdog("orders", "c:1", 1_000);
        redis.fail(RENEW, new RedisUnavailableException("connection reset")).reply(RENEW, List.of(1L));
        long before = System.nanoTime();

        watchdog(500).tick();

        assertEquals(2, redis.calls(RENEW).size());
        assertTrue(h.lastConfirmedNanos - before >= 0);
        assertEquals(List.of("renewalBatch 1 0"), listener.starting("renewalBatch"));
    }

    @Test
    void tick_renewalNeverAnswers_timesOutAsFailedWithoutResending() throws InterruptedException {
        Hold h = f.watchdog("orders", "c:1");
        redis.hold(RENEW);
        CountDownLatch batchDone = new CountDownLatch(1);
        LockEvents latched = new LockEvents(new RecordingListener() {
            @Override
            public void renewalBatch(int renewed, int failed, Duration duration) {
                super.renewalBatch(renewed, failed, duration);
                batchDone.countDown();
            }
        });
        Watchdog w = new Watchdog(registry, this::renew, timer, WATCHDOG_MS, 500, false, null, 1, latched);

        w.tick();

        assertTrue(batchDone.await(30, TimeUnit.SECONDS), "the renewal's timeout ended the batch");
        assertEquals(1, redis.calls(RENEW).size(), "a timed-out renewal is not sent again");
        assertFalse(redis.pending(0).isDone(), "the driver's own future is never completed by the timeout");
        assertSame(h, registry.get("orders", "c:1"));
    }

    @Test
    void tick_previousRoundStillRunning_skipsRenewalButStillSweeps() {
        f.watchdog("a", "c:1");
        redis.hold(RENEW);
        Watchdog w = watchdog(500);
        w.tick();
        f.watchdog("stale", "c:1", WATCHDOG_MS); // its confirmation deadline passed long ago

        w.tick();

        assertEquals(1, redis.calls(RENEW).size(), "the second tick sent nothing");
        assertEquals(List.of(Reason.RENEWAL_FAILED), f.reasons());
        assertEquals("stale", f.lost.get(0).lockName());

        redis.pending(0).complete(List.of(1L));
        w.tick();
        assertEquals(2, redis.calls(RENEW).size(), "once the round answered, the next tick renews");
    }

    @Test
    void tick_clusterDriverBlocksInNodeOfSlot_tickReturnsAndTheTimerStillSweeps() throws Exception {
        f.watchdog("{x}:1", "c:1");
        CountDownLatch inDriver = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        java.util.concurrent.ExecutorService resolver = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            Watchdog w = new Watchdog(registry, this::renew, timer, WATCHDOG_MS, 500, true, slot -> {
                inDriver.countDown();
                try {
                    unblock.await(); // a pool borrow the application has exhausted
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "node-A";
            }, NO_TIMEOUT_MS, events, resolver);

            w.tick(); // returns: the round asks the driver on the resolver, not on the timer
            assertTrue(inDriver.await(30, TimeUnit.SECONDS), "the round asked the driver");
            f.watchdog("stale", "c:1", WATCHDOG_MS); // its confirmation deadline passed long ago
            w.tick();

            assertEquals(List.of(Reason.RENEWAL_FAILED), f.reasons(), "swept while the driver blocks");
            assertEquals("stale", f.lost.get(0).lockName());
            assertTrue(redis.calls(RENEW).isEmpty() && redis.calls(RENEW_NODE).isEmpty(), "nothing sent yet");
        } finally {
            unblock.countDown();
            resolver.shutdown();
            assertTrue(resolver.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void tick_deadlineBeforeNextTick_schedulesOneShotSweepForIt() {
        Hold h = f.watchdog("orders", "c:1", 20_000); // deadline in about 7 s; the next tick is in 10 s
        redis.hold(RENEW);
        Watchdog w = watchdog(500);

        w.tick();

        List<ManualScheduler.Task> sweeps = timer.oneShots();
        assertEquals(1, sweeps.size());
        long delay = sweeps.get(0).delayNanos;
        assertTrue(delay > 0 && delay <= ms(7_000), "scheduled at the deadline, was " + delay + " ns");
        h.lastConfirmedNanos = System.nanoTime() - ms(WATCHDOG_MS); // as if that deadline had now passed
        timer.runOneShots();
        assertEquals(List.of(Reason.RENEWAL_FAILED), f.reasons());
    }

    @Test
    void tick_timerRefusesTheOneShotSweep_tickStillRenews() {
        f.watchdog("orders", "c:1", 20_000);
        redis.hold(RENEW);
        timer.shutdown();

        watchdog(500).tick();

        assertEquals(1, redis.calls(RENEW).size());
    }

    @Test
    void tick_explicitLeasePastItsEnd_reportsLeaseExpiredAndRenewsNothing() {
        f.explicit("orders", "c:1", 1_000, 5_000);

        watchdog(500).tick();

        assertTrue(redis.calls().isEmpty());
        assertEquals(List.of(Reason.LEASE_EXPIRED), f.reasons());
    }

    @Test
    void tick_replicaShortfall_keepsHoldOnceAndLosesItTheSecondTime() {
        Hold h = f.watchdog("orders", "c:1");
        redis.capabilities(Capability.REPLICA_WAIT).waitAcks(0).reply(RENEW, List.of(1L));
        ScriptRunner synced = new ScriptRunner(redis, 1, 100, new DirectExecutorService(), "c");
        Watchdog w = new Watchdog(registry, synced::renewAsync, timer, WATCHDOG_MS, 500, false, null, NO_TIMEOUT_MS,
                events);

        w.tick();
        assertSame(h, registry.get("orders", "c:1"), "renewed on the master: retried next period");
        assertEquals(1, h.shortRenewals);
        w.tick();

        assertEquals(List.of(Reason.RENEWAL_FAILED), f.reasons());
        assertEquals("evalWithWait renewal", redis.calls(RENEW).get(0).method()); // the renewal lane, as without WAIT
    }

    // ---------------------------------------------------------------- lifecycle

    @Test
    void start_schedulesTickEveryThirdOfWatchdogTimeout() {
        watchdog(500).start();

        List<ManualScheduler.Task> periodic = timer.periodic();
        assertEquals(1, periodic.size());
        assertEquals(ms(WATCHDOG_MS / 3), periodic.get(0).periodNanos);
        assertEquals(ms(WATCHDOG_MS / 3), periodic.get(0).delayNanos);
    }

    @Test
    void stop_cancelsPeriodicTaskAndLaterTicksDoNothing() {
        f.watchdog("orders", "c:1", WATCHDOG_MS);
        Watchdog w = watchdog(500);
        w.start();

        w.stop();
        w.tick();

        assertTrue(timer.periodic().get(0).isCancelled());
        assertTrue(redis.calls().isEmpty());
        assertTrue(f.reasons().isEmpty(), "a stopped watchdog does not even sweep: close() reports");
        assertNotNull(registry.get("orders", "c:1"));
    }
}
