package io.github.relock.driver.springdata;

import io.github.relock.api.RedisUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.RedisClusterClient;
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
 * <p>The watchdog's renewals ({@link #callUrgentAsync}) go on a command connection of relock's own,
 * from the factory's Lettuce client ({@code getRequiredNativeClient()}): on the factory's shared
 * connection a renewal would queue behind every application call pipelined before it. The first
 * renewal opens it, on a short-lived thread {@code relock-sdr-renewal-connect} (the renewal may be
 * sent from a Lettuce event loop, where a blocking connect deadlocks; see
 * {@link LettucePubSubTransport}). A renewal waits for a connect under way; when the connection
 * cannot be opened (the factory not started yet, say), renewals take the shared path and the next
 * one tries to open it again.
 * Lettuce sends what it is given at once (or buffers it while reconnecting); a command still
 * unanswered at the command timeout is cancelled, so a buffered one is never sent late.
 *
 * <p>With {@link LettuceReply} and {@link LettucePubSubTransport}, the only classes that touch
 * Lettuce; loaded only for a Lettuce-backed factory.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class LettuceScriptCalls implements ScriptCalls {
    private static final System.Logger LOG = System.getLogger(LettuceScriptCalls.class.getName());

    private final RedisConnectionFactory factory;
    private final Duration timeout;
    /** The renewal connection, once asked for; null before, or again after a failed open or once a factory stop closed it. */
    private volatile CompletableFuture<StatefulConnection<byte[], byte[]>> renewal;
    private volatile boolean closed;

    LettuceScriptCalls(RedisConnectionFactory factory, Duration timeout) {
        this.factory = factory;
        this.timeout = timeout;
        // Opened by the first renewal, not here: an executor made while its server is paused or
        // unreachable would otherwise leave a connect thread behind for as long as the connect takes.
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
            RedisFuture<Object> reply = commands.dispatch(CommandType.valueOf(command), new LettuceReply(),
                    wire(body, keys, args));
            cancelAfterTimeout(reply);
            return reply.toCompletableFuture().handle((value, failure) -> {
                c.close();
                return answer(value, failure, label);
            });
        } catch (RuntimeException e) {
            c.close();
            return CompletableFuture.failedFuture(SpringErrors.translate(e, label));
        }
    }

    @Override
    public CompletableFuture<Object> callUrgentAsync(String command, String body, List<String> keys, List<String> args,
                                                     String label) {
        CompletableFuture<StatefulConnection<byte[], byte[]>> open;
        synchronized (this) { // no blocking call inside: the connect runs on a thread of its own
            if (renewal == null && !closed) {
                renewal = connectRenewal();
            }
            open = renewal;
        }
        if (open == null) { // closed
            return callAsync(command, body, keys, args, label);
        }
        // the first renewal waits for the connect (milliseconds); a failed open takes the shared path
        return open.handle((c, failure) -> c).thenCompose(c -> {
            if (c instanceof RedisChannelHandler<?, ?> h && h.isClosed()) {
                forget(open); // the factory was stopped, and its client closed it: the next renewal opens another
            }
            return c == null || !c.isOpen()
                    ? callAsync(command, body, keys, args, label)
                    : dispatchOn(c, command, body, keys, args, label);
        });
    }

    private synchronized void forget(CompletableFuture<StatefulConnection<byte[], byte[]>> open) {
        if (renewal == open) {
            renewal = null;
        }
    }

    @SuppressWarnings("unchecked")
    private CompletableFuture<Object> dispatchOn(StatefulConnection<byte[], byte[]> c, String command, String body,
                                                 List<String> keys, List<String> args, String label) {
        try {
            RedisClusterAsyncCommands<byte[], byte[]> commands = c instanceof StatefulRedisConnection<?, ?> one
                    ? (RedisClusterAsyncCommands<byte[], byte[]>) one.async()
                    : ((StatefulRedisClusterConnection<byte[], byte[]>) c).async();
            RedisFuture<Object> reply = commands.dispatch(CommandType.valueOf(command), new LettuceReply(),
                    wire(body, keys, args));
            cancelAfterTimeout(reply);
            return reply.toCompletableFuture().handle((value, failure) -> answer(value, failure, label));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(SpringErrors.translate(e, label));
        }
    }

    /** The reply, or its failure in the SPI's types; a command cancelled at its timeout is reply lost. */
    private Object answer(Object value, Throwable failure, String label) {
        if (failure == null) {
            return value;
        }
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof java.util.concurrent.CancellationException) {
            throw new RedisUnavailableException(label + ": no reply within " + timeout + "; whether it ran is unknown",
                    new TimeoutException());
        }
        throw SpringErrors.translate(failure, label);
    }

    /** Opens the renewal connection on a thread of its own; a failed open is tried again by the next renewal. */
    private CompletableFuture<StatefulConnection<byte[], byte[]>> connectRenewal() {
        CompletableFuture<StatefulConnection<byte[], byte[]>> open = CompletableFuture.supplyAsync(() -> {
            AbstractRedisClient client = ((LettuceConnectionFactory) factory).getRequiredNativeClient();
            StatefulConnection<byte[], byte[]> c;
            if (client instanceof RedisClusterClient cluster) {
                cluster.getPartitions(); // a cluster connect needs the topology; Spring may not have it yet
                c = cluster.connect(ByteArrayCodec.INSTANCE);
            } else {
                c = ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
            }
            if (closed) {
                c.closeAsync();
                throw new IllegalStateException("closed while connecting");
            }
            return c;
        }, task -> {
            Thread t = new Thread(task, "relock-sdr-renewal-connect");
            t.setDaemon(true);
            t.start();
        });
        open.whenComplete((c, failure) -> {
            if (failure != null) {
                if (!closed) {
                    LOG.log(System.Logger.Level.WARNING, "relock could not open its renewal connection ("
                            + failure + "); renewals share the factory's connection until it opens");
                }
                forget(open);
            }
        });
        return open;
    }

    /** Cancels the command at the command timeout: one Lettuce still buffers is then never sent. */
    private void cancelAfterTimeout(RedisFuture<Object> reply) {
        CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS).execute(() -> {
            if (!reply.isDone()) {
                reply.cancel(false);
            }
        });
    }

    private static CommandArgs<byte[], byte[]> wire(String body, List<String> keys, List<String> args) {
        byte[][] argv = ScriptCalls.argv(body, keys, args);
        CommandArgs<byte[], byte[]> wire = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(argv[0]).add(argv[1]);
        for (int i = 0; i < keys.size(); i++) {
            wire.addKey(argv[2 + i]);
        }
        for (int i = 2 + keys.size(); i < argv.length; i++) {
            wire.addValue(argv[i]);
        }
        return wire;
    }

    @Override
    public void close() {
        // Lettuce's threads belong to the application's factory; the renewal connection is relock's
        closed = true;
        CompletableFuture<StatefulConnection<byte[], byte[]>> open;
        synchronized (this) {
            open = renewal;
            renewal = null;
        }
        if (open != null) {
            open.thenAccept(StatefulConnection::closeAsync);
        }
    }
}
