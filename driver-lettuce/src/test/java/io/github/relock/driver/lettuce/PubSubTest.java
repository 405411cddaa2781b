package io.github.relock.driver.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.lettuce.core.RedisClient;
import io.lettuce.core.protocol.ProtocolVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The shared pub/sub connection: multiplexing, unsubscribe, sharded channels, reconnect. */
class PubSubTest {
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
        TestRedis.await("no channels left subscribed", () -> ((List<?>) TestRedis.server().call("PUBSUB", "CHANNELS")).isEmpty());
    }

    private CommandExecutor executor(ProtocolVersion protocol) {
        RedisClient client = TestRedis.client(protocol);
        toClose.add(client::shutdown);
        CommandExecutor e = TestRedis.executor(client);
        toClose.add(e);
        return e;
    }

    private static long publish(String channel, String message) {
        return (Long) TestRedis.server().call("PUBLISH", channel, message);
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void manyChannels_shareOnePubSubConnection_andEachGetsItsMessages(ProtocolVersion protocol) throws Exception {
        CommandExecutor e = executor(protocol);
        int n = 200;
        Map<String, String> received = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(n);
        List<CompletableFuture<Subscription>> subs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            subs.add(e.subscribe("relock_ch:" + i, false, (ch, msg) -> {
                if (received.put(ch, msg) == null) {
                    all.countDown();
                }
            }));
        }
        CompletableFuture.allOf(subs.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertEquals(1, TestRedis.pubSubConnections(), "one pub/sub connection for all channels");
        assertEquals(n, ((List<?>) TestRedis.server().call("PUBSUB", "CHANNELS")).size());
        for (int i = 0; i < n; i++) {
            assertEquals(1L, publish("relock_ch:" + i, "m✓" + i));
        }
        assertTrue(all.await(20, TimeUnit.SECONDS), "received " + received.size() + " of " + n);
        for (int i = 0; i < n; i++) {
            assertEquals("m✓" + i, received.get("relock_ch:" + i));
        }
        List<CompletableFuture<Void>> unsubs = new ArrayList<>();
        for (CompletableFuture<Subscription> s : subs) {
            unsubs.add(s.get().unsubscribe());
        }
        CompletableFuture.allOf(unsubs.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertEquals(List.of(), TestRedis.server().call("PUBSUB", "CHANNELS"));
        assertEquals(0L, publish("relock_ch:0", "late"));
    }

    @Test
    void unsubscribe_isIdempotent_andStopsDelivery() throws Exception {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
        Subscription s = TestRedis.get(e.subscribe("relock_u", false, (ch, msg) -> got.add(msg)));
        assertEquals("relock_u", s.channel());
        publish("relock_u", "one");
        assertEquals("one", got.poll(20, TimeUnit.SECONDS));
        CompletableFuture<Void> first = s.unsubscribe();
        assertSame(first, s.unsubscribe());
        first.get(20, TimeUnit.SECONDS);
        assertEquals(List.of(), TestRedis.server().call("PUBSUB", "CHANNELS"));
        assertTrue(got.isEmpty());
        // subscribe the same channel again after an unsubscribe: works, new listener only
        LinkedBlockingQueue<String> again = new LinkedBlockingQueue<>();
        Subscription s2 = TestRedis.get(e.subscribe("relock_u", false, (ch, msg) -> again.add(msg)));
        publish("relock_u", "two");
        assertEquals("two", again.poll(20, TimeUnit.SECONDS));
        assertTrue(got.isEmpty());
        TestRedis.get(s2.unsubscribe());
    }

    @Test
    void throwingListener_doesNotStopLaterMessages() throws Exception {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
        Subscription s = TestRedis.get(e.subscribe("relock_t", false, (ch, msg) -> {
            got.add(msg);
            throw new IllegalStateException("listener bug");
        }));
        publish("relock_t", "a");
        publish("relock_t", "b");
        assertEquals("a", got.poll(20, TimeUnit.SECONDS));
        assertEquals("b", got.poll(20, TimeUnit.SECONDS));
        TestRedis.get(s.unsubscribe());
    }

    @Test
    void sharded_ssubscribeAndSpublish() throws Exception {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        LinkedBlockingQueue<String> plain = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<String> sharded = new LinkedBlockingQueue<>();
        Subscription p = TestRedis.get(e.subscribe("relock_s", false, (ch, msg) -> plain.add(ch + "=" + msg)));
        Subscription s = TestRedis.get(e.subscribe("relock_s", true, (ch, msg) -> sharded.add(ch + "=" + msg)));
        assertEquals(List.of("relock_s"), TestRedis.server().call("PUBSUB", "SHARDCHANNELS"));
        assertEquals(1, TestRedis.pubSubConnections());
        TestRedis.server().call("SPUBLISH", "relock_s", "sharded-msg");
        publish("relock_s", "plain-msg");
        assertEquals("relock_s=sharded-msg", sharded.poll(20, TimeUnit.SECONDS));
        assertEquals("relock_s=plain-msg", plain.poll(20, TimeUnit.SECONDS));
        TestRedis.get(s.unsubscribe());
        TestRedis.get(p.unsubscribe());
        assertEquals(List.of(), TestRedis.server().call("PUBSUB", "SHARDCHANNELS"));
        assertTrue(plain.isEmpty() && sharded.isEmpty());
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void pubSubConnectionKilled_reconnects_notifiesOncePerReconnect_andMessagesFlowAgain(ProtocolVersion protocol)
            throws Exception {
        CommandExecutor e = executor(protocol);
        AtomicInteger reconnects = new AtomicInteger();
        LinkedBlockingQueue<Integer> reconnected = new LinkedBlockingQueue<>();
        e.setConnectionListener(() -> reconnected.add(reconnects.incrementAndGet()));
        LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
        List<Subscription> subs = new ArrayList<>();
        for (String ch : List.of("relock_r1", "relock_r2", "relock_r3")) {
            subs.add(TestRedis.get(e.subscribe(ch, false, (c, m) -> got.add(c + "=" + m))));
        }
        Subscription sharded = TestRedis.get(e.subscribe("relock_rs", true, (c, m) -> got.add("s:" + c + "=" + m)));
        Script one = new Script("one", "return 1");
        assertEquals(1L, e.eval(ScriptCall.byText(one, List.of(), List.of())));

        for (int round = 1; round <= 2; round++) {
            TestRedis.server().call("CLIENT", "KILL", "TYPE", "pubsub");
            assertEquals(round, reconnected.poll(20, TimeUnit.SECONDS), "onReconnect after kill " + round);
            for (String ch : List.of("relock_r1", "relock_r2", "relock_r3")) {
                assertEquals(1L, publish(ch, "after" + round), "subscribed again: " + ch);
                assertEquals(ch + "=after" + round, got.poll(20, TimeUnit.SECONDS));
            }
            TestRedis.server().call("SPUBLISH", "relock_rs", "after" + round);
            assertEquals("s:relock_rs=after" + round, got.poll(20, TimeUnit.SECONDS));
            assertEquals(1, TestRedis.pubSubConnections());
            assertEquals(round, reconnects.get(), "exactly one onReconnect per reconnect");
        }
        assertEquals(1L, e.eval(ScriptCall.byText(one, List.of(), List.of())), "command connection unaffected");
        for (Subscription s : subs) {
            TestRedis.get(s.unsubscribe());
        }
        TestRedis.get(sharded.unsubscribe());
        assertEquals(2, reconnects.get());
    }

    @Test
    void pubSubConnection_carriesTheClientName() {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        Subscription s = TestRedis.get(e.subscribe("relock_n", false, (c, m) -> { }));
        TestRedis.await("all three connections named", () -> TestRedis.connectionsNamed(TestRedis.NAME) == 3);
        TestRedis.server().call("CLIENT", "KILL", "TYPE", "pubsub");
        TestRedis.await("pub/sub connection back, named", () -> TestRedis.clientList().stream()
                .anyMatch(m -> TestRedis.NAME.equals(m.get("name")) && !"0".equals(m.get("sub"))));
        TestRedis.get(s.unsubscribe());
    }

    @Test
    void subscribe_afterClose_failsAsIllegalState_andNullsAreRejected() {
        CommandExecutor e = executor(ProtocolVersion.RESP3);
        assertThrows(NullPointerException.class, () -> e.subscribe(null, false, (c, m) -> { }));
        assertThrows(NullPointerException.class, () -> e.subscribe("x", false, null));
        e.close();
        assertEquals(IllegalStateException.class,
                TestRedis.failureOf(e.subscribe("x", false, (c, m) -> { })).getClass());
    }
}
