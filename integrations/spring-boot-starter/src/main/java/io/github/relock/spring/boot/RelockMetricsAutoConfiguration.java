package io.github.relock.spring.boot;

import io.github.relock.api.LockClient;
import io.github.relock.micrometer.MicrometerLockEventListener;
import io.github.relock.micrometer.RelockClientMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Wires relock's Micrometer metrics when the application has a {@link MeterRegistry} bean and
 * {@code relock-micrometer} is on the class path (the starter depends on it optionally):
 * <ul>
 * <li>a {@link MicrometerLockEventListener} bean, which {@link RelockAutoConfiguration} puts into the
 *     auto-configured client's {@code LockOptions} ({@code relock.lock.wait} and
 *     {@code relock.lock.hold} timers, {@code relock.lock.lost} and {@code relock.renewal.*});
 *     an application that declares its own {@code LockOptions} adds the listener bean itself;</li>
 * <li>the gauges of {@link RelockClientMetrics} ({@code relock.locks.held}, {@code relock.locks.waiters},
 *     {@code relock.pubsub.subscriptions}) for the one {@link LockClient} bean, auto-configured or the
 *     application's, bound to that registry when the bean is created (with or without Boot's
 *     actuator, and never twice).</li>
 * </ul>
 * Each bean backs off when the application defines its own; {@code relock.metrics.enabled=false}
 * (or {@code relock.enabled=false}) turns both off. It runs after Boot's meter registry
 * auto-configurations (Boot 4.1's {@code spring-boot-micrometer-metrics}, Boot 3.5's actuator).
 *
 * <p>Thread-safety: configuration only; the beans it creates are thread-safe.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({LockClient.class, MeterRegistry.class, MicrometerLockEventListener.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "relock", name = {"enabled", "metrics.enabled"}, havingValue = "true",
        matchIfMissing = true)
public class RelockMetricsAutoConfiguration {

    /** Package-private: only Spring instantiates it. */
    RelockMetricsAutoConfiguration() {
    }

    /**
     * @param registry the application's registry (the primary one, if it has several)
     * @return the listener the auto-configured client records its lock events with
     */
    @Bean
    @ConditionalOnMissingBean
    MicrometerLockEventListener relockMicrometerLockEventListener(MeterRegistry registry) {
        return MicrometerLockEventListener.builder(registry).build();
    }

    /**
     * @param client the application's one lock client
     * @param registry the application's registry (the primary one, if it has several)
     * @return the client's gauges, already bound to {@code registry}
     */
    @Bean
    @ConditionalOnSingleCandidate(LockClient.class)
    @ConditionalOnMissingBean(RelockClientMetrics.class)
    RelockGauges relockClientGauges(LockClient client, MeterRegistry registry) {
        RelockClientMetrics metrics = new RelockClientMetrics(client);
        metrics.bindTo(registry);
        return new RelockGauges(metrics);
    }

    /**
     * The client's gauges, bound when the bean was created. Deliberately not a {@code MeterBinder}
     * bean: Boot's actuator binds those itself, and without the actuator nothing would.
     *
     * <p>Thread-safety: immutable.
     *
     * @param metrics the bound gauges
     */
    record RelockGauges(RelockClientMetrics metrics) {
    }
}
