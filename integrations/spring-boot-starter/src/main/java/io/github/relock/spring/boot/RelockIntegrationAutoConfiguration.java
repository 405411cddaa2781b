package io.github.relock.spring.boot;

import io.github.relock.api.LockClient;
import io.github.relock.spring.integration.RelockLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Declares a {@link RelockLockRegistry} as the application's Spring Integration {@code LockRegistry}
 * when {@code relock-spring-integration} is on the class path, with the one {@link LockClient} bean.
 *
 * <p>{@code relock-spring-integration} is built on Spring Integration 7 (Spring Framework 7, Spring
 * Boot 4). On Spring Boot 3.5 the class path has Spring Integration 6, where its locks cannot even
 * be loaded ({@code ClassNotFoundException: ...DistributedLock}): this configuration then declares no
 * registry, and says why once in the log, so the application still starts. Everything backs off
 * when the application declares its own {@code LockRegistry};
 * {@code relock.integration.enabled=false} turns it off.
 *
 * <p>Thread-safety: configuration only; the registry it creates is thread-safe.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass(name = RelockIntegrationAutoConfiguration.RELOCK_REGISTRY)
@ConditionalOnProperty(prefix = "relock", name = {"enabled", "integration.enabled"}, havingValue = "true",
        matchIfMissing = true)
@Import({RelockIntegrationAutoConfiguration.OnSpringIntegration7.class,
        RelockIntegrationAutoConfiguration.WithoutSpringIntegration7.class})
public class RelockIntegrationAutoConfiguration {

    static final String RELOCK_REGISTRY = "io.github.relock.spring.integration.RelockLockRegistry";
    /** A Spring Integration 7 type that {@code relock-spring-integration}'s locks implement. */
    static final String SPRING_INTEGRATION_7 = "org.springframework.integration.support.locks.DistributedLock";

    /** Package-private: only Spring instantiates it. */
    RelockIntegrationAutoConfiguration() {
    }

    /** Spring Integration 7 is present: the registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = SPRING_INTEGRATION_7)
    @ConditionalOnSingleCandidate(LockClient.class)
    @ConditionalOnMissingBean(type = "org.springframework.integration.support.locks.LockRegistry")
    static class OnSpringIntegration7 {

        @Bean
        RelockLockRegistry relockLockRegistry(LockClient client, RelockProperties properties) {
            return new RelockLockRegistry(client, properties.getIntegration().getRegistryKey());
        }
    }

    /** An older Spring Integration (or none): no registry, and one line in the log saying why. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(SPRING_INTEGRATION_7)
    static class WithoutSpringIntegration7 {

        @Bean
        SpringIntegrationTooOld relockSpringIntegrationTooOld() {
            SpringIntegrationTooOld reason = new SpringIntegrationTooOld(SpringIntegrationTooOld.versionOnClassPath());
            System.getLogger(RelockIntegrationAutoConfiguration.class.getName())
                    .log(System.Logger.Level.WARNING, reason.message());
            return reason;
        }
    }

    /**
     * Why no {@code RelockLockRegistry} bean was declared: {@code relock-spring-integration} is on the
     * class path, Spring Integration 7 is not.
     *
     * <p>Thread-safety: immutable.
     *
     * @param version the Spring Integration version on the class path, or {@code "none"}
     */
    record SpringIntegrationTooOld(String version) {

        /** @return the sentence logged at start-up */
        String message() {
            return "relock-spring-integration is on the class path but Spring Integration 7 is not (found: " + version
                    + "), so no RelockLockRegistry bean is declared: relock-spring-integration needs Spring"
                    + " Integration 7 (Spring Boot 4). On Spring Boot 3.5, remove it and use Spring Integration's"
                    + " RedisLockRegistry, or relock's DistributedLock directly.";
        }

        /** @return the version of Spring Integration on the class path, or {@code "none"} */
        static String versionOnClassPath() {
            try {
                Package p = Class.forName("org.springframework.integration.support.locks.LockRegistry").getPackage();
                String version = p == null ? null : p.getImplementationVersion();
                return version == null ? "an unknown version" : version;
            } catch (ClassNotFoundException e) {
                return "none";
            }
        }
    }
}
