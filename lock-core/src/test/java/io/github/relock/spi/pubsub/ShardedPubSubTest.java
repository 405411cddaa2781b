package io.github.relock.spi.pubsub;

import static io.github.relock.spi.pubsub.FakeSessionTransport.WAIT_MS;
import static io.github.relock.spi.pubsub.SessionPubSubTest.failureOf;
import static io.github.relock.spi.pubsub.SessionPubSubTest.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Subscription;
import io.github.relock.spi.pubsub.FakeSessionTransport.FakeLink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ShardedPubSub}'s routing without a cluster: node "transports" are
 * {@link FakeSessionTransport}s, and which node owns a slot is a variable the test changes, as a
 * failover or a slot migration would.
 */
class ShardedPubSubTest {
    private final Map<String, FakeSessionTransport> transports = new ConcurrentHashMap<>();
    private final List<String> refreshed = new CopyOnWriteArrayList<>();
    private final AtomicInteger reconnects = new AtomicInteger();
    /** One permit per onReconnect: it may come on another thread just after the confirm that caused it. */
    private final java.util.concurrent.Semaphore told = new java.util.concurrent.Semaphore(0);
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    private volatile Object owner = "n1";

    private final ShardedPubSub<String> router = new ShardedPubSub<>(new ShardedPubSub.Nodes<>() {
        @Override
        public String ownerOf(int slot) {
            if (owner instanceof RuntimeException e) {
                throw e;
            }
            return (String) owner;
        }

        @Override
        public void refresh(String channel) {
            refreshed.add(channel);
        }

        @Override
        public SessionTransport transportTo(String node) {
            return node(node);
        }
    }, "relock-test-spubsub-", "test cluster", Duration.ofSeconds(5));

    {
        router.setConnectionListener(() -> {
            reconnects.incrementAndGet();
            told.release();
        });
    }

    @AfterEach
    void close() {
        router.close();
    }

    private FakeSessionTransport node(String name) {
        return transports.computeIfAbsent(name, n -> new FakeSessionTransport());
    }

    private CompletableFuture<Subscription> subscribe(String channel) {
        return router.subscribe(channel, (c, m) -> messages.add(c + "=" + m));
    }

    /**
     * Plays node {@code name}'s server until every one of {@code channels} was sent and confirmed,
     * however the commands were batched (one session opening, then one command per slot).
     *
     * @return the session's link
     */
    private FakeLink confirmAll(String name, String... channels) throws Exception {
        FakeSessionTransport t = node(name);
        Set<String> left = new HashSet<>(Arrays.asList(channels));
        FakeLink link = null;
        while (!left.isEmpty()) {
            String command = t.sent.poll(WAIT_MS, TimeUnit.MILLISECONDS);
            assertNotNull(command, name + " was never sent " + left);
            assertTrue(command.startsWith(link == null ? "RUN " : "SUB "), command);
            if (link == null) {
                link = t.nextLink();
            }
            String[] sent = command.substring(4).split(",");
            link.confirm(sent);
            left.removeAll(Arrays.asList(sent));
        }
        return link;
    }

    @Test
    void subscribe_goesToTheSlotsOwner_andItsMessagesReachTheListener() throws Exception {
        CompletableFuture<Subscription> x = subscribe("x");
        confirmAll("n1", "x").message("x", "hello");
        assertEquals("x", get(x).channel());
        assertEquals("x=hello", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        assertEquals(List.of(), refreshed, "a first subscribe trusts the slot map");
    }

    @Test
    void channelDroppedByItsNode_isRoutedToTheNewOwnerAfterARefresh_thenOneOnReconnect() throws Exception {
        CompletableFuture<Subscription> x = subscribe("x");
        FakeLink n1 = confirmAll("n1", "x");
        get(x);
        owner = "n2"; // the slot moved
        n1.unsubscribed("x"); // Redis tells the old owner's subscribers, unasked
        FakeLink n2 = confirmAll("n2", "x");
        n2.message("x", "moved").sync();
        assertEquals("x=moved", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        assertEquals(List.of("x"), refreshed);
        assertTrue(told.tryAcquire(WAIT_MS, TimeUnit.MILLISECONDS), "no onReconnect after the moved channel was back");
        assertEquals(1, reconnects.get());
        CompletableFuture<Void> gone = get(x).unsubscribe();
        node("n2").expect("UNSUB x");
        n2.unsubscribed("x");
        get(gone);
    }

    @Test
    void nodeConnectionBreaks_everyConfirmedChannelIsRerouted_thenExactlyOneOnReconnect() throws Exception {
        List<CompletableFuture<Subscription>> subs = new ArrayList<>();
        for (String c : List.of("{a}1", "{a}2", "{b}1")) {
            subs.add(subscribe(c));
        }
        FakeLink n1 = confirmAll("n1", "{a}1", "{a}2", "{b}1");
        for (CompletableFuture<Subscription> f : subs) {
            get(f);
        }
        owner = "n3"; // failover: the replica took over
        n1.breakWith(new RedisUnavailableException("connection reset"));
        FakeLink n3 = confirmAll("n3", "{a}1", "{a}2", "{b}1");
        n3.sync();
        assertTrue(told.tryAcquire(WAIT_MS, TimeUnit.MILLISECONDS), "no onReconnect after every channel was back");
        assertEquals(1, reconnects.get(), "one onReconnect per outage, after every channel is back");
    }

    @Test
    void redirectedFirstSubscribe_isRoutedAgainAfterARefresh_withoutAReconnect() throws Exception {
        CompletableFuture<Subscription> x = subscribe("x");
        node("n1").expect("RUN x");
        owner = "n2";
        node("n1").nextLink().breakWith(new RedisErrorException("MOVED 16287 127.0.0.1:7002"));
        FakeLink n2 = confirmAll("n2", "x");
        get(x);
        n2.sync();
        assertEquals(List.of("x"), refreshed);
        assertEquals(0, reconnects.get(), "nothing was lost: no onReconnect");
    }

    @Test
    void refusedFirstSubscribe_failsWithTheRedisError_andIsNotRetried() throws Exception {
        CompletableFuture<Subscription> x = subscribe("x");
        node("n1").expect("RUN x");
        RedisErrorException refused = new RedisErrorException("NOPERM no permissions to access the 'x' channel");
        node("n1").nextLink().breakWith(refused);
        assertSame(refused, failureOf(x));
        node("n1").expectNothing();
        assertEquals(List.of(), refreshed);
    }

    @Test
    void noNodeForTheSlot_failsAsUnavailable() {
        owner = new IllegalArgumentException("slot map empty");
        Throwable t = failureOf(subscribe("x"));
        assertInstanceOf(RedisUnavailableException.class, t);
        assertInstanceOf(IllegalArgumentException.class, t.getCause());
    }

    @Test
    void close_failsPendingSubscribes_endsEveryThread_andLaterSubscribesFail() throws Exception {
        CompletableFuture<Subscription> x = subscribe("x");
        confirmAll("n1", "x");
        get(x);
        CompletableFuture<Subscription> y = subscribe("y");
        node("n1").expect("SUB y");
        router.close();
        assertInstanceOf(RedisUnavailableException.class, failureOf(y));
        assertInstanceOf(IllegalStateException.class, failureOf(subscribe("z")));
        assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith("relock-test-spubsub-")),
                "threads left: " + Thread.getAllStackTraces().keySet());
    }
}
