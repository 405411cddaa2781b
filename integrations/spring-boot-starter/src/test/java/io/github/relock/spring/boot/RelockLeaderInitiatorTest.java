package io.github.relock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LeaderElection;
import io.github.relock.api.LockClient;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link RelockLeaderInitiator} in real Boot applications on one Redis: of two applications
 * campaigning on one name exactly one leads; closing the leader's context hands leadership to the
 * other (granted there with a higher epoch, revoked LEFT on the first, published before the next
 * lifecycle phase stops); an empty name fails the start naming what was passed.
 */
class RelockLeaderInitiatorTest {

    @Configuration(proxyBeanMethods = false)
    static class App {

        @Bean
        RelockLeaderInitiator leader(LockClient locks, @Value("${test.election}") String name) {
            return new RelockLeaderInitiator(locks, name);
        }

        @Bean
        Events events() {
            return new Events();
        }

        @Bean
        NextPhase nextPhase(Events events) {
            return new NextPhase(events);
        }
    }

    /** Stops in the phase just below the initiator's: the next thing a context's stop does after it. */
    static final class NextPhase implements SmartLifecycle {
        private final AtomicBoolean running = new AtomicBoolean();
        private final Events events;

        NextPhase(Events events) {
            this.events = events;
        }

        @Override
        public void start() {
            running.set(true);
        }

        @Override
        public void stop() {
            if (running.getAndSet(false)) {
                events.seen.add(NEXT_PHASE_STOPPED);
            }
        }

        @Override
        public boolean isRunning() {
            return running.get();
        }

        @Override
        public int getPhase() {
            return RelockLeaderInitiator.DEFAULT_PHASE - 1;
        }
    }

    private static final String NEXT_PHASE_STOPPED = "the next phase stopped";

    /** Every leader event the application published, and when the next phase stopped. */
    static final class Events implements ApplicationListener<RelockLeaderEvent> {
        final List<Object> seen = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(RelockLeaderEvent event) {
            seen.add(event);
        }
    }

    /** A Boot application with Boot's Redis and relock's auto-configuration on the shared Redis. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RelockAutoConfigurationTest.bootRedisAutoConfiguration(),
                    RelockAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("spring.data.redis.url=" + RedisFixture.shared().uri(), "relock.lock-watchdog-timeout=3s");

    @Test
    void twoApplications_oneLeads_andClosingTheLeadersContextHandsLeadershipToTheOther() {
        String name = "starter:leader:" + UUID.randomUUID();
        ApplicationContextRunner app = runner.withPropertyValues("test.election=" + name);
        app.run(a -> app.run(b -> {
            List<ConfigurableApplicationContext> apps = List.of(a, b);
            Await.until(Duration.ofSeconds(5), () -> apps.stream().anyMatch(c -> leader(c).isLeader()),
                    () -> "nobody was granted " + name);
            ConfigurableApplicationContext first = leader(a).isLeader() ? a : b;
            ConfigurableApplicationContext second = first == a ? b : a;
            Await.until(Duration.ofSeconds(5), () -> events(first).size() == 1, () -> "no granted event: " + events(first));
            RelockLeaderGrantedEvent granted = (RelockLeaderGrantedEvent) events(first).get(0);
            assertEquals(name, granted.getName());
            assertEquals(leader(first).getEpoch().orElseThrow(), granted.getEpoch());
            assertFalse(leader(second).isLeader(), "two leaders at once");
            assertEquals(List.of(), events(second), "the other application was told nothing");
            assertEquals(first.getBean(LockClient.class).clientId(),
                    leader(second).getElection().currentLeader().orElseThrow().clientId(),
                    "Redis names the first application's client as the leader");
            assertThat(leader(first).getPhase()).isGreaterThan(first.getBean(RelockClientLifecycle.class).getPhase());

            List<Object> firstEvents = events(first);
            first.close();

            assertEquals(3, firstEvents.size(), "granted, revoked, the next phase stopped: " + firstEvents);
            RelockLeaderRevokedEvent revoked = (RelockLeaderRevokedEvent) firstEvents.get(1);
            assertEquals(LeaderElection.Reason.LEFT, revoked.getReason());
            assertEquals(granted.getEpoch(), revoked.getEpoch());
            assertEquals(NEXT_PHASE_STOPPED, firstEvents.get(2), "the stop waited for the revoke: " + firstEvents);
            Await.until(Duration.ofSeconds(4), () -> leader(second).isLeader() && events(second).size() == 1,
                    () -> "leadership not handed over: " + events(second));
            RelockLeaderGrantedEvent next = (RelockLeaderGrantedEvent) events(second).get(0);
            assertThat(next.getEpoch()).isGreaterThan(granted.getEpoch());
        }));
    }

    @Test
    void emptyElectionName_failsTheStartNamingWhatWasPassed() {
        runner.withPropertyValues("test.election=").run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure, "the context started with an empty election name");
            Throwable cause = failure;
            while (!(cause instanceof IllegalArgumentException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertTrue(cause instanceof IllegalArgumentException, () -> "not an IllegalArgumentException: " + failure);
            assertEquals("RelockLeaderInitiator needs an election name that is not blank, was ''", cause.getMessage());
        });
    }

    private static RelockLeaderInitiator leader(ConfigurableApplicationContext app) {
        return app.getBean(RelockLeaderInitiator.class);
    }

    private static List<Object> events(ConfigurableApplicationContext app) {
        return app.getBean(Events.class).seen;
    }
}
