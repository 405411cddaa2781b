package io.github.relock.driver.springdata;

import io.github.relock.spi.NotSentException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Scripts over Spring's {@code RedisConnection.execute(command, args)}, which on Jedis hands back
 * the raw reply ({@link RawReply}), or on a Jedis cluster factory through {@link JedisClusterScripts};
 * one factory connection per call. Async calls run the same on daemon threads {@code relock-sdr-async-N};
 * a call that waited for one longer than the command timeout is failed as not sent ({@code NotSentException}), unsent. The
 * watchdog's renewals run on threads of their own, {@code relock-sdr-renewal-N} (each borrowing its
 * own factory connection), with the same deadline.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class GenericScriptCalls implements ScriptCalls {

    private static final int ASYNC_THREADS = 4;
    private static final int RENEWAL_THREADS = 2;

    private final RedisConnectionFactory factory;
    private final boolean jedisCluster;
    private final Duration timeout;
    private final ExecutorService async;
    /** The renewal lane: never shared with the application's async calls. */
    private final ExecutorService renewals;

    /**
     * @param jedisCluster whether the factory is a cluster-aware {@code JedisConnectionFactory}
     * @param timeout the command timeout: how long an async call may wait for a thread
     */
    GenericScriptCalls(RedisConnectionFactory factory, boolean jedisCluster, Duration timeout) {
        this.factory = factory;
        this.jedisCluster = jedisCluster;
        this.timeout = timeout;
        this.async = lane(ASYNC_THREADS, "relock-sdr-async-");
        this.renewals = lane(RENEWAL_THREADS, "relock-sdr-renewal-");
    }

    /** Threads started on demand, ending after 30 s idle, over an unbounded FIFO queue. */
    private static ExecutorService lane(int threads, String prefix) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor lane = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, prefix + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        lane.allowCoreThreadTimeOut(true);
        return lane;
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
        return submit(async, command, body, keys, args, label);
    }

    @Override
    public CompletableFuture<Object> callUrgentAsync(String command, String body, List<String> keys, List<String> args,
                                                     String label) {
        return submit(renewals, command, body, keys, args, label);
    }

    /** Runs the call on {@code lane}; failed as not sent, unsent, once it waited past the command timeout. */
    private CompletableFuture<Object> submit(ExecutorService lane, String command, String body, List<String> keys,
                                             List<String> args, String label) {
        long queuedAt = System.nanoTime();
        return CompletableFuture.supplyAsync(() -> {
            long waited = System.nanoTime() - queuedAt;
            if (waited > timeout.toNanos()) {
                throw new NotSentException(label + " was not sent: it waited "
                        + TimeUnit.NANOSECONDS.toMillis(waited) + " ms for a thread, past the command timeout of "
                        + timeout.toMillis() + " ms");
            }
            return call(command, body, keys, args, label);
        }, lane);
    }

    @Override
    public void close() {
        async.shutdown();
        renewals.shutdown();
    }
}
