package io.github.relock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.io.IOException;
import java.net.URI;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real Boot web application with the starter and Actuator, on its own embedded Redis, asked over
 * HTTP: the {@code locks} endpoint lists held locks and inspects a name (holders with owner info,
 * a fair queue with deadlines), and the {@code relock} health turns DOWN while Redis does not answer
 * and says which lock it lost. One application for the class; runs on Boot 4.x here and on Boot 3.5
 * in verification/spring-boot35.
 */
class RelockActuatorTest {

    private static RedisServer server;
    private static ConfigurableApplicationContext app;
    private static LockClient locks;
    private static String base;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    @BeforeAll
    static void start() {
        server = RedisServer.startEmbedded();
        app = new SpringApplication(App.class).run(
                "--server.port=0",
                "--spring.main.banner-mode=off",
                // The starter's -Pboot-3.5 class path has Spring Integration 7 (for relock-spring-integration)
                // beside Spring 6.2, which Boot 3.5's integration auto-configuration cannot start on.
                "--spring.autoconfigure.exclude=org.springframework.boot.autoconfigure.integration.IntegrationAutoConfiguration",
                "--spring.application.name=actuator-test",
                "--spring.data.redis.url=" + server.uri(),
                "--management.endpoints.web.exposure.include=health,locks",
                "--management.endpoint.health.show-details=always",
                "--relock.lock-watchdog-timeout=2s",
                "--relock.command-timeout=500ms",
                "--relock.owner-info.version=9.9.9");
        locks = app.getBean(LockClient.class);
        base = "http://localhost:" + webServerPort(app) + "/actuator";
    }

    /** The port, read through the context type that both Boot 3.5 and 4 have (its package moved). */
    static int webServerPort(ConfigurableApplicationContext context) {
        try {
            Object webServer = context.getClass().getMethod("getWebServer").invoke(context);
            return (int) webServer.getClass().getMethod("getPort").invoke(webServer);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("not a web application context: " + context.getClass(), e);
        }
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void locksEndpoint_listsTheClientsHeldLocksWithTheirRenewalState() throws Exception {
        DistributedLock lock = locks.getLock("actuator:held");
        lock.lock();
        try {
            Map<String, Object> body = getJson("/locks", 200);

            assertEquals(locks.clientId(), body.get("clientId"));
            assertEquals(Map.of("heldLocks", 1, "waiters", 0, "subscriptions", 0), longsToInts(body.get("stats")));
            List<Map<String, Object>> held = list(body.get("held"));
            assertThat(held).hasSize(1);
            Map<String, Object> h = held.get(0);
            assertEquals("actuator:held", h.get("name"));
            assertEquals(locks.clientId() + ":" + Thread.currentThread().getId(), h.get("owner"));
            assertEquals(1, ((Number) h.get("holdCount")).intValue());
            assertEquals(true, h.get("renewed"));
            assertThat(((Number) h.get("remainingMillis")).longValue()).isBetween(1L, 2_000L);
        } finally {
            lock.unlock();
        }
        assertThat(list(getJson("/locks", 200).get("held"))).isEmpty();
    }

    @Test
    void locksEndpoint_selector_showsHoldersWithOwnerInfoAndTheFairQueueWithDeadlines() throws Exception {
        DistributedLock fair = locks.getFairLock("actuator:fair");
        io.lettuce.core.RedisClient otherRedis = io.lettuce.core.RedisClient.create(server.uri().toString());
        try (LockClient other = RedisLocks.create(otherRedis)) {
            fair.lock();
            CompletableFuture<Boolean> waiter = lockAndUnlockAsync(other.getFairLock("actuator:fair"));
            try {
                Await.until(Duration.ofSeconds(10), () -> locks.inspect("actuator:fair").queue().size() == 1,
                        () -> "the other client never queued: " + locks.inspect("actuator:fair"));

                Map<String, Object> body = getJson("/locks/actuator:fair", 200);

                assertEquals("FAIR", body.get("kind"));
                Map<String, Object> holder = list(body.get("holders")).get(0);
                assertEquals(locks.clientId(), holder.get("clientId"));
                assertEquals("EXCLUSIVE", holder.get("mode"));
                Map<String, Object> owner = map(holder.get("ownerInfo"));
                assertEquals("actuator-test", owner.get("application"));
                assertEquals("9.9.9", owner.get("version"));
                assertEquals(Long.toString(ProcessHandle.current().pid()), owner.get("instance"));
                Map<String, Object> queued = list(body.get("queue")).get(0);
                assertEquals(1, ((Number) queued.get("position")).intValue());
                assertEquals(other.clientId(), queued.get("clientId"));
                assertThat(java.time.Instant.parse((String) queued.get("deadline"))).isAfter(java.time.Instant.now());
                assertThat(((Number) body.get("ttlMillis")).longValue()).isPositive();
            } finally {
                fair.unlock();
            }
            assertTrue(waiter.get(20, TimeUnit.SECONDS), "the queued waiter got the lock after the release");
        } finally {
            otherRedis.shutdown();
        }
        assertEquals("NONE", getJson("/locks/actuator:fair", 200).get("kind"));
        Response blank = get("/locks/%20");
        assertEquals(400, blank.status(), "a blank name is a bad request: " + blank.body());
    }

    @Test
    void health_isDownWhileRedisDoesNotAnswer_andThenNamesTheLockLostWithRenewalFailed() throws Exception {
        Await.until(Duration.ofSeconds(10), () -> "UP".equals(health(200).get("status")),
                () -> "relock health never UP: " + health(-1));
        Map<String, Object> up = map(health(200).get("details"));
        assertThat(up).containsKeys("heldLocks", "waiters", "subscriptions", "renewal", "lostLocks", "redis");

        DistributedLock lock = locks.getLock("actuator:health");
        lock.lock();
        try (RespClient admin = server.admin()) {
            admin.call("CLIENT", "PAUSE", "3000", "ALL");
            Map<String, Object> down = health(503);
            assertEquals("DOWN", down.get("status"));
            assertThat((String) map(down.get("details")).get("reason")).contains("Redis did not answer");

            Await.until(Duration.ofSeconds(15), () -> {
                Map<String, Object> h = health(-1);
                Map<String, Object> d = map(h.get("details"));
                return "UP".equals(h.get("status"))
                        && ((Number) map(d.get("lostLocks")).get("RENEWAL_FAILED")).intValue() == 1
                        && "actuator:health".equals(map(d.get("lastLoss")).get("name"));
            }, () -> "relock health never came back UP naming the lost lock: " + health(-1));
        } finally {
            try {
                lock.unlock();
            } catch (IllegalMonitorStateException expected) {
                // lost while Redis was paused
            }
        }
    }

    @Test
    void health_saysPubSubReconnectingWhileTheClientsPubSubConnectionIsDown_andStaysUp() throws Exception {
        Await.until(Duration.ofSeconds(10), () -> "UP".equals(health(200).get("status")),
                () -> "relock health never UP: " + health(-1));
        assertEquals("up", map(health(200).get("details")).get("pubSub"));
        io.lettuce.core.RedisClient otherRedis = io.lettuce.core.RedisClient.create(server.uri().toString());
        try (LockClient other = RedisLocks.create(otherRedis); RespClient admin = server.admin()) {
            DistributedLock theirs = other.getLock("actuator:pubsub");
            theirs.lock();
            // A waiter makes the application's client subscribe: CLIENT KILL TYPE pubsub only finds
            // connections with a subscription.
            CompletableFuture<Boolean> waiter = lockAndUnlockAsync(locks.getLock("actuator:pubsub"));
            Object maxClients = ((List<?>) admin.call("CONFIG", "GET", "maxclients")).get(1);
            try {
                Await.until(Duration.ofSeconds(10), () -> !admin.call("CLIENT", "LIST", "TYPE", "pubsub").toString().isBlank(),
                        () -> "the waiter never subscribed: " + locks.stats());
                // Refuse new connections, so that the killed one stays down until this test lets it back.
                String info = admin.call("INFO", "clients").toString();
                int connected = Integer.parseInt(info.replaceAll("(?s).*connected_clients:(\\d+).*", "$1"));
                admin.call("CONFIG", "SET", "maxclients", Integer.toString(connected - 1));
                assertEquals(1L, admin.call("CLIENT", "KILL", "TYPE", "pubsub"), "one pub/sub connection killed");

                Await.until(Duration.ofSeconds(10), () -> "reconnecting".equals(map(health(-1).get("details")).get("pubSub")),
                        () -> "the health never said the pub/sub link is down: " + health(-1));
                Map<String, Object> down = health(200);
                assertEquals("UP", down.get("status"), "locks still work without pub/sub: " + down);
                assertTrue(locks.stats().pubSubReconnecting(), locks.stats().toString());
            } finally {
                admin.call("CONFIG", "SET", "maxclients", maxClients.toString());
            }
            Await.until(Duration.ofSeconds(10), () -> "up".equals(map(health(-1).get("details")).get("pubSub")),
                    () -> "the health never said the pub/sub link is back: " + health(-1));
            theirs.unlock();
            assertTrue(waiter.get(20, TimeUnit.SECONDS), "the waiter got the lock after the release");
        } finally {
            otherRedis.shutdown();
        }
    }

    /** On another thread: waits up to 20 s for {@code lock}, unlocks it at once; completes with whether it got it. */
    private static CompletableFuture<Boolean> lockAndUnlockAsync(DistributedLock lock) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                boolean got = lock.tryLock(20, TimeUnit.SECONDS);
                if (got) {
                    lock.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /** GET /actuator/health/relock, checking the HTTP status unless {@code status} is -1. */
    private static Map<String, Object> health(int status) {
        try {
            return getJson("/health/relock", status);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** An HTTP answer: status and body. */
    private record Response(int status, String body) {
    }

    private static Response get(String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
        c.setConnectTimeout(10_000);
        c.setReadTimeout(10_000);
        try {
            int status = c.getResponseCode();
            try (java.io.InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                return new Response(status, in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        } finally {
            c.disconnect();
        }
    }

    private static Map<String, Object> getJson(String path, int status) throws IOException {
        Response response = get(path);
        if (status != -1) {
            assertEquals(status, response.status(), "GET " + path + ": " + response.body());
        }
        return JsonParserFactory.getJsonParser().parseMap(response.body());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object o) {
        return (List<Map<String, Object>>) o;
    }

    private static Map<String, Object> longsToInts(Object o) {
        Map<String, Object> out = new java.util.HashMap<>();
        map(o).forEach((k, v) -> out.put(k, v instanceof Number n ? n.intValue() : v));
        return out;
    }
}
