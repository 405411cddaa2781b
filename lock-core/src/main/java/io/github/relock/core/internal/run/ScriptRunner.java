package io.github.relock.core.internal.run;

import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.util.Replies;
import io.github.relock.core.internal.util.Scripts;
import io.github.relock.spi.Capability;
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
 * {@code LockOptions.replicaSync}, lock writes sent with WAIT ({@link #runWrite}): a write
 * too few replicas acknowledged throws {@link ReplicaShortfall} carrying its outcome on the master.
 * How many replicas a write waits for is {@link ReplicaAcks}' answer: a pinned count, or (the
 * default) the replicas its node has connected, where a node with none gets the plain script.
 *
 * <p>Design: a blocking write uses the driver's blocking {@code evalShaWithWait}; an async write and
 * the watchdog's renewal use its async form ({@code evalWithWaitAsync}) on their own lane, so a
 * renewal never waits behind application writes (issue 33) and no engine thread is held per
 * waiting write. On NOSCRIPT the async form sends the script by text with WAIT (the same script
 * count as a plain call); the blocking form, and a driver whose async form cannot send text, run
 * the script by EVAL and then send WAIT behind a barrier write. The only engine threads are the
 * ones that learn a node's replica count ({@code INFO replication}, once per node).
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class ScriptRunner {
    private final CommandExecutor executor;
    /** Null when replica sync is off. */
    private final ReplicaAcks acks;
    private final long replicaWaitMs;
    /** Learns replica counts; null when replica sync is off. */
    private final ExecutorService replicaCounts;
    private final String clientId;
    /** A view's own command timeout (LockClient.withCommandTimeout), in ns; 0: the driver's alone. */
    private final long boundNanos;

    /**
     * @param executor the driver
     * @param replicasToAck replicas each lock write must reach (0: replica sync off)
     * @param replicaWaitMs how long WAIT may take
     * @param replicaCounts learns replica counts (null when off)
     * @param clientId the client's id, for messages
     */
    public ScriptRunner(CommandExecutor executor, int replicasToAck, long replicaWaitMs, ExecutorService replicaCounts,
                        String clientId) {
        this(executor, replicasToAck, false, replicaWaitMs, replicaCounts, clientId);
    }

    /**
     * @param executor the driver
     * @param replicasToAck replicas each lock write must reach when pinned (0: not pinned)
     * @param connectedReplicas with {@code replicasToAck} 0: wait for the replicas each node has
     *     connected (the default); false with 0: replica sync off
     * @param replicaWaitMs how long WAIT may take
     * @param replicaCounts learns replica counts in the background (null when off)
     * @param clientId the client's id, for messages
     */
    public ScriptRunner(CommandExecutor executor, int replicasToAck, boolean connectedReplicas, long replicaWaitMs,
                        ExecutorService replicaCounts, String clientId) {
        this.executor = executor;
        this.acks = replicasToAck > 0 || connectedReplicas
                ? new ReplicaAcks(executor, replicasToAck, executor.capabilities().contains(Capability.CLUSTER),
                        replicaCounts, System::nanoTime)
                : null;
        this.replicaWaitMs = replicaWaitMs;
        this.replicaCounts = replicaCounts;
        this.clientId = clientId;
        this.boundNanos = 0;
    }

    private ScriptRunner(ScriptRunner base, long boundNanos) {
        this.executor = base.executor;
        this.acks = base.acks;
        this.replicaWaitMs = base.replicaWaitMs;
        this.replicaCounts = base.replicaCounts;
        this.clientId = base.clientId;
        this.boundNanos = boundNanos;
    }

    /**
     * A runner whose calls wait at most {@code timeout} for their reply (a view's command timeout,
     * shorter than the driver's): a blocking call goes through the driver's async path and is waited
     * for, uninterruptibly, for that long; an async call's future fails at that deadline. Either
     * fails with a {@link io.github.relock.api.RedisUnavailableException} that is not a not-sent signal: the call may
     * still run. A write that waits for replicas gets WAIT's timeout on top. Renewal
     * ({@link #renewAsync}) keeps the driver's timeout.
     *
     * @param timeout the bound, positive
     * @return the bounded runner
     */
    public ScriptRunner bounded(java.time.Duration timeout) {
        return new ScriptRunner(this, timeout.toNanos());
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
     * without replica sync or on a node without replicas (nothing to wait for, nothing measurable);
     * otherwise with WAIT.
     *
     * @param what the operation, for the shortfall's message
     * @throws ReplicaShortfall if fewer replicas than asked acknowledged (the outcome is in it)
     */
    public <T> T runWrite(String what, Call<T> call) {
        String key = call.keys().isEmpty() ? null : call.keys().get(0);
        if (acks == null || key == null) {
            return run(call);
        }
        int expected = acks.expected(key);
        if (expected == 0) { // a node without replicas: no WAIT at all
            return run(call);
        }
        if (boundNanos > 0) { // a view's command timeout: the driver's async form, waited for bounded
            return awaitBounded(sendWithWait(what, call, expected, Lane.APPLICATION, replicaWaitMs),
                    boundNanos + replicaWaitMs * 1_000_000L);
        }
        return checked(what, call, expected, evalWithReplicaWait(call.script(), call.keys(), call.args(), expected),
                replicaWaitMs);
    }

    /** As {@link #runWrite}, without blocking the caller (a write with WAIT goes through the driver's async form). */
    public <T> CompletableFuture<T> runWriteAsync(String what, Call<T> call) {
        return writeAsync(what, call, Lane.APPLICATION, boundNanos, replicaWaitMs);
    }

    private <T> CompletableFuture<T> writeAsync(String what, Call<T> call, Lane lane, long bound, long waitMs) {
        String key = call.keys().isEmpty() ? null : call.keys().get(0);
        if (acks == null || key == null) {
            return lane == Lane.RENEWAL ? plainRenewal(call) : runAsync(call);
        }
        int known = acks.known(key);
        if (known == 0) {
            return lane == Lane.RENEWAL ? plainRenewal(call) : runAsync(call);
        }
        CompletableFuture<T> f;
        if (known > 0) {
            f = sendWithWait(what, call, known, lane, waitMs);
        } else { // the node's count is not known yet: learn it (one INFO per node), then send
            CompletableFuture<Integer> expected;
            try {
                expected = acks.expectedAsync(key);
            } catch (RejectedExecutionException e) {
                return CompletableFuture.failedFuture(new IllegalStateException("this LockClient (" + clientId
                        + ") is closed", e));
            }
            f = expected.thenCompose(n -> n == 0
                    ? (lane == Lane.RENEWAL ? plainRenewal(call) : runAsync(call))
                    : sendWithWait(what, call, n, lane, waitMs));
        }
        return bound > 0 ? bounded(f, bound + waitMs * 1_000_000L) : f;
    }

    private <T> CompletableFuture<T> plainRenewal(Call<T> call) {
        return evalAsync(ScriptCall.bySha(call.script(), call.keys(), call.args()), Lane.RENEWAL).thenApply(call::decode);
    }

    /** The call and WAIT through the driver's async form; on NOSCRIPT once more by text. */
    private <T> CompletableFuture<T> sendWithWait(String what, Call<T> call, int expected, Lane lane, long waitMs) {
        ScriptCall sc = ScriptCall.bySha(call.script(), call.keys(), call.args());
        CompletableFuture<List<Object>> sent;
        try {
            sent = executor.evalWithWaitAsync(sc, expected, waitMs, lane);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.exceptionallyCompose(t -> {
            Throwable cause = unwrap(t);
            if (!(cause instanceof NoScriptException)) {
                return CompletableFuture.failedFuture(cause);
            }
            return executor.evalWithWaitAsync(sc.withText(), expected, waitMs, lane)
                    .exceptionallyCompose(t2 -> unwrap(t2) instanceof UnsupportedOperationException
                            ? barrierAsync(call, expected) : CompletableFuture.failedFuture(unwrap(t2)));
        }).thenApply(r -> checked(what, call, expected, r, waitMs));
    }

    /** A driver whose async form cannot send text: EVAL, then WAIT behind a barrier, on a replica-count thread. */
    private <T> CompletableFuture<List<Object>> barrierAsync(Call<T> call, int expected) {
        try {
            return CompletableFuture.supplyAsync(() -> {
                Object reply = executor.eval(ScriptCall.byText(call.script(), call.keys(), call.args()));
                return java.util.Arrays.asList(reply, barrierWait(call.keys(), expected));
            }, replicaCounts);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("this LockClient (" + clientId
                    + ") is closed", e));
        }
    }

    /** @return the outcome of a write sent with WAIT, or throws {@link ReplicaShortfall} */
    private <T> T checked(String what, Call<T> call, int expected, List<Object> r, long waitMs) {
        String key = call.keys().get(0);
        T outcome = call.decode(r.get(0));
        if (!(r.get(1) instanceof Long acked)) {
            throw Replies.malformed(r.get(1), call.script(), key, "WAIT's integer count of replicas");
        }
        if (acks.isShort(key, expected, acked)) {
            throw acks.pinned() ? new ReplicaShortfall(what, outcome, acked, expected, waitMs)
                    : ReplicaShortfall.noneOfConnected(what, outcome, expected, waitMs);
        }
        return outcome;
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
     * The watchdog's script runner, always on the driver's renewal lane ({@link Lane#RENEWAL}):
     * plain on a node without replicas; otherwise with WAIT, as Redisson 4.7.0's renewal
     * ({@code LockTask} through {@code syncedEval}), one script per batch as without it. A reply
     * acknowledged by too few replicas comes back as a {@link ReplicaShortfall} object (not thrown),
     * so the watchdog can tell "renewed on the master only" from "failed".
     */
    public CompletableFuture<Object> renewAsync(Script script, List<String> keys, List<String> args) {
        return renewAsync(script, keys, args, replicaWaitMs);
    }

    /**
     * As {@link #renewAsync(Script, List, List)}, with WAIT bounded by {@code waitMs} as well (at
     * most the replica timeout): the watchdog gives half its renewal deadline, so that slow
     * replicas make a renewal short (reported, retried next period) rather than lose the script's
     * answer to the deadline (a "not held" must still reach the holder).
     */
    public CompletableFuture<Object> renewAsync(Script script, List<String> keys, List<String> args, long waitMs) {
        Call<Object> call = new Call<>(script, keys, args, reply -> reply);
        return writeAsync("renewing locks", call, Lane.RENEWAL, 0, Math.max(1, Math.min(waitMs, replicaWaitMs)))
                .exceptionally(t -> {
            Throwable cause = unwrap(t);
            if (cause instanceof ReplicaShortfall s) {
                return s;
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        });
    }

    /**
     * EVALSHA + WAIT on one connection. On NOSCRIPT the script goes once more by text with WAIT
     * (the driver's async form, waited for); a driver whose async form cannot send text gets the
     * script run once with EVAL (which also caches it) and WAIT sent behind a barrier write (a
     * one-millisecond marker key in the first key's slot), so that it covers the EVAL even if it
     * went out on another pooled connection.
     */
    private List<Object> evalWithReplicaWait(Script script, List<String> keys, List<String> args, int replicasToAck) {
        try {
            return executor.evalShaWithWait(script, keys, args, replicasToAck, replicaWaitMs);
        } catch (NoScriptException e) {
            try {
                return executor.evalWithWaitAsync(ScriptCall.byText(script, keys, args), replicasToAck, replicaWaitMs,
                        Lane.APPLICATION).join();
            } catch (java.util.concurrent.CompletionException | UnsupportedOperationException f) {
                Throwable cause = unwrap(f);
                if (!(cause instanceof UnsupportedOperationException)) {
                    throw asRuntime(cause);
                }
            }
            Object reply = executor.eval(ScriptCall.byText(script, keys, args));
            return java.util.Arrays.asList(reply, barrierWait(keys, replicasToAck));
        }
    }

    /** @return WAIT's count after a barrier write in the slot of {@code keys.get(0)} */
    private Object barrierWait(List<String> keys, int replicasToAck) {
        List<String> barrierKeys = List.of(Scripts.barrierKey(keys.get(0)));
        List<Object> w;
        try {
            w = executor.evalShaWithWait(Scripts.REPLICA_BARRIER, barrierKeys, List.of(), replicasToAck, replicaWaitMs);
        } catch (NoScriptException again) { // the barrier is idempotent: load it by running it
            executor.eval(ScriptCall.byText(Scripts.REPLICA_BARRIER, barrierKeys, List.of()));
            w = executor.evalShaWithWait(Scripts.REPLICA_BARRIER, barrierKeys, List.of(), replicasToAck, replicaWaitMs);
        }
        return w.get(1);
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
