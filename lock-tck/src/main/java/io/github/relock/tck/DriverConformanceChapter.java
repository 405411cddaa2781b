package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.RedisErrorException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.NoScriptException;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 1: driver conformance. What every {@link CommandExecutor} must do for core to work on
 * it, checked against a real Redis through the driver alone (no lock code involved): reply
 * normalisation, the {@code NOSCRIPT} signal core's script cache depends on, error mapping, the
 * async variants, the single shared pub/sub connection, reconnection, and what {@code close()}
 * may and may not close.
 *
 * <p>Waiting is always on a condition with a deadline ({@link Await}, latches, futures with a
 * timeout), never a fixed sleep: the kit must pass on a loaded machine.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("driver-conformance")
@Tag("driver-conformance")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class DriverConformanceChapter extends TckChapter {
    private static final String KEYLESS_SCRIPTS = "a script without keys runs on any node of a cluster, so EVALSHA after"
            + " EVAL may reach one without it (core never sends one)";
    /** Generous: a loaded CI box may stall for seconds; a correct driver is far quicker. */
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    /** @param kit the enclosing kit */
    protected DriverConformanceChapter(DriverKit kit) {
        super(kit);
    }

    @BeforeEach
    void flushScripts() {
        redis("SCRIPT", "FLUSH");
    }

    // ------------------------------------------------------------------ 1.1 replies

    /**
     * Rule 1.1.1: nil, integer, bulk and status replies arrive as {@code null}, {@link Long} and
     * {@link String}. When it fails: look at how the driver converts the client's reply objects —
     * a {@code byte[]} left undecoded, an {@code Integer} instead of {@code Long}, or a status
     * reply turned into something other than its text.
     */
    @Test
    void rule1_1_1_eval_scalarReplies_normalisedToNullLongString() {
        CommandExecutor ex = kit.newExecutor();
        assertNull(ex.eval(ScriptCall.byText(script("return nil"), List.of(), List.of())), "nil reply");
        Object integer = ex.eval(ScriptCall.byText(script("return 42"), List.of(), List.of()));
        assertInstanceOf(Long.class, integer, "integer reply");
        assertEquals(42L, integer);
        assertEquals(-7L, ex.eval(ScriptCall.byText(script("return -7"), List.of(), List.of())));
        Object bulk = ex.eval(ScriptCall.byText(script("return ARGV[1]"), List.of(), List.of("a bulk string")));
        assertInstanceOf(String.class, bulk, "bulk reply");
        assertEquals("a bulk string", bulk);
        assertEquals("", ex.eval(ScriptCall.byText(script("return ''"), List.of(), List.of())), "empty bulk reply");
        Object status = ex.eval(ScriptCall.byText(script("return redis.status_reply('FINE')"), List.of(), List.of()));
        assertEquals("FINE", status, "status reply");
        assertEquals("OK", ex.eval(ScriptCall.byText(script("return redis.call('SET', KEYS[1], 'v')"), List.of("tck:status"), List.of())),
                "status reply of a command called by the script");
        assertEquals(1L, ex.eval(ScriptCall.byText(script("return true"), List.of(), List.of())), "Lua true is integer 1");
        assertNull(ex.eval(ScriptCall.byText(script("return false"), List.of(), List.of())), "Lua false is nil");
        redis("DEL", "tck:status");
    }

    /**
     * Rule 1.1.2: arrays arrive as {@code List<Object>} with every element normalised, at any
     * depth, and an empty array as an empty list (not {@code null}). When it fails: the driver
     * normalises only the top level, or maps an empty array to nil.
     */
    @Test
    void rule1_1_2_eval_arrayReplies_normalisedRecursively() {
        CommandExecutor ex = kit.newExecutor();
        Object empty = ex.eval(ScriptCall.byText(script("return {}"), List.of(), List.of()));
        assertEquals(List.of(), empty, "empty array");
        Object nested = ex.eval(ScriptCall.byText(script("return {1, 'a', {2, 'b', {}, {3}}, redis.status_reply('S')}"),
                List.of(), List.of()));
        assertEquals(List.of(1L, "a", List.of(2L, "b", List.of(), List.of(3L)), "S"), nested);
        for (Object o : (List<?>) nested) {
            assertTrue(o instanceof Long || o instanceof String || o instanceof List,
                    "element of type " + o.getClass().getName());
        }
    }

    /**
     * Rule 1.1.3: keys, args and replies are UTF-8, so non-ASCII names round-trip byte-exactly and
     * Redis sees UTF-8 bytes. When it fails: the driver encodes with the platform charset or
     * Latin-1, or decodes replies with it.
     */
    @Test
    void rule1_1_3_eval_nonAsciiKeysArgsReplies_utf8RoundTrip() {
        CommandExecutor ex = kit.newExecutor();
        String key = "tck:ключ:🔒";
        String value = "значение ü ✓ 🔑";
        Object reply = ex.eval(ScriptCall.byText(script("redis.call('SET', KEYS[1], ARGV[1]); "
                        + "return {KEYS[1], redis.call('GET', KEYS[1]), string.len(ARGV[1])}"),
                List.of(key), List.of(value)));
        assertEquals(List.of(key, value, (long) value.getBytes(StandardCharsets.UTF_8).length), reply,
                "the script must see UTF-8 bytes and the reply must decode them");
        assertEquals(value, redis("GET", key), "another client reads the same key and value");
        redis("DEL", key);
    }

    // ------------------------------------------------------------------ 1.2 scripts and NOSCRIPT

    /**
     * Rule 1.2.1: {@code eval} of a script the server never saw, sent by SHA
     * ({@code ScriptCall.bySha}), raises {@link NoScriptException}; after the same script sent by
     * text ({@code ScriptCall.byText}), the call by SHA runs it. Core relies on exactly this to fall
     * back to EVAL once. When it fails: the driver reports NOSCRIPT as a plain
     * {@link RedisErrorException} or as an unavailable server, or sends EVALSHA of a different
     * digest than {@link Script#sha1()}.
     */
    @Test
    void rule1_2_1_bySha_unknownScript_noScriptThenByTextCachesIt() {
        assumeNotCluster(KEYLESS_SCRIPTS);
        CommandExecutor ex = kit.newExecutor();
        Script s = script("return ARGV[1] .. '!'");
        NoScriptException e = assertThrows(NoScriptException.class, () -> ex.eval(ScriptCall.bySha(s, List.of(), List.of("x"))));
        assertEquals("NOSCRIPT", e.errorCode());
        assertEquals("x!", ex.eval(ScriptCall.byText(s, List.of(), List.of("x"))));
        assertEquals("y!", ex.eval(ScriptCall.bySha(s, List.of(), List.of("y"))), "EVAL must have cached the script under its SHA-1");
    }

    /**
     * Rule 1.2.2: after {@code SCRIPT FLUSH} (a restart or failover does the same), a call by SHA
     * raises {@link NoScriptException} again, so core can fall back to sending it by text. When it
     * fails: the driver caches "already loaded" itself and hides the flush, or swallows the error.
     */
    @Test
    void rule1_2_2_bySha_afterScriptFlush_coreCanFallBackToText() {
        assumeNotCluster(KEYLESS_SCRIPTS);
        CommandExecutor ex = kit.newExecutor();
        Script s = script("return 5");
        assertEquals(5L, ex.eval(ScriptCall.byText(s, List.of(), List.of())));
        assertEquals(5L, ex.eval(ScriptCall.bySha(s, List.of(), List.of())));
        redis("SCRIPT", "FLUSH");
        assertThrows(NoScriptException.class, () -> ex.eval(ScriptCall.bySha(s, List.of(), List.of())));
        assertEquals(5L, ex.eval(ScriptCall.byText(s, List.of(), List.of())));
        assertEquals(5L, ex.eval(ScriptCall.bySha(s, List.of(), List.of())));
    }

    // ------------------------------------------------------------------ 1.3 errors

    /**
     * Rule 1.3.1: an error reply becomes {@link RedisErrorException} whose {@code errorCode()} is
     * the reply's first word — from {@code redis.error_reply}, from a command the script called
     * ({@code WRONGTYPE}), and from a Lua runtime error ({@code ERR}) — and never a
     * {@link NoScriptException}. When it fails: the driver lets its client's exception type
     * escape, or rewrites the message so the code is lost.
     */
    @Test
    void rule1_3_1_eval_errorReplies_redisErrorExceptionWithCode() {
        CommandExecutor ex = kit.newExecutor();
        RedisErrorException custom = assertThrows(RedisErrorException.class,
                () -> ex.eval(ScriptCall.byText(script("return redis.error_reply('MYCODE something went wrong')"), List.of(), List.of())));
        assertEquals("MYCODE", custom.errorCode());
        assertFalse(custom instanceof NoScriptException);

        redis("SET", "tck:string", "v");
        RedisErrorException wrongType = assertThrows(RedisErrorException.class,
                () -> ex.eval(ScriptCall.byText(script("return redis.call('HGET', KEYS[1], 'f')"), List.of("tck:string"), List.of())));
        assertEquals("WRONGTYPE", wrongType.errorCode(), wrongType.getMessage());
        redis("DEL", "tck:string");

        RedisErrorException runtime = assertThrows(RedisErrorException.class,
                () -> ex.eval(ScriptCall.byText(script("error('boom')"), List.of(), List.of())));
        assertEquals("ERR", runtime.errorCode(), runtime.getMessage());
        assertFalse(runtime instanceof NoScriptException);
    }

    /**
     * Rule 1.3.2: {@code eval}, by text and by SHA, is not interruptible: an interrupted caller
     * still gets the script's reply and keeps its interrupt status, so a script that ran is never
     * reported as not run. When it fails: the driver checks {@code Thread.interrupted()} (which
     * clears the flag), or hands the call to another thread and waits interruptibly.
     */
    @Test
    void rule1_3_2_eval_interruptedCaller_getsReplyAndKeepsInterruptStatus() {
        CommandExecutor ex = kit.newExecutor();
        Script s = script("return redis.call('INCR', KEYS[1])");
        Thread.currentThread().interrupt();
        Object first;
        Object second;
        try {
            first = ex.eval(ScriptCall.byText(s, List.of("tck:interrupted"), List.of()));
            second = ex.eval(ScriptCall.bySha(s, List.of("tck:interrupted"), List.of()));
        } finally {
            boolean stillInterrupted = Thread.interrupted(); // clears it for the rest of the test
            assertTrue(stillInterrupted, "the driver cleared the caller's interrupt status");
        }
        assertEquals(1L, first);
        assertEquals(2L, second);
        redis("DEL", "tck:interrupted");
    }

    // ------------------------------------------------------------------ 1.4 async

    /**
     * Rule 1.4.1: {@code evalAsync}, by text and by SHA, gives the same normalised replies and the
     * same exception types as the blocking {@code eval} (as the future's cause). When it fails: the async
     * path skips normalisation or exception mapping, or throws instead of failing the future.
     */
    @Test
    void rule1_4_1_async_sameRepliesAndErrorsAsBlocking() throws Exception {
        assumeNotCluster(KEYLESS_SCRIPTS);
        CommandExecutor ex = kit.newExecutor();
        Script s = script("return {ARGV[1], 7, {}}");
        Throwable noScript = failureOf(ex.evalAsync(ScriptCall.bySha(s, List.of(), List.of("a")), Lane.APPLICATION));
        assertInstanceOf(NoScriptException.class, noScript, "evalAsync by SHA of an unknown script");
        assertEquals(List.of("a", 7L, List.of()), get(ex.evalAsync(ScriptCall.byText(s, List.of(), List.of("a")), Lane.APPLICATION)));
        assertEquals(List.of("b", 7L, List.of()), get(ex.evalAsync(ScriptCall.bySha(s, List.of(), List.of("b")), Lane.APPLICATION)));
        Throwable err = failureOf(ex.evalAsync(ScriptCall.byText(script("return redis.error_reply('ASYNCERR no')"), List.of(), List.of()), Lane.APPLICATION));
        assertInstanceOf(RedisErrorException.class, err);
        assertEquals("ASYNCERR", ((RedisErrorException) err).errorCode());
        assertNull(get(ex.evalAsync(ScriptCall.byText(script("return nil"), List.of(), List.of()), Lane.APPLICATION)));
    }

    /**
     * Rule 1.4.2: the async variants never block the caller and complete on a driver thread.
     * Proven without timing: the server is paused ({@code CLIENT PAUSE ... WRITE}), so no reply can come
     * until the kit unpauses it; the calls must still return, with futures not yet done, and
     * dependants registered before the unpause must run on a thread other than the caller's.
     * When it fails: the driver runs the call on the caller's thread (or waits for it there).
     */
    @Test
    void rule1_4_2_async_serverPaused_callerNotBlocked_completesOnDriverThread() throws Exception {
        assumeNotCluster("it pauses the node a keyless script goes to, which on a cluster is any");
        CommandExecutor ex = kit.newExecutor();
        Script s = script("return 'late'");
        ex.eval(ScriptCall.byText(s, List.of(), List.of())); // loads the script and warms the connection up
        Thread caller = Thread.currentThread();
        CompletableFuture<Object> viaSha;
        CompletableFuture<Object> viaEval;
        CompletableFuture<Map.Entry<Object, Thread>> shaDone;
        CompletableFuture<Map.Entry<Object, Thread>> evalDone;
        try (RespClient admin = kit.topology().adminFor("any")) {
            // WRITE, not ALL: scripts are held (EVAL/EVALSHA count as writes), CLIENT UNPAUSE is not
            admin.call("CLIENT", "PAUSE", Long.toString(DEADLINE.toMillis()), "WRITE");
            try {
                viaSha = ex.evalAsync(ScriptCall.bySha(s, List.of(), List.of()), Lane.APPLICATION);
                viaEval = ex.evalAsync(ScriptCall.byText(s, List.of(), List.of()), Lane.APPLICATION);
                // Dependants registered now run on whichever thread completes the future. The kit
                // never waits on viaSha/viaEval themselves: a waiting get() may run them itself.
                shaDone = viaSha.thenApply(r -> Map.entry(r, Thread.currentThread()));
                evalDone = viaEval.thenApply(r -> Map.entry(r, Thread.currentThread()));
                assertFalse(viaSha.isDone(), "evalAsync by SHA completed while the server was paused: it blocked the caller");
                assertFalse(viaEval.isDone(), "evalAsync by text completed while the server was paused: it blocked the caller");
            } finally {
                admin.call("CLIENT", "UNPAUSE");
            }
        }
        Map.Entry<Object, Thread> sha = get(shaDone);
        Map.Entry<Object, Thread> eval = get(evalDone);
        assertEquals("late", sha.getKey());
        assertEquals("late", eval.getKey());
        assertNotSame(caller, sha.getValue(), "evalAsync by SHA completed on the caller's thread");
        assertNotSame(caller, eval.getValue(), "evalAsync by text completed on the caller's thread");
    }

    // ------------------------------------------------------------------ 1.5 pub/sub

    /**
     * Rule 1.5.1: one executor multiplexes every channel over exactly <b>one</b> pub/sub
     * connection; each channel's messages reach that channel's listener with the payload intact;
     * after all are unsubscribed the server lists no channel (a driver may not leave a private
     * keep-alive channel visible). When it fails: count the connections in {@code CLIENT LIST}
     * (the driver opens one per channel or per batch), or check the channel name the driver passes
     * to the listener.
     */
    @Test
    void rule1_5_1_subscribe_200Channels_oneConnectionAndEveryMessageArrives() throws Exception {
        CommandExecutor ex = kit.newExecutor();
        int before = pubSubConnections();
        int n = 200;
        Map<String, String> received = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(n);
        List<CompletableFuture<Subscription>> subs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String ch = "tck:ch:" + i;
            subs.add(ex.subscribe(ch, false, (channel, message) -> {
                if (received.putIfAbsent(channel, message) == null) {
                    all.countDown();
                }
            }));
        }
        List<Subscription> live = new ArrayList<>();
        for (CompletableFuture<Subscription> f : subs) {
            live.add(get(f));
        }
        for (int i = 0; i < n; i++) {
            assertEquals("tck:ch:" + i, live.get(i).channel());
        }
        assertEquals(before + 1, pubSubConnections(),
                "200 channels must share one pub/sub connection; CLIENT LIST:\n" + redis("CLIENT", "LIST"));
        for (int i = 0; i < n; i++) {
            assertEquals(1L, redis("PUBLISH", "tck:ch:" + i, "m-" + i + "-ü"), "subscribers of tck:ch:" + i);
        }
        assertTrue(all.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS),
                "messages arrived on " + received.size() + " of " + n + " channels");
        for (int i = 0; i < n; i++) {
            assertEquals("m-" + i + "-ü", received.get("tck:ch:" + i), "payload on tck:ch:" + i);
        }
        for (Subscription s : live) {
            get(s.unsubscribe());
        }
        assertEquals(List.of(), redis("PUBSUB", "CHANNELS"),
                "after every unsubscribe completed the server must list no channel");
    }

    /**
     * Rule 1.5.2: when {@code unsubscribe()} completes, Redis no longer routes the channel to this
     * executor (PUBLISH counts no receiver) and the listener gets nothing more; a second
     * {@code unsubscribe()} is harmless; the channel can be subscribed again. When it fails: the
     * driver completes the future before Redis confirmed, or forgets to detach the listener.
     */
    @Test
    void rule1_5_2_unsubscribe_completesAfterServerConfirms_andChannelCanBeReused() throws Exception {
        CommandExecutor ex = kit.newExecutor();
        AtomicInteger afterUnsubscribe = new AtomicInteger();
        AtomicReference<CompletableFuture<Void>> unsubscribed = new AtomicReference<>();
        BlockingListener first = new BlockingListener();
        Subscription s = get(ex.subscribe("tck:reuse", false, (c, m) -> {
            CompletableFuture<Void> u = unsubscribed.get();
            if (u != null && u.isDone()) {
                afterUnsubscribe.incrementAndGet();
            }
            first.onMessage(c, m);
        }));
        assertEquals(1L, redis("PUBLISH", "tck:reuse", "one"));
        assertEquals("one", first.next());
        unsubscribed.set(s.unsubscribe());
        get(unsubscribed.get());
        get(s.unsubscribe()); // idempotent
        assertEquals(0L, redis("PUBLISH", "tck:reuse", "nobody"), "still subscribed after unsubscribe completed");
        BlockingListener second = new BlockingListener();
        Subscription again = get(ex.subscribe("tck:reuse", false, second));
        assertEquals(1L, redis("PUBLISH", "tck:reuse", "two"));
        try {
            String m = second.next();
            if (kit.topology().kind() == RedisTopology.Kind.CLUSTER) {
                // A cluster spreads a PUBLISH to the other nodes over its bus, later: "one" and
                // "nobody" may reach the node of the new subscription after it was made, in the
                // order they were published. That is not a message lost or duplicated.
                List<String> late = new ArrayList<>(List.of("one", "nobody"));
                while (!m.equals("two") && late.contains(m)) {
                    late.subList(0, late.indexOf(m) + 1).clear();
                    m = second.next();
                }
            }
            assertEquals("two", m);
            assertEquals(0, afterUnsubscribe.get(), "the first listener got a message after its unsubscribe completed");
        } finally {
            get(again.unsubscribe());
        }
    }

    /**
     * Rule 1.5.3: subscribe and unsubscribe from several threads at once, each channel in order
     * (as core issues them), ends with every future completed and no channel left. When it fails:
     * a race in the driver's pub/sub bookkeeping — typically the first subscribe or last
     * unsubscribe of a connection, or a confirmation matched to the wrong request.
     */
    @Test
    void rule1_5_3_subscribeUnsubscribe_concurrentChurn_allConfirmedNothingLeft() throws Exception {
        CommandExecutor ex = kit.newExecutor();
        int threads = 4;
        int rounds = 40;
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String ch = "tck:churn:" + t;
            workers.add(CompletableFuture.runAsync(() -> {
                for (int r = 0; r < rounds; r++) {
                    try {
                        Subscription s = get(ex.subscribe(ch, false, (c, m) -> { }));
                        get(s.unsubscribe());
                    } catch (Exception e) {
                        throw new AssertionError("round " + r + " on " + ch, e);
                    }
                }
            }));
        }
        for (CompletableFuture<Void> w : workers) {
            w.get(DEADLINE.toMillis() * 2, TimeUnit.MILLISECONDS);
        }
        assertEquals(List.of(), redis("PUBSUB", "CHANNELS"));
    }

    /**
     * Rule 1.5.4: after the server drops the pub/sub connection ({@code CLIENT KILL TYPE pubsub}),
     * the driver reconnects, subscribes every live channel again, then calls
     * {@code onReconnect()}; messages flow again. When it fails: the driver does not notice the
     * broken connection, does not resubscribe, or calls {@code onReconnect()} before the
     * channels are back (check {@code PUBSUB NUMSUB} at that moment).
     */
    @Test
    void rule1_5_4_pubsubConnectionKilled_reconnectsResubscribesAndCallsOnReconnect() throws Exception {
        CommandExecutor ex = kit.newExecutor();
        List<String> channels = List.of("tck:rc:a", "tck:rc:b", "tck:rc:c");
        CountDownLatch reconnected = new CountDownLatch(1);
        AtomicReference<String> stateAtReconnect = new AtomicReference<>();
        ex.setConnectionListener(() -> {
            stateAtReconnect.compareAndSet(null, String.valueOf(numsub(channels)));
            reconnected.countDown();
        });
        Map<String, BlockingListener> listeners = new ConcurrentHashMap<>();
        List<Subscription> subs = new ArrayList<>();
        for (String ch : channels) {
            BlockingListener l = new BlockingListener();
            listeners.put(ch, l);
            subs.add(get(ex.subscribe(ch, false, l)));
        }
        assertEquals(1L, redis("PUBLISH", "tck:rc:a", "before"));
        assertEquals("before", listeners.get("tck:rc:a").next());

        Object killed = redis("CLIENT", "KILL", "TYPE", "pubsub");
        assertTrue(((Long) killed) >= 1, "CLIENT KILL TYPE pubsub found no pub/sub connection to kill");
        assertTrue(reconnected.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS), "onReconnect() was not called");
        assertEquals(String.valueOf(List.of(1L, 1L, 1L)), stateAtReconnect.get(),
                "PUBSUB NUMSUB of the channels when onReconnect() ran: every channel must be back first");
        for (String ch : channels) {
            assertEquals(1L, redis("PUBLISH", ch, "after-" + ch), "subscribers of " + ch + " after the reconnect");
            assertEquals("after-" + ch, listeners.get(ch).next());
        }
        for (Subscription s : subs) {
            get(s.unsubscribe());
        }
    }

    /**
     * Rule 1.5.6: channels unsubscribed while the driver resubscribes after a reconnect are not left
     * subscribed, then or after the next reconnect. When it fails: the resubscribe's SUBSCRIBE went
     * out after the unsubscribe's UNSUBSCRIBE (the resubscribe iterated a snapshot of the channels
     * without re-checking them), so Redis, and the client's own resubscribe list, keep a channel
     * nobody listens to.
     */
    @Test
    void rule1_5_6_unsubscribeDuringResubscribe_leavesNothingSubscribed() throws Exception {
        CommandExecutor ex = kit.newExecutor();
        for (int round = 0; round < 5; round++) {
            List<Subscription> subs = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                subs.add(get(ex.subscribe("tck:rs:" + i, false, (c, m) -> { })));
            }
            redis("CLIENT", "KILL", "TYPE", "pubsub");
            List<CompletableFuture<Void>> gone = new ArrayList<>();
            for (Subscription s : subs) {
                gone.add(s.unsubscribe());
            }
            for (CompletableFuture<Void> g : gone) {
                g.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
            Await.until(DEADLINE, () -> ((List<?>) redis("PUBSUB", "CHANNELS", "tck:rs:*")).isEmpty(),
                    () -> "still subscribed after unsubscribing during a resubscribe: " + redis("PUBSUB", "CHANNELS", "tck:rs:*"));
        }
        get(ex.subscribe("tck:rs:probe", false, (c, m) -> { })).unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        redis("CLIENT", "KILL", "TYPE", "pubsub");
        Await.holdsFor(Duration.ofSeconds(2), () -> ((List<?>) redis("PUBSUB", "CHANNELS", "tck:rs:*")).isEmpty(),
                () -> "a reconnect subscribed channels nobody listens to: " + redis("PUBSUB", "CHANNELS", "tck:rs:*"));
    }

    /**
     * Rule 1.5.7: sharded subscriptions to channels of many slots, asked for at once (so a driver
     * may batch them), are each confirmed, each hears its {@code SPUBLISH}, and unsubscribing
     * them at once leaves no sharded channel; round after round. When it fails: a batch mixed
     * slots in one {@code SSUBSCRIBE}/{@code SUNSUBSCRIBE} (a cluster answers {@code CROSSSLOT}
     * and the subscriptions fail, or never complete), or the driver lost track of a channel after
     * such a failure ("already subscribed").
     */
    @Test
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "needs a cluster and SHARDED_PUBSUB; the broken-driver"
            + " self-test runs on one server, where no batch can mix slots")
    void rule1_5_7_shardedSubscriptions_manySlotsAtOnce_allConfirmedAndHeard() throws Exception {
        CommandExecutor ex = kit.newExecutor();
        org.junit.jupiter.api.Assumptions.assumeTrue(ex.capabilities().contains(Capability.SHARDED_PUBSUB),
                "the driver does not declare SHARDED_PUBSUB");
        for (int round = 0; round < 5; round++) {
            Map<String, BlockingListener> listeners = new java.util.LinkedHashMap<>();
            List<CompletableFuture<Subscription>> asked = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                String ch = "tck:ss:" + round + ":" + i; // 24 names: many slots, several per node
                BlockingListener l = new BlockingListener();
                listeners.put(ch, l);
                asked.add(ex.subscribe(ch, true, l));
            }
            List<Subscription> subs = new ArrayList<>();
            for (CompletableFuture<Subscription> f : asked) {
                subs.add(get(f));
            }
            for (Map.Entry<String, BlockingListener> e : listeners.entrySet()) {
                redis("SPUBLISH", e.getKey(), "m-" + e.getKey());
                assertEquals("m-" + e.getKey(), e.getValue().next(), "the message on " + e.getKey());
            }
            List<CompletableFuture<Void>> gone = new ArrayList<>();
            subs.forEach(sub -> gone.add(sub.unsubscribe()));
            for (CompletableFuture<Void> g : gone) {
                g.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
            Await.until(DEADLINE, () -> ((List<?>) redis("PUBSUB", "SHARDCHANNELS", "tck:ss:*")).isEmpty(),
                    () -> "still subscribed: " + redis("PUBSUB", "SHARDCHANNELS", "tck:ss:*"));
        }
    }

    /**
     * Rule 1.5.5: optional abilities are declared, not guessed: without
     * {@link Capability#SHARDED_PUBSUB} a sharded subscribe fails loudly with
     * {@link UnsupportedOperationException}; without {@link Capability#REPLICA_WAIT}
     * {@code evalShaWithWait} does; with it, the script's reply comes first and WAIT's count
     * second (0 on a single server, any count of replicas that already acknowledged elsewhere), and an unknown script still raises {@link NoScriptException}.
     * When it fails: the driver quietly degrades (e.g. subscribes unsharded) instead of refusing.
     */
    @Test
    void rule1_5_5_capabilities_undeclaredFailLoudly_declaredWork() throws Exception {
        CommandExecutor ex = kit.newExecutor();
        assertNotNull(ex.capabilities(), "capabilities() must not be null");
        if (!ex.capabilities().contains(Capability.SHARDED_PUBSUB)) {
            try {
                CompletableFuture<Subscription> f = ex.subscribe("tck:sharded", true, (c, m) -> { });
                assertInstanceOf(UnsupportedOperationException.class, failureOf(f),
                        "sharded subscribe without SHARDED_PUBSUB");
            } catch (UnsupportedOperationException expected) {
                // thrown at once: fine
            }
        }
        Script s = script("return ARGV[1]");
        if (ex.capabilities().contains(Capability.REPLICA_WAIT)) {
            assertThrows(NoScriptException.class, () -> ex.evalShaWithWait(s, List.of("tck:w"), List.of("v"), 0, 100));
            ex.eval(ScriptCall.byText(s, List.of("tck:w"), List.of("v")));
            List<?> reply = ex.evalShaWithWait(s, List.of("tck:w"), List.of("v"), 0, 100);
            assertEquals("v", reply.get(0), "the script's reply comes first");
            assertInstanceOf(Long.class, reply.get(1), "WAIT's count comes second");
            if (kit.topology().kind() == RedisTopology.Kind.SINGLE) {
                assertEquals(0L, reply.get(1), "a single server has no replica to acknowledge");
            } else {
                // WAIT 0 returns at once with the replicas that already acknowledged: any of them
                assertTrue((Long) reply.get(1) >= 0, () -> "negative replica count " + reply);
            }
        } else {
            assertThrows(UnsupportedOperationException.class,
                    () -> ex.evalShaWithWait(s, List.of("tck:w"), List.of("v"), 0, 100));
        }
    }

    /**
     * Rule 1.5.8: with {@link Capability#REPLICA_WAIT}, {@code evalWithWaitAsync} sends the script
     * and then {@code WAIT} on the node that ran it, and its future carries both replies together:
     * the script's (its write done) first, WAIT's own count second. On one server (no replica)
     * WAIT 1 answers 0 once its 100 ms are up, and the server counted one more {@code WAIT} call;
     * on a deployment with replicas, WAIT for the key's node's connected replicas answers that
     * count (they acknowledge at once; 5 s at most). Skips for a driver without the capability.
     * When it fails: the driver dropped the WAIT or made up its count (e.g. answered the count it
     * was asked for): core would tell a lock write acknowledged by replicas that never saw it.
     */
    @Test
    void rule1_5_8_evalWithWaitAsync_scriptReplyAndWaitsOwnCountTogether() throws Exception {
        CommandExecutor ex = kit.newExecutor();
        assumeTrue(ex.capabilities().contains(Capability.REPLICA_WAIT),
                "the driver declares no REPLICA_WAIT: core never asks it to wait for replicas");
        String key = "tck:wait:" + UUID.randomUUID();
        Script s = script("redis.call('SET', KEYS[1], ARGV[1])\nreturn ARGV[1]");
        ex.eval(ScriptCall.byText(s, List.of(key), List.of("loaded")));
        boolean single = kit.topology().kind() == RedisTopology.Kind.SINGLE;
        int replicas = single ? 1 : connectedReplicas(ex.replicationInfo(key));
        long waitsBefore = single ? waitCalls() : 0;
        List<Object> reply = get(ex.evalWithWaitAsync(ScriptCall.bySha(s, List.of(key), List.of("v")), replicas,
                single ? 100 : 5_000, Lane.APPLICATION));
        try {
            assertEquals(2, reply.size(), () -> "the script's reply and WAIT's count, got " + reply);
            assertEquals("v", reply.get(0), "the script's reply comes first");
            assertEquals("v", String.valueOf(redis("GET", key)), "the script ran: its write is there");
            assertInstanceOf(Long.class, reply.get(1), "WAIT's count comes second, as a Long");
            if (single) {
                assertEquals(0L, reply.get(1), "one server has no replica to acknowledge: WAIT 1 answers 0;"
                        + " another count did not come from WAIT");
                assertTrue(waitCalls() > waitsBefore, "the server counted no WAIT call: the driver never sent it");
            } else {
                assertEquals((long) replicas, reply.get(1), "WAIT " + replicas + " on a node with " + replicas
                        + " connected replicas answers that count once they acknowledged");
            }
        } finally {
            redis("DEL", key);
        }
    }

    /** @return {@code connected_slaves} of an {@code INFO replication} text (0 when absent) */
    private static int connectedReplicas(String info) {
        return info.lines().filter(l -> l.startsWith("connected_slaves:"))
                .mapToInt(l -> Integer.parseInt(l.substring("connected_slaves:".length()).strip())).findFirst().orElse(0);
    }

    /** @return the calls of {@code WAIT} the one server counted ({@code INFO commandstats}) */
    private long waitCalls() {
        String stats = String.valueOf(redis("INFO", "commandstats"));
        return stats.lines().filter(l -> l.startsWith("cmdstat_wait:calls=")).mapToLong(l -> Long.parseLong(
                l.substring("cmdstat_wait:calls=".length(), l.indexOf(',')))).findFirst().orElse(0L);
    }

    // ------------------------------------------------------------------ 1.6 close

    /**
     * Rule 1.6.1: {@code close()} ends every thread the driver started (none named
     * {@code relock-*} is left), releases its pub/sub subscriptions, is idempotent, and does not
     * close the native client it was handed: that client still works. When it fails: list the
     * surviving threads in the message, and check that the driver's close does not call the
     * client's own close.
     */
    @Test
    void rule1_6_1_close_endsDriverThreadsAndKeepsHandedClientOpen() throws Exception {
        assumeNotCluster(KEYLESS_SCRIPTS);
        Object nativeClient = kit.nativeClient();
        DriverOptions options = new DriverOptions(Duration.ofSeconds(5), "relock-tck");
        CommandExecutor ex = kit.provider().create(nativeClient, options);
        Script s = script("return 1");
        assertEquals(1L, ex.eval(ScriptCall.byText(s, List.of(), List.of())));
        assertEquals(1L, get(ex.evalAsync(ScriptCall.bySha(s, List.of(), List.of()), Lane.APPLICATION)));
        BlockingListener l = new BlockingListener();
        get(ex.subscribe("tck:close", false, l));
        assertEquals(1L, redis("PUBLISH", "tck:close", "x"));
        assertEquals("x", l.next());

        ex.close();
        ex.close(); // idempotent
        Await.until(DEADLINE, () -> RelockTck.relockThreads().isEmpty(),
                () -> "threads left after close(): " + RelockTck.relockThreads());
        Await.until(DEADLINE, () -> channels().isEmpty(), () -> "channels left after close(): " + channels());

        CommandExecutor again = kit.closeAfterTest(kit.provider().create(nativeClient, options));
        assertEquals(1L, again.eval(ScriptCall.byText(s, List.of(), List.of())), "the handed client must still work after close()");
    }

    // ------------------------------------------------------------------ helpers

    /** @return a script with a unique comment, so no other test has cached it */
    private static Script script(String body) {
        return new Script("tck-" + UUID.randomUUID(), "-- " + UUID.randomUUID() + "\n" + body);
    }

    private static <T> T get(Future<T> f) throws Exception {
        try {
            return f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("not completed within " + DEADLINE.toMillis() + " ms", e);
        }
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            Object v = f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            return fail("expected the future to fail, it completed with " + v);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("not completed within " + DEADLINE.toMillis() + " ms", e);
        }
    }

    /**
     * @return how many connections are in pub/sub mode right now ({@code CLIENT LIST}), not
     *     counting Sentinel's own links to the server (named {@code sentinel-<id>-pubsub}), which a
     *     sentinel drops and reopens on its own schedule
     */
    private int pubSubConnections() {
        String list = (String) redis("CLIENT", "LIST");
        int n = 0;
        for (String line : list.split("\n")) {
            if (line.isBlank() || line.contains(" name=sentinel-")) {
                continue;
            }
            boolean sub = false;
            for (String field : line.trim().split(" ")) {
                if ((field.startsWith("sub=") || field.startsWith("psub=") || field.startsWith("ssub="))
                        && !field.endsWith("=0")) {
                    sub = true;
                }
                if (field.startsWith("flags=") && field.substring(6).contains("P")) {
                    sub = true;
                }
            }
            if (sub) {
                n++;
            }
        }
        return n;
    }

    private List<?> numsub(List<String> channels) {
        List<String> cmd = new ArrayList<>(List.of("PUBSUB", "NUMSUB"));
        cmd.addAll(channels);
        List<?> reply = (List<?>) redis(cmd.toArray(new String[0]));
        List<Object> counts = new ArrayList<>();
        for (int i = 1; i < reply.size(); i += 2) {
            counts.add(reply.get(i));
        }
        return counts;
    }

    /** Collects messages for the test thread to take with a deadline. */
    private static final class BlockingListener implements MessageListener {
        private final java.util.concurrent.LinkedBlockingQueue<String> messages = new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public void onMessage(String channel, String message) {
            messages.add(message);
        }

        String next() throws InterruptedException {
            String m = messages.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            if (m == null) {
                throw new AssertionError("no message within " + DEADLINE.toMillis() + " ms");
            }
            return m;
        }
    }
}
