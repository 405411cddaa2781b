package io.github.relock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LeaderElection;
import io.github.relock.api.LockClient;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;

/**
 * {@link RelockLeaderInitiator} in real Boot applications on one Redis: of two applications
 * campaigning on one name exactly one leads; closing the leader's context hands leadership to the
 * other (granted there with a higher epoch, revoked LEFT on the first, published before the close
 * returns); a blank name fails the start naming what was passed.
 */
class RelockLeaderInitiatorTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        RelockLeaderInitiator leader(LockClient locks, @Value("${test.election}") String name) {
            return new RelockLeaderInitiator(locks, name);
        }

        @Bean
        Events events() {
            return new Events();
        }

        /** Stops in the phase just below the initiator's: the next thing a context's stop does after it. */
        @Bean
        SmartLifecycle nextPhase(Events events) {
            return new SmartLifecycle() {
                private volatile boolean running;

                @Override
                public void start() {
                    running = true;
                }

                @Override
                public void stop() {
                    running = false;
                    events.seen.add(NEXT_PHASE_STOPPED);
                }

                @Override
                public boolean isRunning() {
                    return running;
                }

                @Override
                public int getPhase() {
                    return RelockLeaderInitiator.DEFAULT_PHASE - 1;
                }
            };
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

    private static ConfigurableApplicationContext start(String election) {
        return new SpringApplication(App.class).run(
                "--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off",
                // see RelockActuatorTest: Boot 3.5's integration auto-configuration cannot start on this class path
                "--spring.autoconfigure.exclude=org.springframework.boot.autoconfigure.integration.IntegrationAutoConfiguration",
                "--spring.data.redis.url=" + RedisFixture.shared().uri(),
                "--relock.lock-watchdog-timeout=3s",
                "--test.election=" + election);
    }

    @Test
    void twoApplications_oneLeads_andClosingTheLeadersContextHandsLeadershipToTheOther() {
        String name = "starter:leader:" + UUID.randomUUID();
        List<ConfigurableApplicationContext> apps = new ArrayList<>();
        try {
            apps.add(start(name));
            apps.add(start(name));
            Await.until(Duration.ofSeconds(5), () -> apps.stream().anyMatch(a -> leader(a).isLeader()),
                    () -> "nobody was granted " + name);
            ConfigurableApplicationContext first = apps.stream().filter(a -> leader(a).isLeader()).findFirst().orElseThrow();
            ConfigurableApplicationContext second = apps.get(0) == first ? apps.get(1) : apps.get(0);
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
            assertEquals(NEXT_PHASE_STOPPED, firstEvents.get(2), "the stop waited for the revoke: " + firstEvents);
            RelockLeaderRevokedEvent revoked = (RelockLeaderRevokedEvent) firstEvents.get(1);
            assertEquals(LeaderElection.Reason.LEFT, revoked.getReason());
            assertEquals(granted.getEpoch(), revoked.getEpoch());
            Await.until(Duration.ofSeconds(4), () -> leader(second).isLeader() && events(second).size() == 1,
                    () -> "leadership not handed over: " + events(second));
            RelockLeaderGrantedEvent next = (RelockLeaderGrantedEvent) events(second).get(0);
            assertThat(next.getEpoch()).isGreaterThan(granted.getEpoch());
        } finally {
            apps.forEach(ConfigurableApplicationContext::close);
        }
    }

    @Test
    void blankElectionName_failsTheStartNamingWhatWasPassed() {
        Throwable failure = assertThrows(Throwable.class, () -> start(" ").close());
        Throwable cause = failure;
        while (!(cause instanceof IllegalArgumentException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertTrue(cause instanceof IllegalArgumentException, () -> "not an IllegalArgumentException: " + failure);
        assertEquals("RelockLeaderInitiator needs an election name that is not blank, was ' '", cause.getMessage());
    }

    private static RelockLeaderInitiator leader(ConfigurableApplicationContext app) {
        return app.getBean(RelockLeaderInitiator.class);
    }

    private static List<Object> events(ConfigurableApplicationContext app) {
        return app.getBean(Events.class).seen;
    }
}
