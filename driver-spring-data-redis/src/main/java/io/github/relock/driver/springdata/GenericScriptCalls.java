package io.github.relock.driver.springdata;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Scripts over Spring's {@code RedisConnection.execute(command, args)}, which on Jedis hands back
 * the raw reply ({@link RawReply}), or on a Jedis cluster factory through {@link JedisClusterScripts};
 * one factory connection per call. Async calls run the same on daemon threads {@code relock-sdr-async-N}.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class GenericScriptCalls implements ScriptCalls {

    private static final int ASYNC_THREADS = 4;

    private final RedisConnectionFactory factory;
    private final boolean jedisCluster;
    private final ExecutorService async;

    /** @param jedisCluster whether the factory is a cluster-aware {@code JedisConnectionFactory} */
    GenericScriptCalls(RedisConnectionFactory factory, boolean jedisCluster) {
        this.factory = factory;
        this.jedisCluster = jedisCluster;
        AtomicInteger n = new AtomicInteger();
        this.async = Executors.newFixedThreadPool(ASYNC_THREADS, r -> {
            Thread t = new Thread(r, "relock-sdr-async-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public Object call(String command, String body, List<String> keys, List<String> args, String label) {
        // held back: only a pool borrow would see it, and a script that ran must not read as interrupted
        boolean interrupted = Thread.interrupted();
        try (RedisConnection c = factory.getConnection()) {
            byte[][] argv = ScriptCalls.argv(body, keys, args);
            return RawReply.toSpi(jedisCluster
                    ? JedisClusterScripts.call(c, command, argv, keys.size())
                    : c.execute(command, argv));
        } catch (RuntimeException e) {
            throw SpringErrors.translate(e, label);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public CompletableFuture<Object> callAsync(String command, String body, List<String> keys, List<String> args, String label) {
        return CompletableFuture.supplyAsync(() -> call(command, body, keys, args, label), async);
    }

    @Override
    public void close() {
        async.shutdown();
    }
}
