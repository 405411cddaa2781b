package io.github.relock.core.internal.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockException;
import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.protocol.ProtocolContext;
import io.github.relock.core.internal.protocol.Release;
import io.github.relock.core.internal.protocol.ReentrantProtocol;
import io.github.relock.core.internal.testing.DirectExecutorService;
import io.github.relock.core.internal.testing.FakeExecutor;
import io.github.relock.core.internal.util.Scripts;
import io.github.relock.spi.Capability;
import io.github.relock.spi.NotSentException;
import io.github.relock.spi.Slots;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Sending calls: decoding, the NOSCRIPT fallback, and replica sync (EVALSHA + WAIT) with its shortfall. */
class ScriptRunnerTest {
    private static final String ACQUIRE = "lock-acquire";
    private static final String RELEASE = "lock-release";

    private final FakeExecutor redis = new FakeExecutor();
    private final ReentrantProtocol protocol = new ReentrantProtocol(
            new ProtocolContext("PUBLISH", 300_000, 1, 128, 0), "orders", ReentrantProtocol.Variant.REENTRANT);
    private final Call<Acquire> acquire = protocol.acquire("c:1", 30_000, AttemptMode.TRY);
    private final Call<Release> release = protocol.release("c:1", 30_000, null);
    private final ScriptRunner plain = new ScriptRunner(redis, 0, 0, null, "c");

    /** A runner asking {@code replicas} acknowledgements, its synced async writes run on the caller's thread. */
    private ScriptRunner synced(int replicas) {
        redis.capabilities(Capability.REPLICA_WAIT);
        return new ScriptRunner(redis, replicas, 250, new DirectExecutorService(), "c");
    }

    private static Throwable failure(CompletableFuture<?> f) {
        assertTrue(f.isCompletedExceptionally(), "expected a failed future");
        return ScriptRunner.unwrap(assertThrows(CompletionException.class, f::join));
    }

    // ---------------------------------------------------------------- run / runAsync

    @Test
    void run_sendsEvalShaWithCallsKeysAndArgsAndDecodesReply() {
        redis.reply(ACQUIRE, 1_234L);

        assertEquals(new Acquire.Busy(1_234), plain.run(acquire));

        FakeExecutor.Invocation call = redis.calls().get(0);
        assertEquals("EVALSHA", call.method());
        assertEquals(acquire.keys(), call.keys());
        assertEquals(acquire.args(), call.args());
    }

    @Test
    void runAsync_decodesReplyWithoutBlocking() {
        redis.hold(ACQUIRE);

        CompletableFuture<Acquire> f = plain.runAsync(acquire);
        assertFalse(f.isDone());
        redis.pending(0).complete(null);

        assertSame(Acquire.ACQUIRED, f.join());
        assertEquals("EVALSHA async", redis.calls().get(0).method());
    }

    @Test
    void run_malformedReply_throwsLockExceptionNamingScript() {
        redis.reply(RELEASE, "OK");

        LockException e = assertThrows(LockException.class, () -> plain.run(release));
        assertTrue(e.getMessage().contains("lock-release of lock 'orders'"), e.getMessage());
    }

    @Test
    void run_noScript_fallsBackToEvalOnce() {
        redis.noScriptOnce(ACQUIRE).reply(ACQUIRE, (Object) null);

        assertSame(Acquire.ACQUIRED, plain.run(acquire));

        assertEquals(List.of("EVALSHA", "EVAL"), redis.calls().stream().map(FakeExecutor.Invocation::method).toList());
        assertEquals(acquire.args(), redis.calls().get(1).args());
    }

    @Test
    void runAsync_noScript_fallsBackToEvalOnce() {
        redis.noScriptOnce(RELEASE).reply(RELEASE, List.of(1L, 0L));

        assertEquals(new Release.Released(0), plain.runAsync(release).join());

        assertEquals(List.of("EVALSHA async", "EVAL async"), redis.calls().stream().map(FakeExecutor.Invocation::method).toList());
    }

    @Test
    void runAsync_otherFailure_failsWithItsCauseAndSendsNoEval() {
        RedisUnavailableException down = new RedisUnavailableException("connection reset");
        redis.fail(RELEASE, down);

        assertSame(down, failure(plain.runAsync(release)));
        assertEquals(1, redis.calls().size());
    }

    @Test
    void run_errorReplyOtherThanNoScript_isThrownAsItIs() {
        RedisErrorException err = new RedisErrorException("ERR something");
        redis.fail(ACQUIRE, err);

        assertSame(err, assertThrows(RedisErrorException.class, () -> plain.run(acquire)));
        assertEquals(1, redis.calls().size());
    }

    // ---------------------------------------------------------------- replica sync

    @Test
    void runWrite_withoutReplicaSync_isAPlainRun() {
        redis.reply(RELEASE, List.of(0L, 0L));

        assertSame(Release.STILL_HELD, plain.runWrite("unlock", release));

        assertFalse(plain.replicaSync());
        assertEquals("EVALSHA", redis.calls().get(0).method());
    }

    @Test
    void runWrite_enoughReplicasAcknowledged_returnsOutcome() {
        ScriptRunner runner = synced(2);
        redis.waitAcks(2).reply(RELEASE, List.of(1L, 1L));

        assertEquals(new Release.Released(1), runner.runWrite("unlock", release));

        assertTrue(runner.replicaSync());
        assertEquals("evalShaWithWait", redis.calls().get(0).method());
    }

    @Test
    void runWrite_fewerReplicasAcknowledged_throwsShortfallCarryingDecodedOutcome() {
        ScriptRunner runner = synced(2);
        redis.waitAcks(1).reply(RELEASE, List.of(1L, 1L));

        ReplicaShortfall e = assertThrows(ReplicaShortfall.class, () -> runner.runWrite("unlock of lock 'orders'", release));

        assertEquals(new Release.Released(1), e.outcome(Release.class));
        assertEquals(1, e.acknowledged());
        assertEquals(2, e.required());
        assertTrue(e.getMessage().startsWith("unlock of lock 'orders': only 1 of 2 replica(s) acknowledged within 250 ms"),
                e.getMessage());
        assertInstanceOf(RedisUnavailableException.class, e);
    }

    @Test
    void runWrite_noScriptWithReplicaSync_sendsTheTextWithWait_noBarrierKey() {
        ScriptRunner runner = synced(1);
        redis.waitAcks(1).noScriptOnce(ACQUIRE).reply(ACQUIRE, (Object) null);

        assertSame(Acquire.ACQUIRED, runner.runWrite("lock", acquire));

        assertEquals(List.of("evalShaWithWait lock-acquire", "EVAL evalWithWait async lock-acquire"),
                redis.calls().stream().map(c -> c.method() + " " + c.script()).toList());
    }

    @Test
    void runWrite_noScript_driverCannotSendTextWithWait_evalsThenWaitsBehindABarrierInTheSameSlot() {
        ScriptRunner runner = synced(1);
        redis.noTextWithWait().waitAcks(1).noScriptOnce(ACQUIRE).reply(ACQUIRE, (Object) null).reply("replica-barrier", 1L);

        assertSame(Acquire.ACQUIRED, runner.runWrite("lock", acquire));

        List<FakeExecutor.Invocation> calls = redis.calls();
        assertEquals(List.of("evalShaWithWait lock-acquire", "EVAL lock-acquire", "evalShaWithWait replica-barrier"),
                calls.stream().map(c -> c.method() + " " + c.script()).toList());
        String barrier = calls.get(2).keys().get(0);
        assertEquals(Slots.slot("orders"), Slots.slot(barrier));
        assertEquals(Scripts.barrierKey("orders"), barrier);
    }

    @Test
    void runWrite_waitReplyNotAnInteger_throwsLockExceptionNamingScript() {
        ScriptRunner runner = synced(1);
        redis.waitReply("1").reply(RELEASE, List.of(1L, 0L));

        LockException e = assertThrows(LockException.class, () -> runner.runWrite("unlock", release));

        assertTrue(e.getMessage().contains("lock-release of lock 'orders'"), e.getMessage());
    }

    @Test
    void runWriteAsync_fewerReplicasAcknowledged_failsWithShortfall() {
        ScriptRunner runner = synced(1);
        redis.waitAcks(0).reply(ACQUIRE, (Object) null);

        ReplicaShortfall e = assertInstanceOf(ReplicaShortfall.class, failure(runner.runWriteAsync("lock", acquire)));

        assertSame(Acquire.ACQUIRED, e.outcome(Acquire.class));
    }

    @Test
    void runWriteAsync_countNotKnownAndLearningRefused_failsWithClientClosed() {
        redis.capabilities(Capability.REPLICA_WAIT);
        ScriptRunner runner = new ScriptRunner(redis, 0, true, 250, DirectExecutorService.rejecting(), "client-9");

        Throwable e = failure(runner.runWriteAsync("lock", acquire));

        assertInstanceOf(IllegalStateException.class, e);
        assertEquals("this LockClient (client-9) is closed", e.getMessage());
        assertTrue(redis.calls().isEmpty());
    }

    @Test
    void runWriteAsync_withReplicaSync_usesTheDriversAsyncFormOnTheApplicationLane_noEngineThread() {
        redis.capabilities(Capability.REPLICA_WAIT);
        ScriptRunner runner = new ScriptRunner(redis, 1, 250, DirectExecutorService.rejecting(), "c");
        redis.waitAcks(1).reply(ACQUIRE, (Object) null);

        assertSame(Acquire.ACQUIRED, runner.runWriteAsync("lock", acquire).join());
        assertEquals(List.of("evalWithWait async"), redis.calls().stream().map(FakeExecutor.Invocation::method).toList());
    }

    @Test
    void runWriteAsync_noScript_sendsTheTextWithWaitOnce_noBarrier() {
        ScriptRunner runner = synced(1);
        redis.waitAcks(1).noScriptOnce(ACQUIRE).reply(ACQUIRE, (Object) null);

        assertSame(Acquire.ACQUIRED, runner.runWriteAsync("lock", acquire).join());
        assertEquals(List.of("evalWithWait async", "EVAL evalWithWait async"),
                redis.calls().stream().map(FakeExecutor.Invocation::method).toList());
    }

    @Test
    void renewAsync_withReplicaSync_waitsOnTheRenewalLane_oneScriptAsWithout() {
        ScriptRunner runner = synced(1);
        redis.waitAcks(1).reply("lock-renew", List.of(1L));

        assertEquals(List.of(1L), runner.renewAsync(Scripts.LOCK_RENEW, List.of("orders"), List.of("30000", "c:1", "")).join());
        assertEquals(List.of("evalWithWait renewal"), redis.calls().stream().map(FakeExecutor.Invocation::method).toList());
    }

    @Test
    void renewAsync_withoutReplicaSync_isAnAsyncEvalOnTheRenewalLane() {
        redis.reply("lock-renew", List.of(1L));

        Object reply = plain.renewAsync(Scripts.LOCK_RENEW, List.of("orders"), List.of("30000", "c:1", "")).join();

        assertEquals(List.of(1L), reply);
        assertEquals("EVALSHA renewal", redis.calls().get(0).method());
    }

    @Test
    void renewAsync_goesOnTheDriversRenewalLane_withItsOwnNoScriptFallback() {
        redis.noScriptOnce("lock-renew").reply("lock-renew", List.of(1L));

        assertEquals(List.of(1L), plain.renewAsync(Scripts.LOCK_RENEW, List.of("orders"), List.of("30000", "c:1", "")).join());
        assertEquals(List.of("EVALSHA renewal", "EVAL renewal"),
                redis.calls().stream().map(FakeExecutor.Invocation::method).toList());

        redis.reply(RELEASE, List.of(1L, 0L));
        plain.runAsync(release).join(); // the application's calls never take the renewal lane
        assertEquals("EVALSHA async", redis.calls().get(2).method());
    }

    @Test
    void renewAsync_fewerReplicasAcknowledged_answersTheShortfallAsAValue() {
        ScriptRunner runner = synced(1);
        redis.waitAcks(0).reply("lock-renew", List.of(1L));

        Object reply = runner.renewAsync(Scripts.LOCK_RENEW, List.of("orders"), List.of("30000", "c:1", "")).join();

        ReplicaShortfall s = assertInstanceOf(ReplicaShortfall.class, reply);
        assertEquals(List.of(1L), s.outcome(Object.class));
    }

    @Test
    void renewAsync_otherFailure_stillFails() {
        ScriptRunner runner = synced(1);
        RedisUnavailableException down = new RedisUnavailableException("connection reset");
        redis.fail("lock-renew", down);

        assertSame(down, failure(runner.renewAsync(Scripts.LOCK_RENEW, List.of("orders"), List.of("30000", "c:1", ""))));
    }

    // ---------------------------------------------------------------- failure helpers

    @Test
    void notSent_notSentExceptionAnywhereInCauseChain_isTrue() {
        NotSentException refused = new NotSentException("queue full");

        assertTrue(ScriptRunner.notSent(refused));
        assertTrue(ScriptRunner.notSent(new CompletionException(refused)));
        assertTrue(ScriptRunner.notSent(new IllegalStateException("wrapped", refused)));
    }

    @Test
    void notSent_otherFailures_isFalse() {
        assertFalse(ScriptRunner.notSent(new RedisUnavailableException("timeout")));
        assertFalse(ScriptRunner.notSent(new CompletionException(new RedisUnavailableException("reset",
                new IOException("reset by peer")))));
        assertFalse(ScriptRunner.notSent(null));
    }

    @Test
    void unwrap_removesCompletionAndExecutionWrappersOnly() {
        RedisUnavailableException cause = new RedisUnavailableException("down");
        CompletionException bare = new CompletionException("no cause", null);

        assertSame(cause, ScriptRunner.unwrap(new CompletionException(new ExecutionException(cause))));
        assertSame(cause, ScriptRunner.unwrap(cause));
        assertSame(bare, ScriptRunner.unwrap(bare));
        RuntimeException wrapper = new RuntimeException(cause);
        assertSame(wrapper, ScriptRunner.unwrap(wrapper));
    }

    @Test
    void asRuntime_keepsRuntimeExceptionsWrapsCheckedAndRethrowsErrors() {
        RedisUnavailableException runtime = new RedisUnavailableException("down");
        Exception checked = new IOException("io");

        assertSame(runtime, ScriptRunner.asRuntime(runtime));
        RuntimeException wrapped = ScriptRunner.asRuntime(checked);
        assertInstanceOf(RedisUnavailableException.class, wrapped);
        assertSame(checked, wrapped.getCause());
        AssertionError error = new AssertionError("an error");
        assertSame(error, assertThrows(AssertionError.class, () -> ScriptRunner.asRuntime(error)));
    }
}
