package io.github.relock.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The gauges on a real Redis (Jedis driver): they follow held locks, waiters and subscriptions as they come and go. */
class RelockClientMetricsTest {

    private static RedisServer server;

    @BeforeAll
    static void server() {
        server = RedisFixture.shared();
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }

    @Test
    void gauges_followAHeldLockAndAWaiter_andReadZeroWhenIdle() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LockClient c = RedisLocks.connect(server.uri(), LockOptions.defaults());
             LockClient other = RedisLocks.connect(server.uri(), LockOptions.defaults())) {
            new RelockClientMetrics(c).bindTo(registry);
            assertEquals(0, gauge(registry, "relock.locks.held"));
            assertEquals(0, gauge(registry, "relock.locks.waiters"));
            assertEquals(0, gauge(registry, "relock.pubsub.subscriptions"));

            DistributedLock mine = c.getLock("gauges:mine");
            mine.lock();
            assertEquals(1, gauge(registry, "relock.locks.held"));

            DistributedLock busy = other.getLock("gauges:busy");
            busy.lock();
            CompletableFuture<Boolean> waiter = c.getLock("gauges:busy").tryLockAsync(30, TimeUnit.SECONDS);
            Await.until(Duration.ofSeconds(5), () -> gauge(registry, "relock.locks.waiters") == 1
                            && gauge(registry, "relock.pubsub.subscriptions") == 1,
                    () -> "waiter not shown: " + c.stats());
            busy.unlock();
            assertTrue(waiter.get(15, TimeUnit.SECONDS));
            Await.until(Duration.ofSeconds(5), () -> gauge(registry, "relock.locks.waiters") == 0
                            && gauge(registry, "relock.pubsub.subscriptions") == 0,
                    () -> "the waiter got its lock but is still shown: " + c.stats());
            assertEquals(2, gauge(registry, "relock.locks.held"), "the waiter's lock is held now");

            c.getLock("gauges:busy").unlock(); // the async call took it for this thread
            mine.unlock();
            assertEquals(0, gauge(registry, "relock.locks.held"));
        }
    }

    @Test
    void closedClient_gaugesReadZero() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LockClient c = RedisLocks.connect(server.uri(), LockOptions.defaults());
        new RelockClientMetrics(c, Tags.of("client", "closing")).bindTo(registry);
        c.getLock("gauges:closed").lock();
        assertEquals(1, registry.get("relock.locks.held").tag("client", "closing").gauge().value());
        c.close();
        assertEquals(0, registry.get("relock.locks.held").tag("client", "closing").gauge().value());
        try (io.github.relock.tck.fixtures.RespClient admin = server.admin()) {
            admin.call("DEL", "gauges:closed"); // closing stopped its renewal; it would expire on its own
        }
    }

    @Test
    void nullArguments_areRefusedWithTheirName() {
        try (LockClient c = RedisLocks.connect(server.uri(), LockOptions.defaults())) {
            NullPointerException e = assertThrows(NullPointerException.class, () -> new RelockClientMetrics(null));
            assertTrue(e.getMessage().contains("client"), e.getMessage());
            e = assertThrows(NullPointerException.class, () -> new RelockClientMetrics(c).bindTo(null));
            assertTrue(e.getMessage().contains("registry"), e.getMessage());
        }
    }

    /**
     * A short sample run with the listener and the gauges on one registry: a few locks taken and
     * released, one after a wait, one timed out. Asserts every relock meter is exported and prints
     * them (name, tags, values), which is what a scrape of such an application shows.
     */
    @Test
    void sampleRun_exportsEveryRelockMeter() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LockClient c = RedisLocks.connect(server.uri(), LockOptions.builder()
                .eventListener(MicrometerLockEventListener.builder(registry).build()).build());
             LockClient other = RedisLocks.connect(server.uri(), LockOptions.defaults())) {
            new RelockClientMetrics(c).bindTo(registry);
            for (int i = 0; i < 3; i++) {
                DistributedLock lock = c.getLock("sample:order-" + i);
                lock.lock();
                lock.unlock();
            }
            DistributedLock busy = other.getLock("sample:busy");
            busy.lock();
            assertFalse(c.getLock("sample:busy").tryLock(20, TimeUnit.MILLISECONDS));
            CompletableFuture<Boolean> waiter = c.getLock("sample:busy").tryLockAsync(30, TimeUnit.SECONDS);
            Await.until(Duration.ofSeconds(5), () -> c.stats().waiters() == 1, () -> "no waiter: " + c.stats());
            System.out.println("relock gauges while one call waits: held=" + gauge(registry, "relock.locks.held")
                    + " waiters=" + gauge(registry, "relock.locks.waiters")
                    + " subscriptions=" + gauge(registry, "relock.pubsub.subscriptions"));
            busy.unlock();
            assertTrue(waiter.get(15, TimeUnit.SECONDS));
            DistributedLock kept = c.getLock("sample:kept");
            kept.lock();
            Await.until(Duration.ofSeconds(5), () -> c.stats().waiters() == 0, () -> "waiter still shown: " + c.stats());

            Set<String> names = registry.getMeters().stream().map(m -> m.getId().getName())
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(new TreeSet<>(List.of("relock.lock.hold", "relock.lock.lost", "relock.lock.wait",
                    "relock.locks.held", "relock.locks.waiters", "relock.pubsub.subscriptions",
                    "relock.renewal.batches", "relock.renewal.failures")), names);
            assertEquals(5, registry.get("relock.lock.wait").tag("outcome", "acquired").timer().count(),
                    "three in the loop, the waiter's and the kept lock's");
            assertEquals(1, registry.get("relock.lock.wait").tag("outcome", "timeout").timer().count());
            assertEquals(2, gauge(registry, "relock.locks.held"));
            System.out.println("relock meters after the sample run:");
            registry.getMeters().stream().sorted(Comparator.comparing((Meter m) -> m.getId().getName())
                            .thenComparing(m -> m.getId().getTags().toString()))
                    .forEach(m -> System.out.println("  " + describe(m)));

            kept.unlock();
            c.getLock("sample:busy").unlock();
        }
    }

    private static String describe(Meter m) {
        StringBuilder b = new StringBuilder(m.getId().getName()).append(' ').append(m.getId().getType());
        m.getId().getTags().forEach(t -> b.append(' ').append(t.getKey()).append('=').append(t.getValue()));
        for (Measurement v : m.measure()) {
            b.append(' ').append(v.getStatistic().getTagValueRepresentation()).append('=').append(v.getValue());
        }
        return b.toString();
    }
}
