package io.github.relock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.relock.api.LockClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * When the Actuator beans exist: the {@code locks} endpoint only once it is exposed (Actuator's
 * convention for every endpoint but health), the {@code relock} health indicator unless
 * {@code management.health.relock.enabled} (or the health defaults) say false.
 */
class RelockActuatorConditionsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class, RelockActuatorAutoConfiguration.class))
            .withUserConfiguration(RelockAutoConfigurationTest.LettuceClientConfig.class);

    @Test
    void locksEndpoint_isNotCreatedUntilExposed() {
        runner.run(context -> assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(LocksEndpoint.class));
        runner.withPropertyValues("management.endpoints.web.exposure.include=locks")
                .run(context -> assertThat(context).hasSingleBean(LocksEndpoint.class));
        runner.withPropertyValues("management.endpoints.web.exposure.include=locks", "relock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void healthIndicator_isOnByDefault_andFollowsItsOwnThenTheDefaultsProperty() {
        runner.run(context -> assertThat(context).hasBean("relockHealthIndicator"));
        runner.withPropertyValues("management.health.relock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("relockHealthIndicator"));
        runner.withPropertyValues("management.health.defaults.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("relockHealthIndicator"));
        runner.withPropertyValues("management.health.defaults.enabled=false", "management.health.relock.enabled=true")
                .run(context -> assertThat(context).hasBean("relockHealthIndicator"));
    }
}
