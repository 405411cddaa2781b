package io.github.relock.driver.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The provider: discovery, supports/create, connect from a URI, and who closes what. */
class LettuceDriverProviderTest {
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);
    private final LettuceDriverProvider provider = new LettuceDriverProvider();

    @BeforeEach
    void flush() {
        TestRedis.reset();
    }

    @Test
    void serviceLoader_findsLettuceProvider() {
        List<String> names = ServiceLoader.load(RedisDriverProvider.class).stream()
                .map(p -> p.get().name()).collect(Collectors.toList());
        assertTrue(names.contains("lettuce"), names.toString());
        assertEquals(RedisDriverProvider.SPI_VERSION, provider.spiVersion());
    }

    @Test
    void supportsUri_redisAndRediss_yes_otherSchemes_no() {
        assertTrue(provider.supportsUri(URI.create("redis://localhost:6379/1")));
        assertTrue(provider.supportsUri(URI.create("REDISS://user:pw@cache.example")));
        assertFalse(provider.supportsUri(URI.create("redis-sentinel://localhost")));
        assertFalse(provider.supportsUri(URI.create("localhost:6379")));
    }

    @Test
    void supports_redisClientAndClusterClient_only() {
        RedisClient client = RedisClient.create();
        RedisClusterClient cluster = RedisClusterClient.create(TestRedis.server().uri().toString());
        try {
            assertTrue(provider.supports(client));
            assertTrue(provider.supports(cluster));
            assertFalse(provider.supports("redis://localhost"));
            assertFalse(provider.supports(null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> provider.create("not a client", TestRedis.OPTIONS));
            assertTrue(e.getMessage().contains("java.lang.String") && e.getMessage().contains("RedisClient"), e.getMessage());
        } finally {
            client.shutdown();
            cluster.shutdown();
        }
    }

    @Test
    void create_closeDoesNotShutDownHandedInClient_butClosesItsConnections() {
        RedisClient client = TestRedis.client();
        try {
            CommandExecutor e = provider.create(client, TestRedis.OPTIONS);
            Subscription s = TestRedis.get(e.subscribe("relock_c", false, (c, m) -> { }));
            assertEquals(1L, e.eval(ScriptCall.byText(new Script("one", "return 1"), List.of(), List.of())));
            TestRedis.await("driver's three connections named (commands, renewals, pub/sub)",
                    () -> TestRedis.connectionsNamed(TestRedis.NAME) == 3);
            e.close();
            e.close(); // idempotent
            TestRedis.await("driver's connections closed", () -> TestRedis.connectionsNamed(TestRedis.NAME) == 0);
            assertEquals(List.of(), TestRedis.server().call("PUBSUB", "CHANNELS"));
            assertEquals(IllegalStateException.class, assertThrows(RuntimeException.class,
                    () -> e.eval(ScriptCall.bySha(new Script("one", "return 1"), List.of(), List.of()))).getClass());
            assertEquals(IllegalStateException.class,
                    TestRedis.failureOf(e.evalAsync(ScriptCall.byText(new Script("one", "return 1"), List.of(), List.of()), Lane.APPLICATION)).getClass());
            TestRedis.get(s.unsubscribe()); // after close: completes, does nothing
            try (StatefulRedisConnection<String, String> still = client.connect()) {
                assertEquals("PONG", still.sync().ping(), "the application's client still works");
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void connect_opensOwnClient_namedConnections_andCloseShutsItDown() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        CommandExecutor e = provider.connect(TestRedis.server().uri(), TestRedis.OPTIONS);
        try {
            assertEquals(1L, e.eval(ScriptCall.byText(new Script("one", "return 1"), List.of(), List.of())));
            Subscription s = TestRedis.get(e.subscribe("relock_own", false, (c, m) -> { }));
            TestRedis.await("own connections named (commands, renewals, pub/sub)",
                    () -> TestRedis.connectionsNamed(TestRedis.NAME) == 3);
            TestRedis.get(s.unsubscribe());
        } finally {
            e.close();
        }
        TestRedis.await("own connections closed", () -> TestRedis.connectionsNamed(TestRedis.NAME) == 0);
        TestRedis.await("the driver's Lettuce threads are gone", () -> Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.isAlive())
                .noneMatch(t -> t.getName().startsWith("lettuce")));
    }

    @Test
    void connect_withDatabase_selectsIt() {
        URI uri = URI.create(TestRedis.server().uri() + "/3");
        try (CommandExecutor e = provider.connect(uri, TestRedis.OPTIONS)) {
            e.eval(ScriptCall.byText(new Script("set", "return redis.call('SET', KEYS[1], 'x')"), List.of("in3"), List.of()));
            assertEquals(0L, TestRedis.server().call("EXISTS", "in3"));
        }
    }

    @Test
    void connect_badUri_illegalArgumentNamingIt_withoutPassword() {
        for (String bad : List.of("http://localhost:6379", "redis-sentinel://localhost", "redis:///0", "localhost:6379")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> provider.connect(URI.create(bad), TestRedis.OPTIONS), bad);
            assertTrue(e.getMessage().contains(bad) || e.getMessage().contains("no host"), e.getMessage());
        }
        IllegalArgumentException secret = assertThrows(IllegalArgumentException.class,
                () -> provider.connect(URI.create("http://user:s3cret@localhost:6379"), TestRedis.OPTIONS));
        assertFalse(secret.getMessage().contains("s3cret"), secret.getMessage());
        assertTrue(secret.getMessage().contains("localhost:6379"), secret.getMessage());
        assertThrows(NullPointerException.class, () -> provider.connect(null, TestRedis.OPTIONS));
    }

    @Test
    void connect_refusedPort_redisUnavailable() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        URI uri = URI.create("redis://:pw@127.0.0.1:" + port);
        RedisUnavailableException e = assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(
                RedisUnavailableException.class, () -> provider.connect(uri, TestRedis.OPTIONS)));
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
        assertFalse(e.getMessage().contains(":pw@"), e.getMessage());
    }

    @Test
    void connect_serverThatNeverAnswers_redisUnavailableAfterTimeout() throws IOException {
        // The kernel completes the TCP handshake (backlog) but nothing ever answers HELLO.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            URI uri = URI.create("redis://127.0.0.1:" + silent.getLocalPort());
            DriverOptions quick = new DriverOptions(Duration.ofMillis(500), TestRedis.NAME);
            assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(
                    RedisUnavailableException.class, () -> provider.connect(uri, quick)));
        }
    }
}
