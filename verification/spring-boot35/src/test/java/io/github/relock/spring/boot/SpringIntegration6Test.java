package io.github.relock.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.spring.integration.RelockLockRegistry;
import io.github.relock.tck.fixtures.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.util.ClassUtils;

/**
 * A Spring Boot 3.5 application with the starter and relock-spring-integration on a Spring
 * Integration 6 class path: it starts (the registry backs off, saying why), and an application that
 * declares the registry itself gets an analysis that names the fix instead of a bare
 * {@code ClassNotFoundException}.
 */
class SpringIntegration6Test {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedisAutoConfiguration.class, RelockAutoConfiguration.class,
                    RelockIntegrationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=" + RedisFixture.shared().uri());

    @Test
    void starterAndRelockSpringIntegration_onSpringIntegration6_start_withoutARegistry() throws Exception {
        assertFalse(ClassUtils.isPresent(RelockIntegrationAutoConfiguration.SPRING_INTEGRATION_7, null),
                "this module runs on Spring Integration 6");
        ShutdownWarnings[] closing = new ShutdownWarnings[1];
        runner.run(context -> {
            assertNull(context.getStartupFailure());
            RelockLifecycleTest.useCommandAndPubSubConnections(context.getBean(LockClient.class), "boot35:lock");
            assertTrue(context.getBeansOfType(LockRegistry.class).isEmpty(), "no registry on Spring Integration 6");
            String found = context.getBean(RelockIntegrationAutoConfiguration.SpringIntegrationTooOld.class).version();
            assertTrue(found.startsWith("6."), "the log names the version found: " + found);
            closing[0] = new ShutdownWarnings();
        });
        try (ShutdownWarnings log = closing[0]) {
            assertEquals(List.of(), log.warnings(), "warnings logged while the context closed");
        }
    }

    @Test
    void applicationsOwnRelockLockRegistry_onSpringIntegration6_failsWithAnAnalysisNamingTheFix() {
        runner.withUserConfiguration(OwnRegistry.class).run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure, "RelockLockRegistry's locks cannot load without Spring Integration 7");
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(failure);
            assertNotNull(analysis, "not recognised: " + failure);
            assertTrue(analysis.getDescription().contains("Spring Integration 6."), analysis.getDescription());
            assertTrue(analysis.getAction().contains("Spring Boot 4"), analysis.getAction());
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistry {
        @Bean
        RelockLockRegistry lockRegistry(LockClient locks) {
            return new RelockLockRegistry(locks, "orders");
        }
    }
}
