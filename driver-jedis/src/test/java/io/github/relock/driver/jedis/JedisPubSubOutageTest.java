package io.github.relock.driver.jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.RelockTck;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * Pub/sub across real outages (a server of the test's own that is stopped and started), which the
 * TCK's {@code CLIENT KILL} rule does not cover: the reader's backoff loop, failing subscriptions
 * nobody could confirm, and close() while reconnecting.
 */
class JedisPubSubOutageTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private final DriverOptions options = new DriverOptions(Duration.ofSeconds(2), "relock:outage-test");
    private RedisServer server;
    private RedisClient client;

    @BeforeEach
    void ownServer() {
        assumeTrue(RedisFixture.canControlServers(), "REDIS_URL is set: these tests stop and start a server of their own");
        server = RedisServer.startEmbedded();
        client = RedisClient.builder().hostAndPort(server.host(), server.port())
                .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(1000).build()).build();
    }

    @AfterEach
    void cleanUp() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.stop();
        }
        Await.until(DEADLINE, () -> RelockTck.relockThreads().isEmpty(), () -> "threads left: " + RelockTck.relockThreads());
    }

    @Test
    void serverRestarted_readerReconnectsWithBackoff_resubscribes_callsOnReconnect() throws Exception {
        try (CommandExecutor ex = new JedisDriverProvider().create(client, options)) {
            CountDownLatch reconnected = new CountDownLatch(1);
            ex.setConnectionListener(reconnected::countDown);
            LinkedBlockingQueue<String> messages = new LinkedBlockingQueue<>();
            Subscription sub = ex.subscribe("outage:ch", false, (c, m) -> messages.add(m))
                    .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            server.stop();
            server.start(); // same port, empty dataset; the reader retries until it answers
            assertTrue(reconnected.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS), "onReconnect() not called");
            assertEquals(1L, server.call("PUBLISH", "outage:ch", "back"));
            assertEquals("back", messages.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            sub.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void subscribe_serverDown_failsWithRedisUnavailable() throws Exception {
        try (CommandExecutor ex = new JedisDriverProvider().create(client, options)) {
            server.stop();
            CompletableFuture<Subscription> f = ex.subscribe("outage:down", false, (c, m) -> { });
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            assertInstanceOf(RedisUnavailableException.class, e.getCause());
            RedisUnavailableException sync = assertThrows(RedisUnavailableException.class,
                    () -> ex.eval(ScriptCall.byText(new io.github.relock.spi.Script("one", "return 1"), java.util.List.of(), java.util.List.of())));
            assertTrue(sync.getMessage().contains("EVAL one"), sync.getMessage());
        }
    }

    @Test
    void close_whileReconnecting_endsThreads() throws Exception {
        CommandExecutor ex = new JedisDriverProvider().create(client, options);
        ex.subscribe("outage:closing", false, (c, m) -> { }).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        server.stop(); // the reader now loops: connect, fail, back off
        ex.close();
        Await.until(DEADLINE, () -> RelockTck.relockThreads().isEmpty(), () -> "threads left: " + RelockTck.relockThreads());
    }
}
