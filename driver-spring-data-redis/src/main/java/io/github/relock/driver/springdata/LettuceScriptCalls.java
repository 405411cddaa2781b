package io.github.relock.driver.springdata;

import io.github.relock.api.RedisUnavailableException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Scripts on a {@code LettuceConnectionFactory}: Spring's generic {@code execute} reads an unknown
 * command's reply as bytes only, so the command is dispatched on the connection's native Lettuce
 * commands with {@link LettuceReply} as output, keys as keys (a cluster routes by the first). The
 * Spring connection is given back when the reply came; a blocking caller waits at most the
 * command timeout, ignoring interrupts.
 *
 * <p>With {@link LettuceReply} and {@link LettucePubSubTransport}, the only classes that touch
 * Lettuce; loaded only for a Lettuce-backed factory.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class LettuceScriptCalls implements ScriptCalls {

    private final RedisConnectionFactory factory;
    private final Duration timeout;

    LettuceScriptCalls(RedisConnectionFactory factory, Duration timeout) {
        this.factory = factory;
        this.timeout = timeout;
    }

    /** @return whether the factory talks to a Redis Cluster (its connections are cluster connections) */
    static boolean isCluster(RedisConnectionFactory factory) {
        return factory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
    }

    @Override
    public Object call(String command, String body, List<String> keys, List<String> args, String label) {
        // held back: Lettuce's connect fails when interrupted, and a script that ran must not read as not run
        boolean interrupted = Thread.interrupted();
        try {
            CompletableFuture<Object> f = callAsync(command, body, keys, args, label);
            // counted from the send: a first call's connect is bounded by the factory's own timeouts
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                try {
                    return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw SpringErrors.translate(e.getCause(), label);
                } catch (TimeoutException e) {
                    throw new RedisUnavailableException(label + ": no reply within " + timeout, e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<Object> callAsync(String command, String body, List<String> keys, List<String> args, String label) {
        RedisConnection c;
        try {
            c = factory.getConnection();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(SpringErrors.translate(e, label));
        }
        try {
            RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) c.getNativeConnection();
            byte[][] argv = ScriptCalls.argv(body, keys, args);
            CommandArgs<byte[], byte[]> wire = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(argv[0]).add(argv[1]);
            for (int i = 0; i < keys.size(); i++) {
                wire.addKey(argv[2 + i]);
            }
            for (int i = 2 + keys.size(); i < argv.length; i++) {
                wire.addValue(argv[i]);
            }
            RedisFuture<Object> reply = commands.dispatch(CommandType.valueOf(command), new LettuceReply(), wire);
            return reply.toCompletableFuture().handle((value, failure) -> {
                c.close();
                if (failure != null) {
                    throw SpringErrors.translate(failure, label);
                }
                return value;
            });
        } catch (RuntimeException e) {
            c.close();
            return CompletableFuture.failedFuture(SpringErrors.translate(e, label));
        }
    }

    @Override
    public void close() {
        // nothing of its own: Lettuce's threads belong to the application's factory
    }
}
