package io.github.relock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.api.OwnerInfo;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.info.BuildProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code relock.owner-info.*}: on by default, the client registers the application's name
 * ({@code spring.application.name}) and build version in Redis; each part can be set, the whole
 * turned off, and a value too long fails the start naming the property.
 */
class RelockOwnerInfoTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class))
            .withUserConfiguration(RelockAutoConfigurationTest.LettuceClientConfig.class);

    @Test
    void byDefault_theApplicationNameAndBuildVersionAreRegisteredInRedis() {
        runner.withUserConfiguration(BuildInfoConfig.class)
                .withPropertyValues("spring.application.name=billing")
                .run(context -> {
                    LockClient locks = context.getBean(LockClient.class);
                    OwnerInfo info = locks.options().ownerInfo().orElseThrow();
                    assertEquals("billing", info.application());
                    assertEquals("2.4.1", info.version());
                    assertEquals(Long.toString(ProcessHandle.current().pid()), info.instance());
                    try (RespClient admin = RedisFixture.shared().admin()) {
                        String key = "relock:{clients}:" + locks.clientId();
                        Await.until(Duration.ofSeconds(5), () -> "billing".equals(admin.call("HGET", key, "application")),
                                () -> "no owner info under " + key);
                        assertEquals("2.4.1", admin.call("HGET", key, "version"));
                    }
                });
    }

    @Test
    void eachPartCanBeSet_andTheWholeTurnedOff() {
        runner.withPropertyValues("spring.application.name=billing", "relock.owner-info.application=orders",
                        "relock.owner-info.version=1.0", "relock.owner-info.host=pod-1", "relock.owner-info.instance=i-7")
                .run(context -> assertEquals(new OwnerInfo("pod-1", "orders", "i-7", "1.0"),
                        context.getBean(LockClient.class).options().ownerInfo().orElseThrow()));
        runner.withPropertyValues("relock.owner-info.enabled=false")
                .run(context -> assertTrue(context.getBean(LockClient.class).options().ownerInfo().isEmpty()));
    }

    @Test
    void aValueTooLong_failsTheStart_namingTheProperty() {
        runner.withPropertyValues("relock.owner-info.application=" + "a".repeat(OwnerInfo.MAX_LENGTH + 1))
                .run(context -> {
                    Throwable failure = context.getStartupFailure();
                    assertNotNull(failure, "an application name of 257 chars must not start");
                    StringBuilder messages = new StringBuilder();
                    for (Throwable c = failure; c != null; c = c.getCause()) {
                        messages.append(c.getMessage()).append(" | ");
                    }
                    assertThat(messages.toString()).contains("relock.owner-info.application must be at most 256 chars, was 257 chars");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class BuildInfoConfig {
        @Bean
        BuildProperties buildProperties() {
            Properties p = new Properties();
            p.setProperty("version", "2.4.1");
            return new BuildProperties(p);
        }
    }
}
