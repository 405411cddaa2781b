package io.github.relock.driver.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.NoScriptException;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.lettuce.core.RedisClient;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Script execution on a standalone server: reply normalisation, errors, NOSCRIPT, threads, interrupts. */
class ScriptExecutionTest {
    private static final String UNICODE = "héllo ✓ 日本語 🔒 ß";

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void flush() {
        TestRedis.reset();
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private CommandExecutor executor(ProtocolVersion protocol) {
        RedisClient client = TestRedis.client(protocol);
        toClose.add(client::shutdown);
        CommandExecutor e = TestRedis.executor(client);
        toClose.add(e);
        return e;
    }

    private static Object evalBothWays(CommandExecutor e, String lua, List<String> keys, List<String> args) {
        Script s = new Script("t", lua);
        Object viaEval = e.eval(ScriptCall.byText(s, keys, args));
        Object viaSha = e.eval(ScriptCall.bySha(s, keys, args)); // cached by the EVAL just before
        Object viaAsync = TestRedis.get(e.evalAsync(ScriptCall.bySha(s, keys, args), Lane.APPLICATION));
        Object viaEvalAsync = TestRedis.get(e.evalAsync(ScriptCall.byText(s, keys, args), Lane.APPLICATION));
        assertEquals(viaEval, viaSha, lua);
        assertEquals(viaEval, viaAsync, lua);
        assertEquals(viaEval, viaEvalAsync, lua);
        return viaEval;
    }

    private static Object run(CommandExecutor e, String lua) {
        return evalBothWays(e, lua, List.of(), List.of());
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void replies_scalars_normalised(ProtocolVersion protocol) {
        CommandExecutor e = executor(protocol);
        assertNull(run(e, "return nil"));
        assertNull(run(e, "return false"));
        assertEquals(1L, run(e, "return true"));
        assertEquals(42L, run(e, "return 42"));
        assertEquals(-7L, run(e, "return -7"));
        assertEquals(3L, run(e, "return 3.7"), "Lua numbers are truncated to integers by Redis");
        // Lua numbers are doubles: 2^53 is the largest integer a script can return exactly
        assertEquals(1L << 53, run(e, "redis.call('SET', 'big', '9007199254740992') return redis.call('INCRBY', 'big', '0')"));
        assertEquals("", run(e, "return ''"));
        assertEquals("plain", run(e, "return 'plain'"));
        assertEquals("OK", run(e, "return redis.status_reply('OK')"));
        assertEquals("OK", run(e, "return redis.call('SET', 'k', 'v')"));
        assertEquals("PONG", run(e, "return redis.call('PING')"));
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void replies_utf8_roundTrips_keysArgsAndScriptText(ProtocolVersion protocol) {
        CommandExecutor e = executor(protocol);
        assertEquals(UNICODE, evalBothWays(e, "return ARGV[1]", List.of(), List.of(UNICODE)));
        assertEquals(UNICODE + ":k", evalBothWays(e, "return KEYS[1]", List.of(UNICODE + ":k"), List.of()));
        // non-ASCII in the script source: the SHA-1 of the UTF-8 text must match what Redis computed
        Script s = new Script("utf8", "-- vérrou ✓\nreturn '" + UNICODE + "'");
        assertEquals(UNICODE, e.eval(ScriptCall.byText(s, List.of(), List.of())));
        assertEquals(UNICODE, e.eval(ScriptCall.bySha(s, List.of(), List.of())));
        evalBothWays(e, "return redis.call('SET', KEYS[1], ARGV[1])", List.of("u"), List.of(UNICODE));
        assertEquals(UNICODE, TestRedis.server().call("GET", "u"));
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void replies_arrays_nestedAndWithNils(ProtocolVersion protocol) {
        CommandExecutor e = executor(protocol);
        assertEquals(List.of(), run(e, "return {}"));
        assertEquals(List.of(42L), run(e, "return {42}"), "a one-element array is not its element");
        assertEquals(Arrays.asList(1L, "a", List.of(2L, "b", List.of(), List.of(List.of(UNICODE))), null, 1L),
                evalBothWays(e, "return {1, 'a', {2, 'b', {}, {{ARGV[1]}}}, false, true}", List.of(), List.of(UNICODE)));
        assertEquals(List.of(1L), run(e, "return {1, nil, 3}"), "Lua stops an array at the first nil");
        assertEquals(Arrays.asList(null, null), run(e, "return {false, false}"));
        assertEquals(List.of("OK", 5L), run(e, "return {redis.status_reply('OK'), 5}"));
        TestRedis.server().call("HSET", "h", "f1", "v1");
        assertEquals(List.of("f1", "v1"), run(e, "return redis.call('HGETALL', 'h')"));
        Object list = run(e, "local t = {} for i = 1, 300 do t[i] = {i, tostring(i)} end return t");
        assertEquals(300, ((List<?>) list).size());
        assertEquals(List.of(300L, "300"), ((List<?>) list).get(299));
        List<?> types = (List<?>) run(e, "return {nil}");
        assertTrue(types.isEmpty());
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void replies_resp3ScriptTypes_foldedAsForResp2Clients(ProtocolVersion protocol) {
        CommandExecutor e = executor(protocol);
        TestRedis.server().call("HSET", "h", "f1", "v1");
        assertEquals(List.of("f1", "v1"), run(e, "redis.setresp(3) return redis.call('HGETALL', 'h')"));
        assertEquals(1L, run(e, "redis.setresp(3) return redis.call('EXISTS', 'h') == 1"));
        Object d = run(e, "return {double = 3.5}");
        assertEquals("3.5", d);
    }

    @Test
    void noScript_thenEvalLoads_thenEvalShaWorks() {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        Script s = new Script("incr", "return redis.call('INCR', KEYS[1])");
        NoScriptException sync = assertThrows(NoScriptException.class, () -> e.eval(ScriptCall.bySha(s, List.of("n"), List.of())));
        assertEquals("NOSCRIPT", sync.errorCode());
        assertInstanceOf(NoScriptException.class, TestRedis.failureOf(e.evalAsync(ScriptCall.bySha(s, List.of("n"), List.of()), Lane.APPLICATION)));
        assertEquals(1L, e.eval(ScriptCall.byText(s, List.of("n"), List.of())));
        assertEquals(2L, e.eval(ScriptCall.bySha(s, List.of("n"), List.of())));
        assertEquals(3L, TestRedis.get(e.evalAsync(ScriptCall.bySha(s, List.of("n"), List.of()), Lane.APPLICATION)));
        TestRedis.server().call("SCRIPT", "FLUSH");
        assertThrows(NoScriptException.class, () -> e.eval(ScriptCall.bySha(s, List.of("n"), List.of())));
        assertEquals(4L, TestRedis.get(e.evalAsync(ScriptCall.byText(s, List.of("n"), List.of()), Lane.APPLICATION)));
        assertEquals(5L, e.eval(ScriptCall.bySha(s, List.of("n"), List.of())));
    }

    @Test
    void errorReplies_becomeRedisErrorException_withCode() {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        Script custom = new Script("custom", "return redis.error_reply('MYERR boom ✓')");
        RedisErrorException ex = assertThrows(RedisErrorException.class, () -> e.eval(ScriptCall.byText(custom, List.of(), List.of())));
        assertFalse(ex instanceof NoScriptException);
        assertEquals("MYERR", ex.errorCode());
        assertTrue(ex.getMessage().contains("boom ✓"), ex.getMessage());

        TestRedis.server().call("SET", "str", "x");
        Script wrongType = new Script("wrongtype", "return redis.call('HSET', KEYS[1], 'f', 'v')");
        RedisErrorException wt = assertThrows(RedisErrorException.class, () -> e.eval(ScriptCall.byText(wrongType, List.of("str"), List.of())));
        assertEquals("WRONGTYPE", wt.errorCode());
        Throwable async = TestRedis.failureOf(e.evalAsync(ScriptCall.byText(wrongType, List.of("str"), List.of()), Lane.APPLICATION));
        assertEquals(RedisErrorException.class, async.getClass(), "no CompletionException wrapper");
        assertEquals("WRONGTYPE", ((RedisErrorException) async).errorCode());

        Script nested = new Script("nested", "return {1, redis.error_reply('NESTED inside')}");
        assertEquals("NESTED", assertThrows(RedisErrorException.class, () -> e.eval(ScriptCall.byText(nested, List.of(), List.of()))).errorCode());
        Script syntax = new Script("syntax", "return (");
        assertEquals("ERR", assertThrows(RedisErrorException.class, () -> e.eval(ScriptCall.byText(syntax, List.of(), List.of()))).errorCode());
        // the connection is still usable afterwards
        assertEquals(1L, e.eval(ScriptCall.byText(new Script("one", "return 1"), List.of(), List.of())));
    }

    @Test
    void async_doesNotBlockCaller_andCompletesOnAnotherThread() throws Exception {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        Script s = new Script("one", "return 1");
        e.eval(ScriptCall.byText(s, List.of(), List.of())); // load, and connect
        TestRedis.server().call("CLIENT", "PAUSE", "300", "ALL"); // holds the reply back
        Thread caller = Thread.currentThread();
        CompletableFuture<Object> f = e.evalAsync(ScriptCall.bySha(s, List.of(), List.of()), Lane.APPLICATION);
        AtomicReference<Thread> completer = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        f.whenComplete((v, ex) -> {
            completer.set(Thread.currentThread());
            done.countDown();
        });
        assertTrue(done.await(20, TimeUnit.SECONDS));
        assertEquals(1L, f.get());
        assertNotSame(caller, completer.get());
    }

    @Test
    void sync_interruptedCaller_stillGetsReply_andKeepsInterruptFlag() throws Exception {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        Script incr = new Script("incr", "return redis.call('INCR', KEYS[1])");
        e.eval(ScriptCall.byText(incr, List.of("n"), List.of()));
        AtomicReference<Object> reply = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        TestRedis.server().call("CLIENT", "PAUSE", "300", "ALL");
        Thread t = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                reply.set(e.eval(ScriptCall.bySha(incr, List.of("n"), List.of())));
            } catch (Throwable ex) {
                failure.set(ex);
            }
            flag.set(Thread.currentThread().isInterrupted());
        }, "interrupted-caller");
        t.start();
        t.interrupt(); // once more while it waits
        t.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(t.isAlive());
        assertNull(failure.get());
        assertEquals(2L, reply.get());
        assertTrue(flag.get(), "interrupt status kept");
        assertEquals("2", TestRedis.server().call("GET", "n"));
    }

    @Test
    void timeout_syncAndAsync_becomeRedisUnavailable() {
        RedisClient client = TestRedis.client();
        toClose.add(client::shutdown);
        CommandExecutor e = new LettuceDriverProvider().create(client,
                new DriverOptions(Duration.ofMillis(200), TestRedis.NAME));
        toClose.add(e);
        Script s = new Script("one", "return 1");
        e.eval(ScriptCall.byText(s, List.of(), List.of()));
        TestRedis.server().call("CLIENT", "PAUSE", "2000", "ALL");
        try {
            assertThrows(RedisUnavailableException.class, () -> e.eval(ScriptCall.bySha(s, List.of(), List.of())));
            assertEquals(RedisUnavailableException.class, TestRedis.failureOf(e.evalAsync(ScriptCall.bySha(s, List.of(), List.of()), Lane.APPLICATION)).getClass());
        } finally {
            TestRedis.server().call("PING"); // returns once the pause is over
        }
        TestRedis.await("executor answers again", () -> {
            try {
                return Long.valueOf(1L).equals(e.eval(ScriptCall.bySha(s, List.of(), List.of())));
            } catch (RedisUnavailableException stillDraining) {
                return false;
            }
        });
    }

    @Test
    void evalShaWithWait_returnsScriptReplyThenWaitReply() {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        assertTrue(e.capabilities().contains(Capability.REPLICA_WAIT));
        Script s = new Script("set", "return redis.call('SET', KEYS[1], ARGV[1])");
        assertThrows(NoScriptException.class, () -> e.evalShaWithWait(s, List.of("w"), List.of("v"), 0, 0));
        e.eval(ScriptCall.byText(s, List.of("w"), List.of("v0")));
        assertEquals(Arrays.asList("OK", 0L), e.evalShaWithWait(s, List.of("w"), List.of("v1"), 0, 0));
        assertEquals(Arrays.asList("OK", 0L), e.evalShaWithWait(s, List.of("w"), List.of("v2"), 1, 10));
        assertEquals("v2", TestRedis.server().call("GET", "w"));
        assertThrows(IllegalArgumentException.class, () -> e.evalShaWithWait(s, List.of("w"), List.of(), -1, 0));
        assertThrows(IllegalArgumentException.class, () -> e.evalShaWithWait(s, List.of("w"), List.of(), 0, -1));
    }

    @Test
    void capabilities_standaloneRedis7() {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        assertEquals(java.util.EnumSet.of(Capability.REPLICA_WAIT, Capability.SHARDED_PUBSUB), e.capabilities());
        assertThrows(UnsupportedOperationException.class, () -> e.capabilities().add(Capability.CLUSTER));
    }

    @Test
    void nullArguments_rejectedWithTheirName() {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        Script s = new Script("one", "return 1");
        NullPointerException npe = assertThrows(NullPointerException.class, () -> e.eval(null));
        assertTrue(npe.getMessage().contains("call"), npe.getMessage());
        npe = assertThrows(NullPointerException.class, () -> e.evalAsync(null, Lane.APPLICATION));
        assertTrue(npe.getMessage().contains("call"), npe.getMessage());
        npe = assertThrows(NullPointerException.class, () -> e.evalAsync(ScriptCall.byText(s, List.of(), List.of()), null));
        assertTrue(npe.getMessage().contains("lane"), npe.getMessage());
    }
}
