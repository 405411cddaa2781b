package com.example.resp;

import io.github.relock.api.LockException;
import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.NotSentException;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.spi.pubsub.SessionPubSub;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * Design: three ways out to one server, each on connections of its own.
 *
 *  - Scripts (eval, by SHA or by text): the calling thread takes an idle connection (or opens one), sends one
 *    command, reads one reply, and gives the connection back. No call waits for a connection, so
 *    nothing here can be interrupted (rule 1.3.2): a platform thread blocked in a socket read
 *    ignores interrupts (a virtual thread's socket is closed instead: left out here, see the
 *    guide). An error reply leaves the connection in step; a timeout or a broken socket does not,
 *    so that connection is closed and the call reports "reply lost" (whether it ran is unknown).
 *  - Async scripts: the same call on a small pool of driver threads (relock-resp-async-N) with a
 *    bounded queue. A call that waited in the queue past the command timeout is never sent: it fails
 *    "not sent" (rule 27.1). The renewal lane (Lane.RENEWAL) is one more thread with a
 *    connection of its own (rule 27.2).
 *  - Pub/sub: the SPI's SessionPubSub, over RespSubscriber's dedicated connection and reader thread.
 *
 * One server only: no Capability.CLUSTER, so core sends every call here, and a cluster node would
 * answer MOVED (a RedisErrorException). No SHARDED_PUBSUB and no REPLICA_WAIT either: the SPI's
 * defaults refuse them loudly (rule 1.5.5).
 */
/**
 * The reference driver's {@link CommandExecutor}: RESP2 over plain sockets to one Redis server.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class RespExecutor implements CommandExecutor {
    static final String THREAD_PREFIX = "relock-resp-";
    /** Idle connections kept for the next call; a burst opens more and closes the extra ones after. */
    private static final int MAX_IDLE = 8;
    /** Each async call holds a thread for one round trip; a few suffice for a lock client's traffic. */
    private static final int ASYNC_THREADS = 4;
    private static final int ASYNC_QUEUE = 10_000;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final RespEndpoint endpoint;
    private final DriverOptions options;
    private final int timeoutMs;
    private final Deque<RespConnection> idle = new ConcurrentLinkedDeque<>();
    /** The renewal lane's one connection: used only by its one thread. */
    private final Deque<RespConnection> renewalIdle = new ConcurrentLinkedDeque<>();
    private final ThreadPoolExecutor async;
    private final ThreadPoolExecutor renewal;
    private final SessionPubSub pubsub;
    private final AtomicBoolean closed = new AtomicBoolean();

    RespExecutor(RespEndpoint endpoint, DriverOptions options) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.options = Objects.requireNonNull(options, "options");
        this.timeoutMs = Math.toIntExact(Math.max(1, options.commandTimeout().toMillis()));
        this.async = lane(ASYNC_THREADS, ASYNC_QUEUE, "async-");
        this.renewal = lane(1, 1_000, "renewal-");
        this.pubsub = new SessionPubSub(events -> new RespSubscriber(endpoint, timeoutMs, options.clientName(), events),
                THREAD_PREFIX + "pubsub-" + THREADS.incrementAndGet(), endpoint.toString(),
                options.commandTimeout().plusSeconds(1), options.pubSubProbeInterval(), options.commandTimeout());
    }

    /**
     * Rules 1.1.1 to 1.1.3 (replies, UTF-8), 1.3.1 (error replies), 1.3.2 (not interruptible); 1.2.1,
     * 1.2.2: a NOSCRIPT reply to EVALSHA becomes NoScriptException (the decoder does it), and core
     * then sends the call again by text ({@code call.withText()}).
     */
    @Override
    public Object eval(ScriptCall call) {
        return call(idle, command(call), call.script());
    }

    /**
     * Rules 1.4.1, 1.4.2 (same replies, on a driver thread) and 27.1 (never sent after its
     * deadline); 27.2: the watchdog's renewals ({@link Lane#RENEWAL}) have a thread and a connection
     * of their own.
     */
    @Override
    public CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        Objects.requireNonNull(lane, "lane must not be null");
        return lane == Lane.RENEWAL
                ? submit(renewal, renewalIdle, command(call), call.script())
                : submit(async, idle, command(call), call.script());
    }

    /** Rules 1.5.1 to 1.5.4 and 1.5.6, 23.1: all bookkeeping is {@link SessionPubSub}'s; 1.5.5: no sharded pub/sub. */
    @Override
    public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        if (sharded) {
            throw new UnsupportedOperationException("the RESP reference driver has no sharded pub/sub (one server only)");
        }
        return pubsub.subscribe(channel, listener);
    }

    /** Rule 1.5.4: {@link SessionPubSub} calls it once every channel is back after a break. */
    @Override
    public void setConnectionListener(ConnectionListener listener) {
        pubsub.setConnectionListener(listener);
    }

    /**
     * One server: the classic pub/sub connection is on the one node that serves every slot (core
     * asks only a {@code CLUSTER} driver; a cluster driver answers from its slot cache and the
     * address its pub/sub connection went to).
     */
    @Override
    public Boolean classicPubSubOnNodeOf(int slot) {
        return true;
    }

    /** Rule 1.5.5: nothing optional; the SPI's defaults refuse {@code evalShaWithWait} and {@code nodeOfSlot} answers null. */
    @Override
    public Set<Capability> capabilities() {
        return Set.of();
    }

    /** Rule 1.6.1: ends every thread and connection of the driver; the endpoint was never anything to close. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pubsub.close();
        for (ThreadPoolExecutor lane : List.of(async, renewal)) {
            lane.shutdown();
            try {
                if (!lane.awaitTermination(timeoutMs + 1000L, TimeUnit.MILLISECONDS)) {
                    lane.shutdownNow();
                }
            } catch (InterruptedException e) {
                lane.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        closeIdle(idle);
        closeIdle(renewalIdle);
    }

    @Override
    public String toString() {
        return "RespExecutor[" + endpoint + (closed.get() ? ", closed" : "") + "]";
    }

    /**
     * Sends one command on a connection of {@code pool} and returns its reply, or throws the error
     * reply. Rule 1.3.2: never interruptible (no wait for a connection; a socket read ignores the
     * interrupt and the status stays set). A timeout or a broken connection is "reply lost".
     */
    private Object call(Deque<RespConnection> pool, List<String> command, Script script) {
        if (closed.get()) {
            throw new IllegalStateException("the RESP executor for " + endpoint + " is closed");
        }
        RespConnection c = pool.poll();
        if (c == null) {
            c = open(script.name()); // nothing sent yet: a failure here is no "reply lost"
        }
        Object reply;
        try {
            reply = c.call(command);
        } catch (IOException e) {
            c.close(); // out of step: a late reply would answer the next command
            throw new RedisUnavailableException(command.get(0) + " " + script.name() + " on " + endpoint
                    + " got no reply (" + e + "); whether it ran is unknown", e);
        }
        giveBack(pool, c);
        if (reply instanceof LockException error) {
            throw error; // NoScriptException for NOSCRIPT (rules 1.2.x), unavailable for LOADING, BUSY, ... (28.7), else RedisErrorException (1.3.1)
        }
        return reply;
    }

    /** Opens the first connection now (it waits in the pool), so that an unreachable server fails here. */
    void connectNow() {
        giveBack(idle, open("the first connection"));
    }

    private RespConnection open(String what) {
        try {
            return RespConnection.open(endpoint, timeoutMs, options.clientName());
        } catch (IOException e) {
            throw new RedisUnavailableException("cannot connect to " + endpoint + " for " + what + ": " + e, e);
        }
    }

    private void giveBack(Deque<RespConnection> pool, RespConnection c) {
        if (pool.size() >= MAX_IDLE) {
            c.close();
            return;
        }
        pool.push(c);
        if (closed.get()) {
            closeIdle(pool); // close() may have emptied the pool before this connection came back
        }
    }

    /**
     * Runs {@link #call} on {@code lane}. Rule 27.1: a call still queued when its command timeout
     * has passed is never sent and fails "not sent" (a {@link NotSentException}), as does a call
     * refused because the queue is full.
     */
    private CompletableFuture<Object> submit(ThreadPoolExecutor lane, Deque<RespConnection> pool,
                                             List<String> command, Script script) {
        CompletableFuture<Object> future = new CompletableFuture<>();
        if (closed.get()) {
            future.completeExceptionally(new IllegalStateException("the RESP executor for " + endpoint + " is closed"));
            return future;
        }
        long deadline = System.nanoTime() + options.commandTimeout().toNanos();
        try {
            lane.execute(() -> {
                if (System.nanoTime() - deadline > 0) {
                    future.completeExceptionally(notSent(script, "it waited in the queue past the command timeout of "
                            + timeoutMs + " ms", null));
                    return;
                }
                try {
                    future.complete(call(pool, command, script));
                } catch (RuntimeException e) {
                    future.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(closed.get()
                    ? new IllegalStateException("the RESP executor for " + endpoint + " is closed", e)
                    : notSent(script, lane.getQueue().size() + " calls are already waiting", e));
        }
        return future;
    }

    private NotSentException notSent(Script script, String why, RejectedExecutionException cause) {
        return new NotSentException(script.name() + " on " + endpoint + " was not sent: " + why, cause);
    }

    /** A pool of daemon threads named {@code relock-resp-<name>N}, started on demand, with a bounded FIFO queue. */
    private static ThreadPoolExecutor lane(int threads, int queue, String name) {
        ThreadPoolExecutor lane = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queue), r -> {
                    Thread t = new Thread(r, THREAD_PREFIX + name + THREADS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        lane.allowCoreThreadTimeOut(true);
        return lane;
    }

    private static void closeIdle(Deque<RespConnection> pool) {
        for (RespConnection c = pool.poll(); c != null; c = pool.poll()) {
            c.close();
        }
    }

    /** {@code EVALSHA sha1 numkeys key... arg...} or {@code EVAL script numkeys ...}. */
    private static List<String> command(ScriptCall call) {
        Objects.requireNonNull(call, "call must not be null");
        List<String> keys = call.keys();
        List<String> args = call.args();
        String verb = call.bySha() ? "EVALSHA" : "EVAL";
        String scriptOrSha = call.bySha() ? call.script().sha1() : call.script().text();
        List<String> command = new ArrayList<>(3 + keys.size() + args.size());
        command.add(verb);
        command.add(scriptOrSha);
        command.add(Integer.toString(keys.size()));
        command.addAll(keys);
        command.addAll(args);
        return command;
    }
}
