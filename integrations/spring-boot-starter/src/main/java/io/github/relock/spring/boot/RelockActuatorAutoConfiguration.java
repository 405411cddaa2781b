package io.github.relock.spring.boot;

import io.github.relock.api.LockClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Spring Boot Actuator support for the application's one {@link LockClient} (auto-configured or its
 * own), when Actuator is on the class path (the starter depends on it optionally), on Boot 4.x and
 * 3.5:
 * <ul>
 * <li>the {@code locks} endpoint ({@link LocksEndpoint}), when it is available: enabled (it is
 *     unless {@code management.endpoint.locks.access=none}) and exposed. As Actuator's conventions
 *     say, it is not exposed over HTTP until the application includes it in
 *     {@code management.endpoints.web.exposure.include};</li>
 * <li>the {@code relock} health indicator, unless {@code management.health.relock.enabled=false}
 *     (or {@code management.health.defaults.enabled=false} without the former): UNKNOWN when the
 *     client is closed; DOWN when Redis does not answer a probe, when a renewed lock went two thirds
 *     of the watchdog timeout without a confirmed renewal, or when a lock was lost with
 *     {@code RENEWAL_FAILED} within the last watchdog timeout; UP otherwise. Its details: held
 *     locks, waiters, subscriptions, the pub/sub link ({@code up}, or {@code reconnecting} while
 *     the driver reopens a broken one, which does not change the status), the largest renewal lag,
 *     lost locks by reason, the last loss.</li>
 * </ul>
 * Each backs off when the application declares its own ({@code LocksEndpoint} bean, or a bean named
 * {@code relockHealthIndicator}); {@code relock.enabled=false} turns both off.
 *
 * <p>Thread-safety: configuration only; the beans it creates are thread-safe.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass(LockClient.class)
@ConditionalOnProperty(prefix = "relock", name = "enabled", havingValue = "true", matchIfMissing = true)
public class RelockActuatorAutoConfiguration {

    /** Package-private: only Spring instantiates it. */
    RelockActuatorAutoConfiguration() {
    }

    /** The {@code locks} endpoint. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"})
    @ConditionalOnAvailableEndpoint(LocksEndpoint.class)
    static class Endpoint {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnSingleCandidate(LockClient.class)
        LocksEndpoint relockLocksEndpoint(LockClient client) {
            return new LocksEndpoint(client);
        }
    }

    /** The {@code relock} health indicator, as Boot 4's or Boot 3.5's {@code HealthIndicator}. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(HealthEnabled.class)
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "relockHealthIndicator")
        @ConditionalOnSingleCandidate(LockClient.class)
        RelockHealthIndicatorFactory relockHealthIndicator(ObjectProvider<LockClient> client) {
            return new RelockHealthIndicatorFactory(client);
        }
    }

    /**
     * Matches when a Boot {@code HealthIndicator} type is on the class path and
     * {@code management.health.relock.enabled} (else {@code management.health.defaults.enabled}) is
     * not false: the rule of Boot's own {@code @ConditionalOnEnabledHealthIndicator}, which lives in
     * another package on each Boot generation.
     */
    static final class HealthEnabled extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            if (!RelockHealthIndicatorFactory.healthPresent()) {
                return ConditionOutcome.noMatch("no Spring Boot HealthIndicator type on the class path");
            }
            String own = context.getEnvironment().getProperty("management.health.relock.enabled");
            if (own != null) {
                return Boolean.parseBoolean(own.strip()) ? ConditionOutcome.match("management.health.relock.enabled is true")
                        : ConditionOutcome.noMatch("management.health.relock.enabled is " + own);
            }
            String defaults = context.getEnvironment().getProperty("management.health.defaults.enabled", "true");
            return Boolean.parseBoolean(defaults.strip())
                    ? ConditionOutcome.match("management.health.defaults.enabled is " + defaults)
                    : ConditionOutcome.noMatch("management.health.defaults.enabled is " + defaults);
        }
    }
}
