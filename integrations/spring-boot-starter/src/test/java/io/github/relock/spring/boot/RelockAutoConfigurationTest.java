package io.github.relock.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The auto-configuration on a real Redis: where the client comes from, how {@code relock.*} binds,
 * when it backs off, and that the bean is closed with the context.
 */
class RelockAutoConfigurationTest {

    private static RedisServer server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class));

    @BeforeAll
    static void server() {
        server = RedisFixture.shared();
    }

    @Test
    void lettuceClientBean_givesALockClientThatLocksInRedis() {
        runner.withUserConfiguration(LettuceClientConfig.class).run(context -> {
            LockClient locks = context.getBean(LockClient.class);
            assertHeldInRedis(locks, "starter:lettuce");
        });
    }

    @Test
    void jedisClientBean_givesALockClientThatLocksInRedis() {
        runner.withUserConfiguration(JedisClientConfig.class).run(context -> {
            LockClient locks = context.getBean(LockClient.class);
            assertHeldInRedis(locks, "starter:jedis");
        });
    }

    @Test
    void lettuceBackedConnectionFactory_withoutTheSpringDataDriver_locksThroughItsLettuceClient() {
        runner.withConfiguration(AutoConfigurations.of(bootRedisAutoConfiguration()))
                .withPropertyValues("spring.data.redis.url=" + server.uri())
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    assertEquals(1, context.getBeansOfType(
                            org.springframework.data.redis.connection.RedisConnectionFactory.class).size());
                    assertHeldInRedis(context.getBean(LockClient.class), "starter:factory");
                });
    }

    /** Boot 4.1's Redis auto-configuration, or Boot 3.5's under {@code -Pboot-3.5}. */
    static Class<?> bootRedisAutoConfiguration() {
        for (String name : List.of("org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
                "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration")) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                // the other Boot generation
            }
        }
        throw new IllegalStateException("no Spring Boot Redis auto-configuration on the test class path");
    }

    @Test
    void properties_areBoundToLockOptions_andUsedByTheClient() {
        runner.withUserConfiguration(LettuceClientConfig.class)
                .withPropertyValues("relock.lock-watchdog-timeout=12s", "relock.fair-lock-wait-timeout=2m",
                        "relock.command-timeout=1500ms", "relock.subscription-timeout=4s",
                        "relock.renewal-batch-size=50", "relock.client-id=orders-app", "relock.key-prefix=app1:",
                        "relock.spin-back-off.initial=2ms", "relock.spin-back-off.max=64ms",
                        "relock.local-handoff.max-consecutive=32", "relock.local-handoff.max-run=5ms")
                .run(context -> {
                    LockOptions o = context.getBean(LockClient.class).options();
                    assertEquals(32, o.localHandoffMaxConsecutive());
                    assertEquals(Duration.ofMillis(5), o.localHandoffMaxRun());
                    assertEquals(Duration.ofSeconds(12), o.lockWatchdogTimeout());
                    assertEquals(Duration.ofMinutes(2), o.fairLockWaitTimeout());
                    assertEquals(Duration.ofMillis(1500), o.commandTimeout());
                    assertEquals(Duration.ofSeconds(4), o.subscriptionTimeout());
                    assertEquals(50, o.renewalBatchSize());
                    assertEquals(Duration.ofMillis(2), o.spinBackOffInitial());
                    assertEquals(Duration.ofMillis(64), o.spinBackOffMax());
                    LockClient locks = context.getBean(LockClient.class);
                    assertEquals("orders-app", locks.clientId());
                    DistributedLock lock = locks.getLock("starter:props");
                    lock.lock();
                    try (RespClient admin = server.admin()) {
                        assertEquals(0L, admin.call("EXISTS", "starter:props"), "the key carries relock.key-prefix");
                        Object fields = admin.call("HKEYS", "app1:starter:props");
                        assertTrue(String.valueOf(fields).contains("orders-app:"),
                                "the owner field carries the configured client id: " + fields);
                        long ttl = (Long) admin.call("PTTL", "app1:starter:props");
                        assertTrue(ttl > 0 && ttl <= 12_000, "watchdog TTL follows relock.lock-watchdog-timeout: " + ttl);
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void unsetProperties_keepRelocksDefaults() {
        runner.withUserConfiguration(LettuceClientConfig.class).run(context -> {
            LockOptions o = context.getBean(LockOptions.class);
            assertEquals(LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT, o.lockWatchdogTimeout());
            assertEquals(LockOptions.DEFAULT_COMMAND_TIMEOUT, o.commandTimeout());
            assertTrue(o.replicaSyncConnected(), "by default lock writes wait for the connected replicas");
            assertTrue(o.clientId().isEmpty(), "no client id set: each client picks a random one");
            assertEquals(LockOptions.DEFAULT_LOCAL_HANDOFF_MAX_CONSECUTIVE, o.localHandoffMaxConsecutive());
        });
    }

    @Test
    void replicaSyncProperties_bindToOffPinnedOrTheDefaultsTimeout() {
        runner.withUserConfiguration(LettuceClientConfig.class)
                .withPropertyValues("relock.replica-sync.enabled=false")
                .run(context -> assertFalse(context.getBean(LockOptions.class).replicaSyncEnabled()));
        runner.withUserConfiguration(LettuceClientConfig.class)
                .withPropertyValues("relock.replica-sync.replicas=2")
                .run(context -> {
                    LockOptions o = context.getBean(LockOptions.class);
                    assertEquals(2, o.replicaSyncReplicas());
                    assertEquals(java.util.Optional.of(LockOptions.DEFAULT_REPLICA_SYNC_TIMEOUT), o.replicaSyncTimeout());
                });
        runner.withUserConfiguration(LettuceClientConfig.class)
                .withPropertyValues("relock.replica-sync.timeout=300ms")
                .run(context -> {
                    LockOptions o = context.getBean(LockOptions.class);
                    assertTrue(o.replicaSyncConnected());
                    assertEquals(java.util.Optional.of(java.time.Duration.ofMillis(300)), o.replicaSyncTimeout());
                });
    }

    @Test
    void localHandoffDisabled_bindsToNoLocalHandoff() {
        runner.withUserConfiguration(LettuceClientConfig.class)
                .withPropertyValues("relock.local-handoff.enabled=false")
                .run(context -> assertFalse(context.getBean(LockOptions.class).localHandoffEnabled()));
    }

    @Test
    void badPropertyValue_failsTheStart_namingThePropertyAndWhatIsAllowed() {
        runner.withUserConfiguration(LettuceClientConfig.class)
                .withPropertyValues("relock.renewal-batch-size=0")
                .run(context -> {
                    Throwable failure = context.getStartupFailure();
                    assertNotNull(failure, "a renewal batch size of 0 must not start");
                    String messages = causes(failure);
                    assertTrue(messages.contains("relock.renewal-batch-size") && messages.contains("1..1000"),
                            "the failure names the property and the allowed range: " + messages);
                });
        runner.withUserConfiguration(LettuceClientConfig.class)
                .withPropertyValues("relock.replica-sync.enabled=false", "relock.replica-sync.replicas=1")
                .run(context -> {
                    String messages = causes(context.getStartupFailure());
                    assertTrue(messages.contains("relock.replica-sync.enabled"),
                            "a replica count with replica sync off says what contradicts it: " + messages);
                });
    }

    @Test
    void applicationsOwnLockClient_makesTheAutoConfigurationBackOff() {
        runner.withUserConfiguration(LettuceClientConfig.class, OwnLockClientConfig.class).run(context -> {
            assertEquals(1, context.getBeansOfType(LockClient.class).size());
            assertSame(context.getBean("ownLockClient"), context.getBean(LockClient.class));
        });
    }

    @Test
    void applicationsOwnLockOptions_areUsed() {
        runner.withUserConfiguration(LettuceClientConfig.class, OwnOptionsConfig.class)
                .withPropertyValues("relock.client-id=ignored")
                .run(context -> assertEquals("from-bean", context.getBean(LockClient.class).clientId()));
    }

    @Test
    void relockEnabledFalse_createsNoBean() {
        runner.withUserConfiguration(LettuceClientConfig.class).withPropertyValues("relock.enabled=false")
                .run(context -> assertTrue(context.getBeansOfType(LockClient.class).isEmpty()));
    }

    @Test
    void noRedisClientAtAll_createsNoLockClient() {
        runner.run(context -> {
            assertNull(context.getStartupFailure(), "no Redis client is not an error: relock stays out of the way");
            assertTrue(context.getBeansOfType(LockClient.class).isEmpty());
        });
    }

    @Test
    void closingTheContext_closesTheLockClient_andReleasesWhatItHeld() throws Exception {
        LockClient[] seen = new LockClient[1];
        runner.withUserConfiguration(LettuceClientConfig.class).run(context -> {
            seen[0] = context.getBean(LockClient.class);
            seen[0].getLock("starter:close").lock();
        });
        assertThrows(IllegalStateException.class, () -> seen[0].getLock("starter:close").tryLock());
        try (RespClient admin = server.admin()) {
            // Closing stops renewal; the key then expires within the watchdog timeout at the latest.
            long ttl = (Long) admin.call("PTTL", "starter:close");
            assertTrue(ttl <= LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT.toMillis(),
                    "the closed client's hold is no longer renewed: PTTL " + ttl);
            admin.call("DEL", "starter:close");
        }
    }

    @Test
    void configurationMetadata_describesEveryRelockProperty() throws IOException {
        String json;
        try (InputStream in = RelockProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertNotNull(in, "the configuration processor wrote no metadata");
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String name : List.of("relock.enabled", "relock.lock-watchdog-timeout", "relock.fair-lock-wait-timeout",
                "relock.command-timeout", "relock.subscription-timeout", "relock.renewal-batch-size",
                "relock.client-id", "relock.key-prefix", "relock.spin-back-off.initial", "relock.spin-back-off.max",
                "relock.replica-sync.enabled", "relock.replica-sync.replicas", "relock.replica-sync.timeout", "relock.metrics.enabled",
                "relock.integration.enabled", "relock.integration.registry-key")) {
            int at = json.indexOf("\"name\": \"" + name + "\"");
            assertTrue(at >= 0, name + " is missing from the metadata:\n" + json);
            int end = json.indexOf('}', at);
            assertTrue(json.substring(at, end).contains("\"description\""), name + " has no description");
        }
    }

    private static void assertHeldInRedis(LockClient locks, String name) throws InterruptedException {
        DistributedLock lock = locks.getLock(name);
        assertTrue(lock.tryLock(5, TimeUnit.SECONDS));
        try (RespClient admin = server.admin()) {
            assertEquals(1L, admin.call("EXISTS", name), "the lock's hash is in Redis");
        } finally {
            lock.unlock();
        }
        try (RespClient admin = server.admin()) {
            assertEquals(0L, admin.call("EXISTS", name), "and gone after unlock");
        }
    }

    private static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append(" | ");
        }
        return b.toString();
    }

    @Configuration(proxyBeanMethods = false)
    static class LettuceClientConfig {
        @Bean(destroyMethod = "shutdown")
        io.lettuce.core.RedisClient lettuce() { // the shared server itself: other test classes use this config too
            return io.lettuce.core.RedisClient.create(RedisFixture.shared().uri().toString());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JedisClientConfig {
        @Bean(destroyMethod = "close")
        redis.clients.jedis.RedisClient jedis() {
            return redis.clients.jedis.RedisClient.create(RedisFixture.shared().uri());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLockClientConfig {
        @Bean(destroyMethod = "close")
        LockClient ownLockClient(io.lettuce.core.RedisClient lettuce) {
            return RedisLocks.create(lettuce);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnOptionsConfig {
        @Bean
        LockOptions ownOptions() {
            return LockOptions.builder().clientId("from-bean").build();
        }
    }
}
