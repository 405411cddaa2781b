package io.github.relock.examples.testing;

import io.github.relock.embeddedredis.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * docs/guide/testing.md's one redis-server for the whole test run, as the guide shows it: started
 * on first use, stopped when the JVM exits.
 */
final class TestRedis {
    static final RedisProcess SERVER = start();

    private TestRedis() {
    }

    private static RedisProcess start() {
        try {
            RedisProcess server = RedisProcess.startOnFreePort(); // 127.0.0.1, a free port, no persistence
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "test-redis-stop"));
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("redis-server did not start", e);
        }
    }

    static String url() {
        return "redis://" + SERVER.host() + ":" + SERVER.port();
    }
}
