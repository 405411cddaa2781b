package io.github.relock.examples.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The sample application, started against the embedded server, used as its users would. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "sample.report.period=50ms")
class SampleApplicationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", () -> RedisFixture.shared().uri().toString());
    }

    @LocalServerPort
    int port;

    @Autowired
    LockClient locks;

    @Autowired
    StringRedisTemplate redis;

    @Autowired
    ReportJob job;

    @Test
    void concurrentPaymentsOnOneOrder_loseNoUpdate() throws Exception {
        String order = "t-" + System.nanoTime();
        HttpClient http = HttpClient.newHttpClient();
        AtomicInteger paid = new AtomicInteger();
        List<CompletableFuture<Void>> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 10; i++) {
                    try {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                                        URI.create("http://localhost:" + port + "/orders/" + order + "/pay"))
                                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 200) {
                            paid.incrementAndGet();
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }));
        }
        CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get();
        assertTrue(paid.get() > 0, "some payments went through");
        assertEquals(String.valueOf(paid.get()), redis.opsForValue().get(OrderController.paymentsKey(order)),
                "every payment made is counted: the lock kept each read-modify-write whole");
    }

    @Test
    void scheduledJob_skipsItsRunsWhileAnotherInstanceHoldsTheLock() throws Exception {
        Await.until(DEADLINE, () -> job.runs() >= 2, () -> "the job ran " + job.runs() + " times");
        // Another instance of the application: its own Redis client and relock client on the same Redis.
        io.lettuce.core.RedisClient otherRedis = io.lettuce.core.RedisClient.create(RedisFixture.shared().uri().toString());
        try (LockClient other = RedisLocks.create(otherRedis)) {
            DistributedLock lock = other.getLock(ReportJob.LOCK_NAME);
            lock.lock();
            long runsWhileHeld;
            try {
                long skippedBefore = job.skipped();
                Await.until(DEADLINE, () -> job.skipped() >= skippedBefore + 3,
                        () -> "the job skipped " + (job.skipped() - skippedBefore) + " runs while the lock was held elsewhere");
                runsWhileHeld = job.runs();
                long skippedNow = job.skipped();
                Await.until(DEADLINE, () -> job.skipped() >= skippedNow + 2, () -> "more skipped runs");
                assertEquals(runsWhileHeld, job.runs(), "no run while another instance held the job's lock");
            } finally {
                lock.unlock();
            }
            Await.until(DEADLINE, () -> job.runs() > runsWhileHeld, () -> "the job runs again once the lock is free");
        } finally {
            otherRedis.shutdown();
        }
    }

    @Test
    void lockClient_comesFromTheStarter_onTheApplicationsConnectionFactory() {
        assertEquals(Duration.ofSeconds(30), locks.options().lockWatchdogTimeout(), "relock.* from application.properties");
        DistributedLock lock = locks.getLock("sample:bean-check");
        assertTrue(lock.tryLock());
        try {
            assertEquals(Boolean.TRUE, redis.hasKey("sample:bean-check"), "held in the Redis of spring.data.redis.url");
        } finally {
            lock.unlock();
        }
    }
}
