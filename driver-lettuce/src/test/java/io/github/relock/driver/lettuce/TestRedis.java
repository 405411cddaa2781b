package io.github.relock.driver.lettuce;

import static org.junit.jupiter.api.Assertions.fail;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/** Shared helpers for this module's tests: the fixture's server, clients, CLIENT LIST, deadlines. */
final class TestRedis {
    static final String NAME = "relock-lettuce-test";
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    static final DriverOptions OPTIONS = new DriverOptions(TIMEOUT, NAME);

    private TestRedis() {
    }

    static RedisServer server() {
        return RedisFixture.shared();
    }

    /** FLUSHALL + SCRIPT FLUSH. */
    static void reset() {
        server().call("FLUSHALL");
        server().call("SCRIPT", "FLUSH");
    }

    static RedisClient client() {
        return RedisClient.create(server().uri().toString());
    }

    static RedisClient client(ProtocolVersion protocol) {
        RedisClient c = client();
        c.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        return c;
    }

    static CommandExecutor executor(RedisClient client) {
        return new LettuceDriverProvider().create(client, OPTIONS);
    }

    /** CLIENT LIST as one map per connection. */
    static List<Map<String, String>> clientList() {
        List<Map<String, String>> out = new ArrayList<>();
        for (String line : ((String) server().call("CLIENT", "LIST")).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, String> m = new HashMap<>();
            for (String field : line.trim().split(" ")) {
                int eq = field.indexOf('=');
                if (eq > 0) {
                    m.put(field.substring(0, eq), field.substring(eq + 1));
                }
            }
            out.add(m);
        }
        return out;
    }

    static long pubSubConnections() {
        return clientList().stream()
                .filter(m -> Long.parseLong(m.getOrDefault("sub", "0")) > 0 || Long.parseLong(m.getOrDefault("ssub", "0")) > 0)
                .count();
    }

    static long connectionsNamed(String name) {
        return clientList().stream().filter(m -> name.equals(m.get("name"))).count();
    }

    /** Polls {@code condition} until true or 20 s pass. */
    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for: " + what);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for: " + what);
            }
        }
    }

    /** The failure a future completed with, exactly as completed (no unwrapping). */
    static Throwable failureOf(CompletableFuture<?> f) {
        try {
            return f.handle((v, e) -> e).get(20, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError("future did not complete", e);
        }
    }

    static <T> T get(CompletableFuture<T> f) {
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError("future did not complete normally", e);
        }
    }
}
