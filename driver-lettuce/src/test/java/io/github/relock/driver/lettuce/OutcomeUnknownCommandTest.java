package io.github.relock.driver.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisServer;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A command the driver gave up on (its deadline passed while Lettuce was disconnected and
 * buffering) is never sent after the reconnect: relock already told its caller it failed, so a
 * late run would be a ghost lock acquisition nobody knows of.
 */
class OutcomeUnknownCommandTest {
    private static final Script WRITE = new Script("tck-ghost-write",
            "redis.call('SET', KEYS[1], ARGV[1]) return 1");
    private static final Script PING = new Script("tck-ping", "return 1");

    @Test
    void commandTimedOutWhileDisconnected_neverRunsAfterReconnect() throws Exception {
        RedisServer server = RedisServer.startEmbedded();
        RedisClient client = RedisClient.create(server.uri().toString());
        CommandExecutor e = new LettuceDriverProvider().create(client,
                new DriverOptions(Duration.ofMillis(300), "relock-ghost-test"));
        try {
            assertEquals(1L, e.eval(ScriptCall.byText(PING, List.of("k"), List.of())));
            server.stop();

            CompletableFuture<Object> async = e.evalAsync(ScriptCall.byText(WRITE, List.of("ghost:async"), List.of("ran")), Lane.APPLICATION);
            ExecutionException failed = assertThrows(ExecutionException.class, () -> async.get(30, TimeUnit.SECONDS));
            assertTrue(failed.getCause() instanceof RedisUnavailableException, "got " + failed.getCause());
            assertThrows(RedisUnavailableException.class, () -> e.eval(ScriptCall.byText(WRITE, List.of("ghost:sync"), List.of("ran"))));

            server.start();
            Await.until(Duration.ofSeconds(30), () -> reachable(e), () -> "Lettuce never reconnected");
            // Anything Lettuce still buffered was flushed before this PING's reply (one ordered connection).
            assertEquals(0L, server.call("EXISTS", "ghost:async"), "a command relock reported failed ran later");
            assertEquals(0L, server.call("EXISTS", "ghost:sync"), "a command relock reported failed ran later");
        } finally {
            e.close();
            client.shutdown();
            server.close();
        }
    }

    private static boolean reachable(CommandExecutor e) {
        try {
            return Long.valueOf(1).equals(e.eval(ScriptCall.byText(PING, List.of("k"), List.of())));
        } catch (RuntimeException notYet) {
            return false;
        }
    }
}
