package io.github.relock.driver.jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.RelockTck;
import io.github.relock.tck.fixtures.RespClient;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.RedisClient;

/** What the TCK cannot see: URI handling, type checks, ownership, registration. Real Redis throughout. */
@ExtendWith(RedisFixture.class)
class JedisDriverProviderTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private final JedisDriverProvider provider = new JedisDriverProvider();
    private final DriverOptions options = new DriverOptions(Duration.ofSeconds(2), "relock:test-" + UUID.randomUUID());

    @AfterEach
    void noThreadsLeft() {
        Await.until(DEADLINE, () -> RelockTck.relockThreads().isEmpty(),
                () -> "threads left: " + RelockTck.relockThreads());
    }

    @Test
    void nameAndSpiVersion() {
        assertEquals("jedis", provider.name());
        assertEquals(RedisDriverProvider.SPI_VERSION, provider.spiVersion());
    }

    @Test
    void supportsUri_redisAndRediss_yes_otherSchemes_no() {
        assertTrue(provider.supportsUri(URI.create("redis://localhost:6379/1")));
        assertTrue(provider.supportsUri(URI.create("REDISS://user:pw@cache.example")));
        assertFalse(provider.supportsUri(URI.create("http://localhost:6379")));
        assertFalse(provider.supportsUri(URI.create("localhost:6379")));
    }

    @Test
    void serviceLoader_findsTheProvider() {
        List<String> found = ServiceLoader.load(RedisDriverProvider.class).stream()
                .map(p -> p.type().getName()).collect(Collectors.toList());
        assertTrue(found.contains(JedisDriverProvider.class.getName()), "providers found: " + found);
    }

    @Test
    void moduleDescriptor_requiresCoreAndJedis_providesTheDriver_exportsNothing() throws Exception {
        Path classes = Path.of(JedisDriverProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            ModuleDescriptor d = ModuleDescriptor.read(in);
            assertEquals("io.github.relock.driver.jedis", d.name());
            Set<String> requires = d.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
            // commons-pool2 and SLF4J: Jedis is an automatic module and cannot name them (module-info.java)
            assertEquals(Set.of("java.base", "io.github.relock.core", "redis.clients.jedis", "org.apache.commons.pool2",
                    "org.slf4j"), requires);
            assertEquals(Set.of(), d.exports(), "the driver exports nothing; it is found as a service");
            assertEquals(1, d.provides().size());
            ModuleDescriptor.Provides p = d.provides().iterator().next();
            assertEquals(RedisDriverProvider.class.getName(), p.service());
            assertEquals(List.of(JedisDriverProvider.class.getName()), p.providers());
        }
    }

    @Test
    void supports_unifiedJedisAndPools_notASingleConnection(RedisServer server) {
        try (RedisClient client = RedisClient.create(server.uri());
             JedisPool pool = new JedisPool(server.host(), server.port());
             Jedis single = new Jedis(server.host(), server.port())) {
            assertTrue(provider.supports(client));
            assertTrue(provider.supports(pool), "a JedisPool (Spring Data's JedisConnectionFactory) is supported");
            assertFalse(provider.supports(single), "a single-connection Jedis is not thread-safe and not supported");
            assertFalse(provider.supports(null));
            assertFalse(provider.supports("redis://localhost"));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> provider.create(single, options));
            for (String named : List.of(Jedis.class.getName(), "UnifiedJedis", "JedisPool", "JedisSentinelPool", "JedisCluster")) {
                assertTrue(e.getMessage().contains(named), "should name " + named + ": " + e.getMessage());
            }
        }
    }

    @Test
    void connect_badUris_illegalArgumentNamingTheUriWithoutPassword() {
        assertBadUri("http://localhost:6379", "scheme");
        assertBadUri("redis:opaque", "no host");
        assertBadUri("redis://localhost:6379/notadb", "/notadb");
        assertBadUri("redis://localhost:6379/-1", "/-1");
        assertBadUri("redis://localhost:6379/0?timeout=5", "query");
        IllegalArgumentException e = assertBadUri("https://user:s3cr3t@localhost/0", "https");
        assertFalse(e.getMessage().contains("s3cr3t"), "the password leaked into: " + e.getMessage());
        assertTrue(e.getMessage().contains("user:***"), e.getMessage());
    }

    @Test
    void connect_nothingListening_redisUnavailable() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        URI uri = URI.create("redis://127.0.0.1:" + port);
        RedisUnavailableException e = assertThrows(RedisUnavailableException.class, () -> provider.connect(uri, options));
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
    }

    @Test
    void connect_passwordProtectedServer_wrongPasswordUnavailable_rightPasswordWorks() {
        assumeTrue(RedisFixture.canControlServers(), "REDIS_URL is set: this test needs a server of its own");
        try (RedisServer own = RedisServer.startEmbedded()) {
            own.call("CONFIG", "SET", "requirepass", "right-password");
            String hostPort = own.host() + ":" + own.port();
            URI wrong = URI.create("redis://:not-the-password@" + hostPort);
            RedisUnavailableException e = assertThrows(RedisUnavailableException.class, () -> provider.connect(wrong, options));
            assertFalse(e.getMessage().contains("not-the-password"), "the password leaked into: " + e.getMessage());
            for (String ok : List.of("redis://:right-password@" + hostPort, "redis://default:right-password@" + hostPort)) {
                try (CommandExecutor ex = provider.connect(URI.create(ok), options)) {
                    assertEquals(1L, ex.eval(ScriptCall.byText(new Script("one", "return 1"), List.of(), List.of())), ok);
                }
            }
        }
    }

    @Test
    void connect_ownsItsClient_namesItsConnections_closesThemOnClose(RedisServer server) throws Exception {
        URI uri = URI.create(server.uri() + "/3");
        CommandExecutor ex = provider.connect(uri, options);
        String key = "relock:test:db3:" + UUID.randomUUID();
        try {
            assertEquals("OK", ex.eval(ScriptCall.byText(new Script("set", "return redis.call('SET', KEYS[1], ARGV[1])"),
                    List.of(key), List.of("v"))));
            try (RespClient admin = server.admin()) {
                admin.call("SELECT", "3");
                assertEquals("v", admin.call("GET", key), "the /3 in the URI must select database 3");
                admin.call("DEL", key);
            }
            assertTrue(clientList(server).contains("name=" + options.clientName() + " "),
                    "connections the driver opens carry the client name; CLIENT LIST:\n" + clientList(server));
        } finally {
            ex.close();
        }
        Await.until(DEADLINE, () -> !clientList(server).contains("name=" + options.clientName() + " "),
                () -> "the driver's own client was not closed; CLIENT LIST:\n" + clientList(server));
        assertThrows(IllegalStateException.class, () -> ex.eval(ScriptCall.byText(new Script("one", "return 1"), List.of(), List.of())));
    }

    @Test
    void create_handedClient_capabilitiesShardedAndClosedBehaviour(RedisServer server) throws Exception {
        try (RedisClient client = RedisClient.create(server.uri())) {
            CommandExecutor ex = provider.create(client, options);
            try {
                assertTrue(ex.capabilities().contains(Capability.REPLICA_WAIT));
                assertFalse(ex.capabilities().contains(Capability.CLUSTER), "a standalone client is not a cluster");
                assertFalse(ex.capabilities().contains(Capability.SHARDED_PUBSUB));
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                        () -> ex.subscribe("ch", true, (c, m) -> { }));
                assertTrue(e.getMessage().contains("SHARDED_PUBSUB"), e.getMessage());
            } finally {
                ex.close();
            }
            Script s = new Script("one", "return 1");
            assertThrows(IllegalStateException.class, () -> ex.eval(ScriptCall.byText(s, List.of(), List.of())));
            CompletableFuture<Object> f = ex.evalAsync(ScriptCall.byText(s, List.of(), List.of()), Lane.APPLICATION);
            ExecutionException failed = assertThrows(ExecutionException.class, () -> f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            assertInstanceOf(IllegalStateException.class, failed.getCause());
            CompletableFuture<?> sub = ex.subscribe("ch", false, (c, m) -> { });
            assertInstanceOf(IllegalStateException.class,
                    assertThrows(ExecutionException.class, () -> sub.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).getCause());
            assertEquals(1L, client.eval("return 1"), "the handed client must stay open");
        }
    }

    @Test
    void subscribe_nothingSubscribed_holdsNoPubSubConnection(RedisServer server) throws Exception {
        try (RedisClient client = RedisClient.create(server.uri());
             CommandExecutor ex = provider.create(client, options)) {
            var sub = ex.subscribe("relock:test:idle", false, (c, m) -> { }).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(1L, server.call("PUBSUB", "NUMSUB", "relock:test:idle") instanceof List<?> l ? l.get(1) : null);
            sub.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            // The session ends with the last channel: the connection goes back to the client's pool
            // and is no longer in pub/sub mode.
            Await.until(DEADLINE, () -> !clientList(server).contains("flags=P"),
                    () -> "a pub/sub connection is still open:\n" + clientList(server));
            // and a new subscribe starts a new session
            var again = ex.subscribe("relock:test:idle", false, (c, m) -> { }).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(1L, server.call("PUBLISH", "relock:test:idle", "x"));
            again.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private IllegalArgumentException assertBadUri(String uri, String mentioned) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> provider.connect(URI.create(uri), options), uri);
        assertTrue(e.getMessage().contains(mentioned), "message for " + uri + " should mention '" + mentioned + "': " + e.getMessage());
        assertTrue(e.getMessage().contains("redis://"), "message should say what is allowed: " + e.getMessage());
        return e;
    }

    private static String clientList(RedisServer server) {
        return (String) server.call("CLIENT", "LIST");
    }
}
