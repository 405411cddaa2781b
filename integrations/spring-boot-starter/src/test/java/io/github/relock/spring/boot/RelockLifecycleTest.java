package io.github.relock.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.tck.fixtures.RedisFixture;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured client stops before the connection factory it runs on: a context close then
 * logs no warning (Lettuce used to log {@code Connection is already closed} twice, because the
 * factory's client shut relock's connections down before relock closed them).
 */
class RelockLifecycleTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RelockAutoConfigurationTest.bootRedisAutoConfiguration(),
                    RelockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=" + RedisFixture.shared().uri());

    @Test
    void lettuceBackedFactory_contextClose_logsNoWarning() throws Exception {
        try (ShutdownWarnings log = new ShutdownWarnings()) {
            runner.run(context -> useCommandAndPubSubConnections(context.getBean(LockClient.class), "starter:stop:lettuce"));
            assertEquals(List.of(), log.warnings(), "warnings logged while the context closed");
        }
    }

    @Test
    void lifecycle_stopsInThePhaseAboveTheFactorys() {
        runner.run(context -> {
            int factory = context.getBean(org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory.class)
                    .getPhase();
            assertEquals(factory + 1, context.getBean(RelockClientLifecycle.class).getPhase(),
                    "a higher phase stops first: relock before the factory, and nothing in between");
        });
    }

    @Test
    void jedisBackedFactory_withOnlyDriverJedis_failsNamingTheDriverToAdd() {
        runner.withPropertyValues("spring.data.redis.client-type=jedis").run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure, "driver-jedis cannot reach the factory's pool");
            NoRelockDriverException noDriver = cause(failure, NoRelockDriverException.class);
            assertTrue(noDriver.getMessage().contains("JedisConnectionFactory")
                            && noDriver.getMessage().contains("io.github.relock:relock-spring-data-redis"),
                    noDriver.getMessage());
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(failure);
            assertNotNull(analysis, "Boot reports it as APPLICATION FAILED TO START");
            assertTrue(analysis.getAction().startsWith("Add io.github.relock:relock-spring-data-redis"), analysis.getAction());
        });
    }

    @Test
    void jedisBackedFactory_withTheApplicationsJedisClient_locksThroughIt_andClosesQuietly() throws Exception {
        try (ShutdownWarnings log = new ShutdownWarnings()) {
            runner.withPropertyValues("spring.data.redis.client-type=jedis")
                    .withUserConfiguration(RelockAutoConfigurationTest.JedisClientConfig.class)
                    .run(context -> {
                        assertNull(context.getStartupFailure());
                        useCommandAndPubSubConnections(context.getBean(LockClient.class), "starter:stop:jedis");
                    });
            assertEquals(List.of(), log.warnings(), "warnings logged while the context closed");
        }
    }

    static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " among the causes of " + failure, failure);
    }

    /** A waiter subscribes, so relock holds both a command and a pub/sub connection at close. */
    static void useCommandAndPubSubConnections(LockClient locks, String name) throws Exception {
        DistributedLock lock = locks.getLock(name);
        lock.lock();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            DistributedLock same = locks.getLock(name);
            try {
                boolean got = same.tryLock(5, TimeUnit.SECONDS);
                if (got) {
                    same.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        Thread.sleep(200);
        assertTrue(locks.stats().subscriptions() > 0 || waiter.isDone(), "the waiter subscribed");
        lock.unlock();
        assertTrue(waiter.get(10, TimeUnit.SECONDS), "the waiter was woken and got the lock");
    }
}
