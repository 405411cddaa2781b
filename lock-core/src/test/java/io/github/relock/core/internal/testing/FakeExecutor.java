package io.github.relock.core.internal.testing;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.NoScriptException;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * A scripted {@link CommandExecutor}: NOT a fake Redis. It runs no script; each call gets the
 * answer a test queued for its script's name ({@link Script#name()}): a reply, a failure, or (async
 * only) a pending future the test completes by hand. The last queued answer of a script repeats.
 * It records every call, can answer NOSCRIPT once per script, and declares the capabilities asked;
 * subscriptions are confirmed at once and never hear a message.
 *
 * <p>Thread-safety: safe for use by several threads (every method is synchronized).
 */
public final class FakeExecutor implements CommandExecutor {

    /**
     * One call as the engine made it; {@code method} is {@code EVALSHA} or {@code EVAL} (blocking),
     * either with {@code " async"} or {@code " renewal"} (its lane), or {@code evalShaWithWait}, or
     * {@code evalWithWait async} / {@code evalWithWait renewal}.
     */
    public record Invocation(String method, String script, List<String> keys, List<String> args) {
    }

    private sealed interface Answer permits Value, Failure, Pending {
    }

    private record Value(Object reply) implements Answer {
    }

    private record Failure(RuntimeException error) implements Answer {
    }

    private record Pending() implements Answer {
    }

    private final Map<String, Deque<Answer>> answers = new HashMap<>();
    private final Set<String> noScriptOnce = new HashSet<>();
    private final List<Invocation> calls = new ArrayList<>();
    private final List<CompletableFuture<Object>> pending = new ArrayList<>();
    private final List<String> subscribed = new ArrayList<>();
    private final Set<Capability> capabilities = EnumSet.noneOf(Capability.class);
    private Object waitReply = 0L;
    private IntFunction<Object> nodeOfSlot = slot -> null;

    /** Queues replies of {@code script}, in order ({@code (Object) null} for nil). */
    public synchronized FakeExecutor reply(String script, Object... replies) {
        for (Object r : replies) {
            queue(script).add(new Value(r));
        }
        return this;
    }

    /** Queues a failure of {@code script}: thrown by a blocking call, failing an async one's future. */
    public synchronized FakeExecutor fail(String script, RuntimeException error) {
        queue(script).add(new Failure(error));
        return this;
    }

    /** Queues a pending answer of {@code script}: an async call's future, completed by the test ({@link #pending}). */
    public synchronized FakeExecutor hold(String script) {
        queue(script).add(new Pending());
        return this;
    }

    /** The next EVALSHA of {@code script} (blocking, async or with WAIT) answers NOSCRIPT. */
    public synchronized FakeExecutor noScriptOnce(String script) {
        noScriptOnce.add(script);
        return this;
    }

    /** What WAIT answers to {@link #evalShaWithWait}: how many replicas acknowledged. */
    private boolean noTextWithWait;

    public synchronized FakeExecutor waitAcks(long acks) {
        return waitReply(acks);
    }

    /** What WAIT answers to {@link #evalShaWithWait}, as the driver hands it back (a wrong type for malformed replies). */
    public synchronized FakeExecutor waitReply(Object reply) {
        this.waitReply = reply;
        return this;
    }

    /** Answers a script by text with WAIT as the SPI's default does: UnsupportedOperationException. */
    public synchronized FakeExecutor noTextWithWait() {
        this.noTextWithWait = true;
        return this;
    }

    public synchronized FakeExecutor capabilities(Capability... declared) {
        capabilities.clear();
        capabilities.addAll(Arrays.asList(declared));
        return this;
    }

    public synchronized FakeExecutor nodeOfSlot(IntFunction<Object> nodes) {
        this.nodeOfSlot = nodes;
        return this;
    }

    /** @return every call so far, oldest first */
    public synchronized List<Invocation> calls() {
        return List.copyOf(calls);
    }

    /** @return the calls of {@code script}, oldest first */
    public synchronized List<Invocation> calls(String script) {
        return calls.stream().filter(c -> c.script().equals(script)).toList();
    }

    /** @return the {@code i}-th pending future handed out (oldest first) */
    public synchronized CompletableFuture<Object> pending(int i) {
        return pending.get(i);
    }

    public synchronized int pendingCount() {
        return pending.size();
    }

    private Deque<Answer> queue(String script) {
        return answers.computeIfAbsent(script, s -> new ArrayDeque<>());
    }

    private Answer next(String method, Script script, List<String> keys, List<String> args) {
        calls.add(new Invocation(method, script.name(), List.copyOf(keys), List.copyOf(args)));
        Deque<Answer> q = answers.get(script.name());
        if (q == null || q.isEmpty()) {
            throw new AssertionError("no answer scripted for " + script.name() + " (" + method + ")");
        }
        return q.size() > 1 ? q.poll() : q.peek();
    }

    private boolean noScript(Script script) {
        return noScriptOnce.remove(script.name());
    }

    private static Object blocking(Answer a) {
        if (a instanceof Value v) {
            return v.reply();
        }
        if (a instanceof Failure f) {
            throw f.error();
        }
        throw new AssertionError("a pending answer is for async calls only");
    }

    private CompletableFuture<Object> async(Answer a) {
        if (a instanceof Value v) {
            return CompletableFuture.completedFuture(v.reply());
        }
        if (a instanceof Failure f) {
            return CompletableFuture.failedFuture(f.error());
        }
        CompletableFuture<Object> f = new CompletableFuture<>();
        pending.add(f);
        return f;
    }

    /** Recorded as {@code EVALSHA} or {@code EVAL}; NOSCRIPT once per script if asked, by SHA only. */
    @Override
    public synchronized Object eval(ScriptCall call) {
        String method = call.bySha() ? "EVALSHA" : "EVAL";
        if (call.bySha() && noScript(call.script())) {
            calls.add(new Invocation(method, call.script().name(), call.keys(), call.args()));
            throw new NoScriptException("NOSCRIPT No matching script. Please use EVAL.", null);
        }
        return blocking(next(method, call.script(), call.keys(), call.args()));
    }

    /** Recorded as {@code EVALSHA async} or {@code EVAL async}, or {@code ... renewal} on the renewal lane. */
    @Override
    public synchronized CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        String method = (call.bySha() ? "EVALSHA" : "EVAL") + (lane == Lane.RENEWAL ? " renewal" : " async");
        if (call.bySha() && noScript(call.script())) {
            calls.add(new Invocation(method, call.script().name(), call.keys(), call.args()));
            return CompletableFuture.failedFuture(new NoScriptException("NOSCRIPT No matching script.", null));
        }
        return async(next(method, call.script(), call.keys(), call.args()));
    }

    @Override
    public synchronized List<Object> evalShaWithWait(Script script, List<String> keys, List<String> args,
                                                     int replicas, long timeoutMs) {
        if (!capabilities.contains(Capability.REPLICA_WAIT)) {
            return CommandExecutor.super.evalShaWithWait(script, keys, args, replicas, timeoutMs);
        }
        if (noScript(script)) {
            calls.add(new Invocation("evalShaWithWait", script.name(), List.copyOf(keys), List.copyOf(args)));
            throw new NoScriptException("NOSCRIPT No matching script.", null);
        }
        return Arrays.asList(blocking(next("evalShaWithWait", script, keys, args)), waitReply);
    }

    /**
     * Recorded as {@code evalWithWait async} or {@code evalWithWait renewal} (its lane), {@code EVAL}
     * prefixed when sent by text; NOSCRIPT once per script if asked, by SHA only.
     */
    @Override
    public synchronized CompletableFuture<List<Object>> evalWithWaitAsync(ScriptCall call, int replicas, long timeoutMs,
                                                                          Lane lane) {
        if (!capabilities.contains(Capability.REPLICA_WAIT) || !call.bySha() && noTextWithWait) {
            return CommandExecutor.super.evalWithWaitAsync(call, replicas, timeoutMs, lane);
        }
        String method = (call.bySha() ? "" : "EVAL ") + "evalWithWait" + (lane == Lane.RENEWAL ? " renewal" : " async");
        if (call.bySha() && noScript(call.script())) {
            calls.add(new Invocation(method, call.script().name(), call.keys(), call.args()));
            return CompletableFuture.failedFuture(new NoScriptException("NOSCRIPT No matching script.", null));
        }
        Object ack = waitReply;
        return async(next(method, call.script(), call.keys(), call.args())).thenApply(r -> Arrays.asList(r, ack));
    }

    @Override
    public synchronized Object nodeOfSlot(int slot) {
        return nodeOfSlot.apply(slot);
    }

    /** Confirms every subscription at once; nothing is ever published on it. */
    @Override
    public synchronized CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        subscribed.add(channel);
        return CompletableFuture.completedFuture(new Subscription() {
            @Override
            public String channel() {
                return channel;
            }

            @Override
            public CompletableFuture<Void> unsubscribe() {
                return CompletableFuture.completedFuture(null);
            }
        });
    }

    /** @return the channels subscribed so far */
    public synchronized List<String> subscribed() {
        return List.copyOf(subscribed);
    }

    @Override
    public void setConnectionListener(ConnectionListener listener) {
    }

    @Override
    public synchronized Set<Capability> capabilities() {
        return Set.copyOf(capabilities);
    }

    @Override
    public void close() {
    }
}
