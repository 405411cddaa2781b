package io.github.relock.driver.springdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The provider: discovery, what it accepts, URIs refused, and that closing never touches the factory.
 *
 * <p>In the default build: a few seconds, on a server of its own.
 */
class SpringDataDriverProviderTest {
    private static final DriverOptions OPTIONS = new DriverOptions(Duration.ofSeconds(5), "relock:sdr-test");
    private static final Script ONE = new Script("one", "return 1");
    private static RedisServer server;
    private final SpringDataDriverProvider provider = new SpringDataDriverProvider();

    @BeforeAll
    static void start() {
        server = RedisServer.startEmbedded();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void serviceLoader_findsProviderNamedSpringDataRedis() {
        List<String> names = ServiceLoader.load(RedisDriverProvider.class).stream()
                .map(p -> p.get().name()).collect(Collectors.toList());
        assertTrue(names.contains("spring-data-redis"), names.toString());
        assertEquals(RedisDriverProvider.SPI_VERSION, provider.spiVersion());
    }

    @Test
    void supportsUri_alwaysFalse_andConnectRefusesWithoutLeakingPassword() {
        assertFalse(provider.supportsUri(URI.create("redis://localhost:6379")));
        assertFalse(provider.supportsUri(URI.create("rediss://user:pw@cache.example")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> provider.connect(URI.create("redis://user:s3cret@localhost:6379"), OPTIONS));
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        assertTrue(e.getMessage().contains("RedisConnectionFactory"), e.getMessage());
    }

    @Test
    void supports_connectionFactoriesOnly_createNamesWhatWasPassed() {
        RedisConnectionFactory lettuce = Factories.lettuce(server);
        RedisConnectionFactory jedis = Factories.jedis(server);
        try {
            assertTrue(provider.supports(lettuce));
            assertTrue(provider.supports(jedis));
            assertFalse(provider.supports("redis://localhost"));
            assertFalse(provider.supports(null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> provider.create("not a factory", OPTIONS));
            assertTrue(e.getMessage().contains("java.lang.String") && e.getMessage().contains("RedisConnectionFactory"),
                    e.getMessage());
        } finally {
            Factories.dispose(lettuce);
            Factories.dispose(jedis);
        }
    }

    @Test
    void close_releasesPubSubAndThreads_butFactoryStillWorks_lettuce() throws Exception {
        closeLeavesFactoryWorking(Factories.lettuce(server));
    }

    @Test
    void close_releasesPubSubAndThreads_butFactoryStillWorks_jedis() throws Exception {
        closeLeavesFactoryWorking(Factories.jedis(server));
    }

    private void closeLeavesFactoryWorking(RedisConnectionFactory factory) throws Exception {
        try {
            CommandExecutor e = provider.create(factory, OPTIONS);
            Subscription s = e.subscribe("relock_sdr_c", false, (c, m) -> { }).get(10, TimeUnit.SECONDS);
            assertEquals(1L, e.eval(ScriptCall.byText(ONE, List.of(), List.of())));
            assertEquals(List.of("relock_sdr_c"), server.call("PUBSUB", "CHANNELS"));
            e.close();
            e.close(); // idempotent
            Await.until(Duration.ofSeconds(10), () -> ((List<?>) server.call("PUBSUB", "CHANNELS")).isEmpty(),
                    () -> "channels left after close: " + server.call("PUBSUB", "CHANNELS"));
            assertThrows(IllegalStateException.class, () -> e.eval(ScriptCall.bySha(ONE, List.of(), List.of())));
            s.unsubscribe().get(10, TimeUnit.SECONDS); // after close: completes, does nothing
            try (RedisConnection c = factory.getConnection()) {
                assertEquals("PONG", c.ping(), "the application's factory still works");
            }
        } finally {
            Factories.dispose(factory);
        }
    }

    /**
     * A static master/replica configuration's Lettuce client has no endpoint of its own, and Spring
     * Data Redis offers no pub/sub there either: scripts run, and a subscribe fails saying which
     * configurations pub/sub needs (rather than hanging or failing with Lettuce's own words).
     */
    @Test
    void lettuceStaticMasterReplica_scriptsRun_subscribeFailsNamingTheConfiguration() throws Exception {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStaticMasterReplicaConfiguration(server.host(), server.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        try (CommandExecutor e = provider.create(factory, OPTIONS)) {
            assertEquals(1L, e.eval(ScriptCall.byText(ONE, List.of(), List.of())));
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> e.subscribe("relock_sdr_mr", false, (c, m) -> { }).get(10, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, failed.getCause());
            assertTrue(failed.getCause().getMessage().contains("static master/replica"), failed.getCause().getMessage());
            assertEquals(List.of(), server.call("PUBSUB", "CHANNELS"));
        } finally {
            Factories.dispose(factory);
        }
    }

    @Test
    void redisLocksCreate_withFactory_picksThisDriverAndLocks() {
        RedisConnectionFactory factory = Factories.lettuce(server);
        try (LockClient locks = RedisLocks.create(factory)) {
            assertTrue(locks.getLock("sdr:create").tryLock());
            assertEquals(1L, server.call("EXISTS", "sdr:create"));
            locks.getLock("sdr:create").unlock();
            assertEquals(0L, server.call("EXISTS", "sdr:create"));
        } finally {
            Factories.dispose(factory);
        }
    }
}
