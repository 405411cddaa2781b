package io.github.relock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockEventListener;
import io.github.relock.micrometer.MicrometerLockEventListener;
import io.github.relock.micrometer.RelockClientMetrics;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Micrometer wiring on a real Redis: with a {@code MeterRegistry} bean the auto-configured
 * client records lock events and gauges in it; without Micrometer, without relock-micrometer, or
 * with {@code relock.metrics.enabled=false}, nothing changes but the absence of meters.
 */
class RelockMetricsAutoConfigurationTest {

    private static RedisServer server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class, RelockMetricsAutoConfiguration.class))
            .withUserConfiguration(RelockAutoConfigurationTest.LettuceClientConfig.class);

    @BeforeAll
    static void server() {
        server = RedisFixture.shared();
    }

    @Test
    void meterRegistryBean_lockActivityShowsInTimersAndGauges() {
        runner.withUserConfiguration(RegistryConfig.class).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LockClient locks = context.getBean(LockClient.class);
            assertSame(context.getBean(MicrometerLockEventListener.class), locks.options().eventListener());
            DistributedLock lock = locks.getLock("starter:metrics");
            assertTrue(lock.tryLock(5, TimeUnit.SECONDS));
            assertEquals(1, registry.get("relock.locks.held").gauge().value());
            assertEquals(1, registry.get("relock.lock.wait").tag("outcome", "acquired").timer().count());

            DistributedLock same = locks.getLock("starter:metrics");
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    boolean ok = same.tryLock(30, TimeUnit.SECONDS);
                    if (ok) {
                        same.unlock();
                    }
                    return ok;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
            Await.until(Duration.ofSeconds(5), () -> registry.get("relock.locks.waiters").gauge().value() == 1
                            && registry.get("relock.pubsub.subscriptions").gauge().value() == 1,
                    () -> "the waiter is not in the gauges: " + locks.stats());
            lock.unlock();
            assertTrue(waiter.get(15, TimeUnit.SECONDS));

            assertEquals(2, registry.get("relock.lock.hold").timer().count());
            Await.until(Duration.ofSeconds(5), () -> registry.get("relock.locks.waiters").gauge().value() == 0
                            && registry.get("relock.pubsub.subscriptions").gauge().value() == 0,
                    () -> "the waiter left but the gauges show " + locks.stats());
            assertEquals(0, registry.get("relock.locks.held").gauge().value());
        });
    }

    /**
     * With Boot 4's own meter registry auto-configuration creating the registry (no user bean), the
     * relock wiring runs after it, finds that registry, and each gauge exists once.
     */
    @Test
    void bootsMetricsAutoConfiguration_registryItCreatesGetsRelockMeters() throws Exception {
        List<Class<?>> boot = new java.util.ArrayList<>();
        // Not MetricsAutoConfiguration: it needs spring-boot-micrometer-observation, which the build does not
        // fetch; ClockConfig gives the Clock it would. These two create the registry, which is what the
        // ordering must wait for.
        for (String name : List.of("CompositeMeterRegistryAutoConfiguration",
                "export.simple.SimpleMetricsExportAutoConfiguration")) {
            try {
                boot.add(Class.forName("org.springframework.boot.micrometer.metrics.autoconfigure." + name));
            } catch (ClassNotFoundException e) {
                org.junit.jupiter.api.Assumptions.abort("Boot 4's spring-boot-micrometer-metrics is not on the test "
                        + "class path (the boot-3.5 profile has no actuator): " + name);
            }
        }
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RelockMetricsAutoConfiguration.class,
                        RelockAutoConfiguration.class))
                .withConfiguration(AutoConfigurations.of(boot.toArray(Class<?>[]::new)))
                .withUserConfiguration(RelockAutoConfigurationTest.LettuceClientConfig.class, ClockConfig.class)
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    LockClient locks = context.getBean(LockClient.class);
                    assertSame(context.getBean(MicrometerLockEventListener.class), locks.options().eventListener());
                    assertHeldAndReleased(locks, "starter:boot-metrics");
                    assertEquals(1, registry.find("relock.locks.held").gauges().size());
                    assertEquals(1, registry.get("relock.lock.hold").timer().count());
                });
    }

    @Test
    void applicationsOwnListener_hearsEventsNextToMicrometer() {
        runner.withUserConfiguration(RegistryConfig.class, ListenerConfig.class).run(context -> {
            DistributedLock lock = context.getBean(LockClient.class).getLock("starter:two-listeners");
            lock.lock();
            lock.unlock();
            assertEquals(List.of("starter:two-listeners"), context.getBean(ListenerConfig.class).acquired);
            assertEquals(1, context.getBean(MeterRegistry.class).get("relock.lock.hold").timer().count());
        });
    }

    @Test
    void applicationsOwnLockClient_getsTheGauges() {
        runner.withUserConfiguration(RegistryConfig.class, RelockAutoConfigurationTest.OwnLockClientConfig.class)
                .run(context -> {
                    context.getBean(LockClient.class).getLock("starter:own-client").lock();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertEquals(1, registry.get("relock.locks.held").gauge().value());
                    context.getBean(LockClient.class).getLock("starter:own-client").unlock();
                    assertEquals(0, registry.get("relock.locks.held").gauge().value());
                });
    }

    @Test
    void metricsEnabledFalse_recordsNothing() {
        runner.withUserConfiguration(RegistryConfig.class).withPropertyValues("relock.metrics.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(MicrometerLockEventListener.class);
                    assertSame(LockEventListener.NOOP, context.getBean(LockClient.class).options().eventListener());
                    assertHeldAndReleased(context.getBean(LockClient.class), "starter:metrics-off");
                    assertNull(context.getBean(MeterRegistry.class).find("relock.locks.held").gauge());
                    assertTrue(context.getBean(MeterRegistry.class).getMeters().isEmpty());
                });
    }

    @Test
    void noMeterRegistryBean_metricsBackOff() {
        runner.run(context -> {
            assertNull(context.getStartupFailure());
            assertThat(context).doesNotHaveBean(MicrometerLockEventListener.class);
            assertHeldAndReleased(context.getBean(LockClient.class), "starter:no-registry");
        });
    }

    @Test
    void withoutMicrometerOnTheClassPath_theClientStillWorks() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.", "io.github.relock.micrometer."))
                .run(context -> {
                    assertNull(context.getStartupFailure(), "no Micrometer is not an error");
                    assertThat(context).doesNotHaveBean(RelockMetricsAutoConfiguration.class);
                    assertSame(LockEventListener.NOOP, context.getBean(LockClient.class).options().eventListener());
                    assertHeldAndReleased(context.getBean(LockClient.class), "starter:no-micrometer");
                });
    }

    @Test
    void withoutRelockMicrometer_aRegistryBeanGetsNoRelockMeters() {
        runner.withUserConfiguration(RegistryConfig.class)
                .withClassLoader(new FilteredClassLoader(MicrometerLockEventListener.class, RelockClientMetrics.class))
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    assertThat(context).doesNotHaveBean(RelockMetricsAutoConfiguration.class);
                    assertHeldAndReleased(context.getBean(LockClient.class), "starter:no-relock-micrometer");
                    assertTrue(context.getBean(MeterRegistry.class).getMeters().isEmpty());
                });
    }

    private static void assertHeldAndReleased(LockClient locks, String name) throws InterruptedException {
        DistributedLock lock = locks.getLock(name);
        assertTrue(lock.tryLock(5, TimeUnit.SECONDS));
        assertEquals(1, locks.stats().heldLocks());
        lock.unlock();
        assertEquals(0, locks.stats().heldLocks());
    }

    @Configuration(proxyBeanMethods = false)
    static class RegistryConfig {
        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    /** The Micrometer clock Boot's MetricsAutoConfiguration would provide. */
    @Configuration(proxyBeanMethods = false)
    static class ClockConfig {
        @Bean
        io.micrometer.core.instrument.Clock micrometerClock() {
            return io.micrometer.core.instrument.Clock.SYSTEM;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ListenerConfig {
        final List<String> acquired = new CopyOnWriteArrayList<>();

        @Bean
        LockEventListener recordingListener() {
            return new LockEventListener() {
                @Override
                public void acquired(String lockName, Duration waited) {
                    acquired.add(lockName);
                }
            };
        }
    }
}
