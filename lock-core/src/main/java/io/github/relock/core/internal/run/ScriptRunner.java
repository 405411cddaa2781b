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
 * How many replicas a write waits for is {@link ReplicaAcks}' answer: a pinned count, or (the
 * default) the replicas its node has connected, where a node with none gets the plain script.
 * The synced write is blocking in the SPI, so its async form runs on a small cached pool.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class ScriptRunner {
    private final CommandExecutor executor;
    /** Null when replica sync is off. */
    private final ReplicaAcks acks;
    private final long replicaWaitMs;
    /** Runs synced writes for the async API; null when replica sync is off. */
    private final ExecutorService replicaWaitRunner;
    private final String clientId;

    /**
     * @param executor the driver
     * @param replicasToAck replicas each lock write must reach (0: replica sync off)
     * @param replicaWaitMs how long WAIT may take
     * @param replicaWaitRunner runs synced writes for the async API (null when off)
     * @param clientId the client's id, for messages
     */
    public ScriptRunner(CommandExecutor executor, int replicasToAck, long replicaWaitMs, ExecutorService replicaWaitRunner,
                        String clientId) {
        this(executor, replicasToAck, false, replicaWaitMs, replicaWaitRunner, clientId);
    }

    /**
     * @param executor the driver
     * @param replicasToAck replicas each lock write must reach when pinned (0: not pinned)
     * @param connectedReplicas with {@code replicasToAck} 0: wait for the replicas each node has
     *     connected (the default); false with 0: replica sync off
     * @param replicaWaitMs how long WAIT may take
     * @param replicaWaitRunner runs synced writes for the async API and learns replica counts (null when off)
     * @param clientId the client's id, for messages
     */
    public ScriptRunner(CommandExecutor executor, int replicasToAck, boolean connectedReplicas, long replicaWaitMs,
                        ExecutorService replicaWaitRunner, String clientId) {
        this.executor = executor;
        this.acks = replicasToAck > 0 || connectedReplicas
                ? new ReplicaAcks(executor, replicasToAck, executor.capabilities().contains(
                        io.github.relock.spi.Capability.CLUSTER), replicaWaitRunner, System::nanoTime)
                : null;
        this.replicaWaitMs = replicaWaitMs;
        this.replicaWaitRunner = replicaWaitRunner;
        this.clientId = clientId;
    }

    /** @return whether lock writes may be sent with WAIT (LockOptions.replicaSync: pinned or the default) */
    public boolean replicaSync() {
        return acks != null;
    }

    /**
     * @param key a lock's key
     * @return whether lock writes on its node wait for replicas: always with a pinned count; by
     *     default when the node has replicas, or its count is not yet known (never a round trip)
     */
    public boolean waitsForReplicas(String key) {
        return acks != null && (acks.pinned() || acks.known(key) != 0);
    }

    /** Forgets the replica counts learned per node: the pub/sub connection came back, the serving node may differ. */
    public void forgetReplicaCounts() {
        if (acks != null) {
            acks.forget();
        }
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
        String key = call.keys().isEmpty() ? null : call.keys().get(0);
        if (acks == null || key == null && !acks.pinned()) {
            return run(call);
        }
        int expected = acks.expected(key);
        if (expected == 0) { // a node without replicas: no WAIT at all
            return run(call);
        }
        List<Object> r = evalWithReplicaWait(call.script(), call.keys(), call.args(), expected);
        T outcome = call.decode(r.get(0));
        if (!(r.get(1) instanceof Long acked)) {
            throw Replies.malformed(r.get(1), call.script(), key == null ? "" : key,
                    "WAIT's integer count of replicas");
        }
        if (acks.isShort(key, expected, acked)) {
            throw acks.pinned() ? new ReplicaShortfall(what, outcome, acked, expected, replicaWaitMs)
                    : ReplicaShortfall.noneOfConnected(what, outcome, expected, replicaWaitMs);
        }
        return outcome;
    }

    /** @return whether {@code call} goes out as a plain script: replica sync off, or a node known to have no replicas */
    private boolean plain(List<String> keys) {
        return acks == null || !acks.pinned() && (keys.isEmpty() || acks.known(keys.get(0)) == 0);
    }

    /** As {@link #runWrite}, without blocking the caller (a write with WAIT runs on the replica-wait threads). */
    public <T> CompletableFuture<T> runWriteAsync(String what, Call<T> call) {
        if (plain(call.keys())) {
            return runAsync(call);
        }
        try {
            return CompletableFuture.supplyAsync(() -> runWrite(what, call), replicaWaitRunner);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("this LockClient (" + clientId
                    + ") is closed", e));
        }
    }

    /** Runs a script on the calling thread, falling back to EVAL once on NOSCRIPT. */
    public Object eval(Script script, List<String> keys, List<String> args) {
        ScriptCall call = ScriptCall.bySha(script, keys, args);
        try {
            return executor.eval(call);
        } catch (NoScriptException e) {
            return executor.eval(call.withText());
        }
    }

    /** Runs a script without blocking, falling back to EVAL once on NOSCRIPT. */
    public CompletableFuture<Object> evalAsync(Script script, List<String> keys, List<String> args) {
        return evalAsync(ScriptCall.bySha(script, keys, args), Lane.APPLICATION);
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
        if (plain(keys)) { // on the driver's renewal lane, never behind the application's calls
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
    private List<Object> evalWithReplicaWait(Script script, List<String> keys, List<String> args, int replicasToAck) {
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
