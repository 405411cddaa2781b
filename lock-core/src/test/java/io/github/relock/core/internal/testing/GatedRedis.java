package io.github.relock.core.internal.testing;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A driver over an in-memory model of the reentrant lock's hash, with its asynchronous calls in one
 * FIFO queue that runs only when the test says so: a driver whose async pool is stalled (Jedis,
 * Spring Data Redis: queued calls wait, with no timeout, for a thread). Blocking calls run at once,
 * as they do on their own pooled connection.
 *
 * <p>It models the two scripts a reentrant lock's waits and releases send, {@code lock-acquire}
 * (with re-entry and RESOLVE mode) and {@code lock-release} (with a local hand-off to the named
 * candidate; every other client's waiter is assumed absent), as the Lua in
 * {@code core/internal/scripts} does; any other script fails the test. Keys never expire. The
 * release's "0" reaches this client's subscribers of the channel, once each.
 *
 * <p>Thread-safety: safe for use by several threads. Replies and messages are delivered without
 * holding its monitor, on the thread that runs the queued call.
 */
public final class GatedRedis implements CommandExecutor {

    /** One async call, queued until the test runs it. */
    private record Queued(String script, List<String> keys, List<String> args, CompletableFuture<Object> reply) {
    }

    private final Map<String, Map<String, Long>> hashes = new HashMap<>();
    private final Deque<Queued> queue = new ArrayDeque<>();
    private final Map<String, List<MessageListener>> listeners = new HashMap<>();
    private final List<String> trace = new CopyOnWriteArrayList<>();

    // ---------------------------------------------------------------- the test's controls

    /** Sets {@code field}'s hold count on hash {@code key} (0 removes it), as if an acquisition had run. */
    public synchronized void set(String key, String field, long count) {
        Map<String, Long> h = hashes.computeIfAbsent(key, k -> new LinkedHashMap<>());
        if (count == 0) {
            h.remove(field);
        } else {
            h.put(field, count);
        }
        if (h.isEmpty()) {
            hashes.remove(key);
        }
    }

    /** @return the hash {@code key}: field to hold count (empty when the key does not exist) */
    public synchronized Map<String, Long> hash(String key) {
        return Map.copyOf(hashes.getOrDefault(key, Map.of()));
    }

    /** @return how many async calls wait in the queue */
    public synchronized int queued() {
        return queue.size();
    }

    /** @return the queued calls, oldest first, as "script args" */
    public synchronized List<String> queuedCalls() {
        return queue.stream().map(q -> q.script() + " " + q.args()).toList();
    }

    /** @return every script that ran, in order, as "script args -> reply" */
    public List<String> trace() {
        return List.copyOf(trace);
    }

    /** Runs the oldest queued call and delivers its reply on this thread. */
    public void runNext() {
        runNextHoldingReply().run();
    }

    /**
     * Runs the oldest queued call in the model now, and keeps its reply: the returned task delivers
     * it (a reply that comes back late).
     */
    public Runnable runNextHoldingReply() {
        return runNextHoldingReply(0);
    }

    /**
     * As {@link #runNextHoldingReply()}, for the queued call at {@code index} (0 the oldest): a
     * driver with several threads may run queued calls out of order.
     */
    public Runnable runNextHoldingReply(int index) {
        Queued q;
        Object reply;
        Runnable publish;
        synchronized (this) {
            if (index >= queue.size()) {
                throw new AssertionError("no async call is queued at " + index + ": " + queuedCalls());
            }
            List<Queued> all = new ArrayList<>(queue);
            q = all.remove(index);
            queue.clear();
            queue.addAll(all);
            Object[] out = new Object[1];
            publish = execute(q.script(), q.keys(), q.args(), out);
            reply = out[0];
        }
        publish.run();
        return () -> q.reply().complete(reply);
    }

    /** Runs queued calls (and those their replies queue) until none is left. */
    public void drain() {
        while (queued() > 0) {
            runNext();
        }
    }

    // ---------------------------------------------------------------- the driver

    /** Runs the script at once, by SHA or by text alike. */
    @Override
    public Object eval(ScriptCall call) {
        Object[] out = new Object[1];
        Runnable publish;
        synchronized (this) {
            publish = execute(call.script().name(), call.keys(), call.args(), out);
        }
        publish.run();
        return out[0];
    }

    /** Queues the call, on either lane, until the test runs it. */
    @Override
    public synchronized CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        queue.add(new Queued(call.script().name(), call.keys(), call.args(), reply));
        return reply;
    }

    @Override
    public synchronized CompletableFuture<Subscription> subscribe(String channel, boolean sharded,
                                                                  MessageListener listener) {
        listeners.computeIfAbsent(channel, c -> new ArrayList<>()).add(listener);
        return CompletableFuture.completedFuture(new Subscription() {
            @Override
            public String channel() {
                return channel;
            }

            @Override
            public CompletableFuture<Void> unsubscribe() {
                synchronized (GatedRedis.this) {
                    listeners.getOrDefault(channel, new ArrayList<>()).remove(listener);
                }
                return CompletableFuture.completedFuture(null);
            }
        });
    }

    /** Publishes {@code message} on {@code channel} to this client's subscribers, as another client could. */
    public void publish(String channel, String message) {
        List<MessageListener> to;
        synchronized (this) {
            to = List.copyOf(listeners.getOrDefault(channel, List.of()));
        }
        to.forEach(l -> l.onMessage(channel, message));
    }

    @Override
    public void setConnectionListener(ConnectionListener listener) {
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.of();
    }

    @Override
    public void close() {
    }

    // ---------------------------------------------------------------- the model (under the monitor)

    /** Runs one script; its reply goes to {@code out[0]}; returns what to publish once the monitor is let go. */
    private Runnable execute(String script, List<String> keys, List<String> args, Object[] out) {
        Runnable publish = () -> { };
        switch (script) {
            case "lock-acquire" -> out[0] = acquire(keys.get(0), args);
            case "lock-release" -> {
                Object[] r = release(keys.get(0), args);
                out[0] = Arrays.asList(r[0], r[1]);
                if (r[2] != null) {
                    String channel = keys.get(1);
                    List<MessageListener> to = List.copyOf(listeners.getOrDefault(channel, List.of()));
                    out[0] = Arrays.asList(r[0], (long) to.size());
                    publish = () -> to.forEach(l -> l.onMessage(channel, "0"));
                }
            }
            default -> throw new AssertionError("the model does not run " + script);
        }
        trace.add(script + " " + args + " -> " + out[0]);
        return publish;
    }

    /** lock-acquire.lua: nil when acquired or re-entered (RESOLVE: a field already there is kept), else a PTTL. */
    private Object acquire(String key, List<String> args) {
        String field = args.get(1);
        Map<String, Long> h = hashes.get(key);
        boolean resolve = args.size() > 3 && "resolve".equals(args.get(3));
        if (resolve && h != null && h.containsKey(field)) {
            return null;
        }
        if ("nonreentrant".equals(args.get(2)) && h != null && h.containsKey(field)) {
            return -3L;
        }
        if (h == null || h.containsKey(field)) {
            set(key, field, (h == null ? 0 : h.getOrDefault(field, 0L)) + 1);
            return null;
        }
        return 30_000L; // keys never expire here: a long PTTL, so a parked waiter's timer never fires first
    }

    /** lock-release.lua: {code, heard, publish?}. */
    private Object[] release(String key, List<String> args) {
        String field = args.get(1);
        Map<String, Long> h = hashes.get(key);
        if (h == null) {
            return new Object[] {-1L, 0L, null};
        }
        if (!h.containsKey(field)) {
            return new Object[] {-2L, 0L, null};
        }
        long remaining = h.get(field) - 1;
        if (remaining > 0) {
            h.put(field, remaining);
            return new Object[] {0L, 0L, null};
        }
        hashes.remove(key);
        if (args.size() > 3) {
            set(key, args.get(3), 1);
            return new Object[] {2L, 0L, null};
        }
        return new Object[] {1L, 0L, "0"};
    }
}
