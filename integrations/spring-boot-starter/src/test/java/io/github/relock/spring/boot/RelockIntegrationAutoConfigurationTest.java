package io.github.relock.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spring.integration.RelockLockRegistry;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RespClient;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/** On Spring Integration 7 (Boot 4.1): the starter declares a {@code RelockLockRegistry}. */
class RelockIntegrationAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class,
                    RelockIntegrationAutoConfiguration.class))
            .withUserConfiguration(RelockAutoConfigurationTest.LettuceClientConfig.class);

    @Test
    void springIntegration7_declaresARelockLockRegistry_thatLocksInRedis() {
        runner.withPropertyValues("relock.integration.registry-key=orders").run(context -> {
            LockRegistry<?> registry = context.getBean(LockRegistry.class);
            assertTrue(registry instanceof RelockLockRegistry, registry.getClass().getName());
            Lock lock = registry.obtain("42");
            lock.lock();
            try (RespClient admin = RedisFixture.shared().admin()) {
                assertEquals(1L, admin.call("EXISTS", "orders:42"), "relock.integration.registry-key names the lock");
            } finally {
                lock.unlock();
            }
            assertTrue(context.getBeansOfType(RelockIntegrationAutoConfiguration.SpringIntegrationTooOld.class).isEmpty());
        });
    }

    @Test
    void applicationsOwnLockRegistry_makesItBackOff() {
        runner.withUserConfiguration(OwnRegistry.class).run(context -> {
            assertSame(context.getBean("ownRegistry"), context.getBean(LockRegistry.class));
            assertTrue(context.getBeansOfType(RelockLockRegistry.class).isEmpty());
        });
    }

    @Test
    void integrationDisabled_declaresNothing() {
        runner.withPropertyValues("relock.integration.enabled=false")
                .run(context -> assertTrue(context.getBeansOfType(LockRegistry.class).isEmpty()));
    }

    @Test
    void failureAnalyzer_explainsARegistryLoadedOnSpringIntegration6() {
        Throwable failure = new IllegalStateException("Failed to introspect Class [io.github.relock.spring.integration.RelockLockRegistry]",
                new NoClassDefFoundError("org/springframework/integration/support/locks/DistributedLock"));
        FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(failure);
        assertNotNull(analysis);
        assertTrue(analysis.getDescription().contains("needs Spring Integration 7"), analysis.getDescription());
        assertTrue(analysis.getAction().contains("Spring Boot 4"), analysis.getAction());
        assertNull(new RelockFailureAnalyzer().analyze(new NoClassDefFoundError("com/example/Other")),
                "other failures are left to Boot");
        assertFalse(RelockIntegrationAutoConfiguration.SpringIntegrationTooOld.versionOnClassPath().equals("none"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistry {
        @Bean
        LockRegistry<?> ownRegistry() {
            return new DefaultLockRegistry();
        }
    }
}
