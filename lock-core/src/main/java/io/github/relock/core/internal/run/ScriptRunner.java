package io.github.relock.core.internal.run;

import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.util.Replies;
import io.github.relock.core.internal.util.Scripts;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.Lane;
import io.github.relock.spi.NoScriptException;
import io.github.relock.spi.NotSentException;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * Sends the engine's calls through the driver: blocking ({@link #run}) or not ({@link #runAsync}),
 * with the NOSCRIPT fallback (one EVAL, which also caches the script) and, with
 * {@code LockOptions.replicaSync}, lock writes pipelined with WAIT ({@link #runWrite}): a write
 * too few replicas acknowledged throws {@link ReplicaShortfall} carrying its outcome on the master.
 * The synced write is blocking in the SPI, so its async form runs on a small cached pool.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class ScriptRunner {
    private final CommandExecutor executor;
    private final int replicasToAck;
    private final long replicaWaitMs;
    /** Runs synced writes for the async API; null when replica sync is off. */
    private final ExecutorService replicaWaitRunner;
    private final String clientId;
    /** A view's own command timeout (LockClient.withCommandTimeout), in ns; 0: the driver's alone. */
    private final long boundNanos;

    /**
     * @param executor the driver
     * @param replicasToAck replicas each lock write must reach (0: replica sync off)
     * @param replicaWaitMs how long WAIT may take
     * @param replicaWaitRunner runs synced writes for the async API (null when off)
     * @param clientId the client's id, for messages
     */
    public ScriptRunner(CommandExecutor executor, int replicasToAck, long replicaWaitMs, ExecutorService replicaWaitRunner,
                        String clientId) {
        this.executor = executor;
        this.replicasToAck = replicasToAck;
        this.replicaWaitMs = replicaWaitMs;
        this.replicaWaitRunner = replicaWaitRunner;
        this.clientId = clientId;
        this.boundNanos = 0;
    }

    private ScriptRunner(ScriptRunner base, long boundNanos) {
        this.executor = base.executor;
        this.replicasToAck = base.replicasToAck;
        this.replicaWaitMs = base.replicaWaitMs;
        this.replicaWaitRunner = base.replicaWaitRunner;
        this.clientId = base.clientId;
        this.boundNanos = boundNanos;
    }

    /**
     * A runner whose calls wait at most {@code timeout} for their reply (a view's command timeout,
     * shorter than the driver's): a blocking call goes through the driver's async path and is waited
     * for, uninterruptibly, for that long; an async call's future fails at that deadline. Either
     * fails with a {@link RedisUnavailableException} that is not a not-sent signal: the call may
     * still run. Renewal ({@link #renewAsync}) keeps the driver's timeout.
     *
     * @param timeout the bound, positive
     * @return the bounded runner
     */
    public ScriptRunner bounded(java.time.Duration timeout) {
        return new ScriptRunner(this, timeout.toNanos());
    }

    /** @return whether lock writes are sent with WAIT (LockOptions.replicaSync) */
    public boolean replicaSync() {
        return replicasToAck > 0;
    }

    /** Sends {@code call} on the calling thread. */
    public <T> T run(Call<T> call) {
        return call.decode(eval(call.script(), call.keys(), call.args()));
    }

    /** Sends {@code call} without blocking the caller. */
    public <T> CompletableFuture<T> runAsync(Call<T> call) {
        return evalAsync(call.script(), call.keys(), call.args()).thenApply(call::decode);
    }

    /**
     * Sends a lock write (acquire, release, force unlock) on the calling thread: as {@link #run}
     * without replica sync; otherwise pipelined with WAIT.
     *
     * @param what the operation, for the shortfall's message
     * @throws ReplicaShortfall if fewer replicas than asked acknowledged (the outcome is in it)
     */
    public <T> T runWrite(String what, Call<T> call) {
        if (replicasToAck == 0) {
            return run(call);
        }
        if (boundNanos > 0 && !onReplicaWaitThread()) { // the synced write blocks in the SPI: wait for it bounded
            return awaitBounded(runWriteAsync(what, call), boundNanos + replicaWaitMs * 1_000_000L);
        }
        List<Object> r = evalWithReplicaWait(call.script(), call.keys(), call.args());
        T outcome = call.decode(r.get(0));
        if (!(r.get(1) instanceof Long acked)) {
            throw Replies.malformed(r.get(1), call.script(), call.keys().isEmpty() ? "" : call.keys().get(0),
                    "WAIT's integer count of replicas");
        }
        if (acked < replicasToAck) {
            throw new ReplicaShortfall(what, outcome, acked, replicasToAck, replicaWaitMs);
        }
        return outcome;
    }

    /** As {@link #runWrite}, without blocking the caller (a write with WAIT runs on the replica-wait threads). */
    public <T> CompletableFuture<T> runWriteAsync(String what, Call<T> call) {
        if (replicasToAck == 0) {
            return runAsync(call);
        }
        try {
            CompletableFuture<T> f = CompletableFuture.supplyAsync(() -> {
                REPLICA_WAIT_THREAD.set(Boolean.TRUE);
                try {
                    return runWrite(what, call);
                } finally {
                    REPLICA_WAIT_THREAD.remove();
                }
            }, replicaWaitRunner);
            return boundNanos > 0 ? bounded(f, boundNanos + replicaWaitMs * 1_000_000L) : f;
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("this LockClient (" + clientId
                    + ") is closed", e));
        }
    }

    /** Runs a script on the calling thread, falling back to EVAL once on NOSCRIPT. */
    public Object eval(Script script, List<String> keys, List<String> args) {
        ScriptCall call = ScriptCall.bySha(script, keys, args);
        if (boundNanos > 0) {
            return awaitBounded(evalAsync(call, Lane.APPLICATION), boundNanos);
        }
        try {
            return executor.eval(call);
        } catch (NoScriptException e) {
            return executor.eval(call.withText());
        }
    }

    /** Runs a script without blocking, falling back to EVAL once on NOSCRIPT. */
    public CompletableFuture<Object> evalAsync(Script script, List<String> keys, List<String> args) {
        CompletableFuture<Object> f = evalAsync(ScriptCall.bySha(script, keys, args), Lane.APPLICATION);
        return boundNanos > 0 ? bounded(f, boundNanos) : f;
    }

    /** Marks the replica-wait threads while they run a synced write, so its blocking form is not bounded twice. */
    private static final ThreadLocal<Boolean> REPLICA_WAIT_THREAD = new ThreadLocal<>();

    private static boolean onReplicaWaitThread() {
        return REPLICA_WAIT_THREAD.get() != null;
    }

    /** {@code f}, failing with a reply-lost RedisUnavailableException when it has not completed within {@code nanos}. */
    private <T> CompletableFuture<T> bounded(CompletableFuture<T> f, long nanos) {
        CompletableFuture<T> out = new CompletableFuture<>();
        f.whenComplete((v, t) -> {
            if (t == null) {
                out.complete(v);
            } else {
                out.completeExceptionally(unwrap(t));
            }
        });
        out.orTimeout(nanos, java.util.concurrent.TimeUnit.NANOSECONDS); // its timer task is cancelled on completion
        return out.exceptionallyCompose(t -> CompletableFuture.failedFuture(
                unwrap(t) instanceof java.util.concurrent.TimeoutException ? timedOut(nanos) : unwrap(t)));
    }

    /** Waits for {@code f} at most {@code nanos}, not interruptibly (the interrupt status is kept). */
    private <T> T awaitBounded(CompletableFuture<T> f, long nanos) {
        long end = System.nanoTime() + nanos;
        boolean interrupted = false;
        try {
            while (true) {
                long left = end - System.nanoTime();
                if (left <= 0 && !f.isDone()) {
                    throw timedOut(nanos);
                }
                try {
                    return f.get(Math.max(left, 0), java.util.concurrent.TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (java.util.concurrent.TimeoutException e) {
                    throw timedOut(nanos);
                } catch (ExecutionException e) {
                    throw asRuntime(unwrap(e));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private io.github.relock.api.RedisUnavailableException timedOut(long nanos) {
        return new io.github.relock.api.RedisUnavailableException("no reply from Redis within "
                + java.time.Duration.ofNanos(nanos) + ", this object's command timeout"
                + " (LockClient.withCommandTimeout); the call may still have run");
    }

    private CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        return executor.evalAsync(call, lane).exceptionallyCompose(t -> {
            Throwable cause = unwrap(t);
            return cause instanceof NoScriptException
                    ? executor.evalAsync(call.withText(), lane)
                    : CompletableFuture.failedFuture(cause);
        });
    }

    /**
     * The watchdog's script runner: on the driver's renewal lane
     * ({@link Lane#RENEWAL}) when replica sync is off; otherwise synced, and a reply
     * acknowledged by too few replicas comes back as a {@link ReplicaShortfall} object (not
     * thrown), so the watchdog can tell "renewed on the master only" from "failed".
     */
    public CompletableFuture<Object> renewAsync(Script script, List<String> keys, List<String> args) {
        if (replicasToAck == 0) { // on the driver's renewal lane, never behind the application's calls
            return evalAsync(ScriptCall.bySha(script, keys, args), Lane.RENEWAL);
        }
        Call<Object> call = new Call<>(script, keys, args, reply -> reply);
        return runWriteAsync("renewing locks", call).exceptionally(t -> {
            Throwable cause = unwrap(t);
            if (cause instanceof ReplicaShortfall s) {
                return s;
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        });
    }

    /**
     * EVALSHA + WAIT on one connection. On NOSCRIPT the script is run once with EVAL (which also
     * caches it), and WAIT is then sent behind a barrier write (a one-millisecond marker key in the
     * first key's slot) so that it covers the EVAL even if it went out on another pooled connection.
     */
    private List<Object> evalWithReplicaWait(Script script, List<String> keys, List<String> args) {
        try {
            return executor.evalShaWithWait(script, keys, args, replicasToAck, replicaWaitMs);
        } catch (NoScriptException e) {
            Object reply = executor.eval(ScriptCall.byText(script, keys, args));
            List<String> barrierKeys = List.of(Scripts.barrierKey(keys.get(0)));
            List<Object> w;
            try {
                w = executor.evalShaWithWait(Scripts.REPLICA_BARRIER, barrierKeys, List.of(), replicasToAck, replicaWaitMs);
            } catch (NoScriptException again) { // the barrier is idempotent: load it by running it
                executor.eval(ScriptCall.byText(Scripts.REPLICA_BARRIER, barrierKeys, List.of()));
                w = executor.evalShaWithWait(Scripts.REPLICA_BARRIER, barrierKeys, List.of(), replicasToAck, replicaWaitMs);
            }
            return java.util.Arrays.asList(reply, w.get(1));
        }
    }

    /** @return {@code t} without its CompletionException / ExecutionException wrappers */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Whether a call's failure says it was never sent: the driver refused it, or it waited in the
     * driver's queue past its deadline ({@link NotSentException}; see
     * {@link io.github.relock.spi.CommandExecutor}, "Calls not sent").
     */
    public static boolean notSent(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NotSentException) {
                return true;
            }
        }
        return false;
    }

    /** @return {@code t} as a RuntimeException to throw (an Error is thrown as it is) */
    public static RuntimeException asRuntime(Throwable t) {
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new io.github.relock.api.RedisUnavailableException("lock operation failed: " + t, t);
    }
}
