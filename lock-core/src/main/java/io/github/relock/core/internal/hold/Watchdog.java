package io.github.relock.core.internal.hold;

import io.github.relock.api.ServerFallback;
import io.github.relock.core.internal.observe.LockEvents;
import io.github.relock.core.internal.run.ReplicaShortfall;
import io.github.relock.core.internal.util.Scripts;
import io.github.relock.spi.Slots;
import io.github.relock.spi.Script;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/*
 * Design: the watchdog. It owns no hold state: every period it asks the HoldRegistry which holds
 * are due and tells it each answer.
 *
 * One periodic task per client, every lockWatchdogTimeout / 3, renews every watchdog hold in
 * batches: one script per renewalBatchSize holds (500 by default; on a cluster grouped by node
 * where the driver can tell which node serves a slot, else by hash slot; see lock-renew-node.lua).
 * The batches are sent on the driver's async path up to IN_FLIGHT at a time, each one sent as
 * soon as one in flight answers, so a round costs about one round trip per IN_FLIGHT batches (a
 * pipeline on Lettuce's shared connection, parallel pooled connections on Jedis, the nodes of a
 * cluster at once) rather than one per batch; the timer thread never blocks, and a slow Redis
 * cannot pile ticks up (a tick that finds the previous round still running is skipped). Each
 * batch keeps its own send time, timeout and answer: one slow or failed batch does not hold
 * back or fail the others.
 *
 * A server that refuses script flags (Redis 6.2 cannot compile lock-renew-node.lua's
 * "#!lua flags=allow-cross-slot-keys" line) fails the first node batch; its locks are renewed slot
 * by slot at once, as for a split batch, and every later round groups by slot from the start:
 * reported once as ServerFallback.PER_SLOT_RENEWAL.
 *
 * The script extends a key only while the given owner still holds it, so a renewal can never
 * resurrect a released key or extend someone else's lock (and there is no per-lock timer to race
 * with unlock: Redisson #7272's class of bug cannot happen).
 *
 * On a cluster the round (asking the driver which node serves each slot, then sending) runs on
 * the resolver, a thread of its own, never on the timer: nodeOfSlot is the one driver call the
 * SPI asks for synchronously, and a driver that blocks in it (a pool borrow the application has
 * exhausted) would otherwise stop every renewal and every deadline sweep. The timer keeps
 * sweeping; a round stuck in the driver only keeps later rounds from starting, so its holds are
 * reported RENEWAL_FAILED at their deadline, as for a stalled connection.
 *
 * A renewal that fails outright is sent once more at once (a reset leaves a driver's pooled
 * connections dead one after another), then retried next period; one that never answers (a stalled connection, an
 * exhausted pool) counts as failed after min(commandTimeout, watchdog), so it can neither silence
 * the watchdog nor block later ticks. Independently of any call, each tick sweeps the holds whose
 * last confirmed renewal was sent nine tenths of a watchdog timeout ago and reports them
 * RENEWAL_FAILED, and when such a deadline falls before the next tick a one-shot sweep is set for
 * it: the holder is told before its key can expire, so before anyone else can be granted the lock
 * (the fault chapter's half-open and partition rules measure this).
 *
 * Thread-safety: safe for use by several threads; ticks run on the client's timer thread.
 */
public final class Watchdog {
    private static final System.Logger LOG = System.getLogger(Watchdog.class.getName());

    /** Runs a script asynchronously (the client's runner, with the NOSCRIPT fallback). */
    public interface AsyncScripts {
        CompletableFuture<Object> evalAsync(Script script, List<String> keys, List<String> args);
    }

    /**
     * Renewal batches in flight at once per round: enough to keep a pipeline (or a few pooled
     * connections, or every master of a cluster) busy, few enough not to crowd out the
     * application's own commands in a driver's async queue.
     */
    static final int IN_FLIGHT = 8;

    private final HoldRegistry registry;
    private final AsyncScripts scripts;
    private final ScheduledExecutorService timer;
    private final long watchdogMs;
    private final int batchSize;
    private final boolean cluster;
    /** On a cluster: the node serving a slot (a driver's token), or null if unknown. */
    private final IntFunction<Object> nodeOfSlot;
    private final long renewTimeoutMs;
    /** Where a cluster round runs (it calls nodeOfSlot); a direct executor elsewhere. */
    private final Executor resolver;
    private final AtomicBoolean ticking = new AtomicBoolean();
    /** When the running round started ({@link System#nanoTime}), for the warning that it is stuck. */
    private volatile long roundStarted;
    private final AtomicBoolean warnedStuck = new AtomicBoolean();
    private volatile ScheduledFuture<?> task;
    private volatile boolean stopped;
    /** Whether a cluster round groups by node (one script per node); false once the server refused script flags. */
    private volatile boolean nodeBatches = true;
    private final LockEvents events;

    /** A watchdog whose rounds run on the thread that ticks (the timer, or a test's). */
    public Watchdog(HoldRegistry registry, AsyncScripts scripts, ScheduledExecutorService timer, long watchdogMs,
             int batchSize, boolean cluster, IntFunction<Object> nodeOfSlot, long renewTimeoutMs, LockEvents events) {
        this(registry, scripts, timer, watchdogMs, batchSize, cluster, nodeOfSlot, renewTimeoutMs, events, Runnable::run);
    }

    /**
     * @param resolver where a round that asks {@code nodeOfSlot} runs: not the timer, which must
     *     stay free to sweep deadlines whatever the driver does
     */
    public Watchdog(HoldRegistry registry, AsyncScripts scripts, ScheduledExecutorService timer, long watchdogMs,
             int batchSize, boolean cluster, IntFunction<Object> nodeOfSlot, long renewTimeoutMs, LockEvents events,
             Executor resolver) {
        this.resolver = resolver;
        this.registry = registry;
        this.events = events;
        this.scripts = scripts;
        this.timer = timer;
        this.watchdogMs = watchdogMs;
        this.batchSize = batchSize;
        this.cluster = cluster;
        this.nodeOfSlot = nodeOfSlot;
        this.renewTimeoutMs = Math.max(1, renewTimeoutMs);
    }

    public void start() {
        long period = Math.max(1, watchdogMs / 3);
        task = timer.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    public void stop() {
        stopped = true;
        ScheduledFuture<?> t = task;
        if (t != null) {
            t.cancel(false);
        }
    }

    void tick() {
        if (stopped) {
            return;
        }
        sweep(); // even when the previous tick's renewal is still running: that is when it matters
        if (!ticking.compareAndSet(false, true)) {
            warnIfStuck();
            return;
        }
        roundStarted = System.nanoTime();
        if (!cluster || nodeOfSlot == null || !nodeBatches) {
            round();
            return;
        }
        try {
            resolver.execute(this::round);
        } catch (RejectedExecutionException closing) {
            ticking.set(false); // the client is closing
        }
    }

    /** A round still running after a whole watchdog timeout: say so once, naming the likely cause. */
    private void warnIfStuck() {
        long ran = System.nanoTime() - roundStarted;
        if (cluster && nodeOfSlot != null && ran > TimeUnit.MILLISECONDS.toNanos(watchdogMs)
                && warnedStuck.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "a renewal round has been running for "
                    + TimeUnit.NANOSECONDS.toMillis(ran) + " ms: the driver's nodeOfSlot may be blocking (the SPI "
                    + "asks it to answer from the client's slot cache); locks are reported lost at their deadline");
        }
    }

    /** Groups the due holds into batches and sends them; clears {@link #ticking} when all answered. */
    private void round() {
        try {
            // One group per slot, or per node where the driver can tell which node serves a slot.
            Map<Object, List<Hold>> groups = new LinkedHashMap<>();
            Map<Integer, Object> nodes = new HashMap<>();
            for (Hold h : registry.dueForRenewal()) {
                Object group = 0;
                if (cluster) {
                    int slot = Slots.slot(h.key());
                    Object node = !nodeBatches ? null : nodes.containsKey(slot) ? nodes.get(slot) : nodeOf(slot, nodes);
                    group = node != null ? new NodeGroup(node) : slot;
                }
                groups.computeIfAbsent(group, g -> new ArrayList<>()).add(h);
            }
            List<Supplier<CompletableFuture<Void>>> batches = new ArrayList<>();
            for (Map.Entry<Object, List<Hold>> e : groups.entrySet()) {
                boolean byNode = e.getKey() instanceof NodeGroup;
                List<Hold> group = e.getValue();
                for (int from = 0; from < group.size(); from += batchSize) {
                    List<Hold> batch = group.subList(from, Math.min(group.size(), from + batchSize));
                    batches.add(() -> byNode ? renewOnNode(batch) : renew(batch));
                }
            }
            sendAll(batches).whenComplete((v, t) -> ticking.set(false));
        } catch (RuntimeException e) {
            ticking.set(false);
            LOG.log(System.Logger.Level.WARNING, "renewal tick failed", e);
        }
    }

    /**
     * Reports the holds past their confirmation deadline, and if the next deadline comes before the
     * next tick, checks again right then: the holder hears of a loss before its key can expire,
     * not at the next tick or when a stalled renewal finally times out.
     */
    private void sweep() {
        if (stopped) {
            return;
        }
        long now = System.nanoTime();
        long next = registry.sweepUnconfirmed(now);
        long period = TimeUnit.MILLISECONDS.toNanos(Math.max(1, watchdogMs / 3));
        if (next != Long.MAX_VALUE && next - now < period) {
            try {
                timer.schedule(this::sweep, Math.max(0, next - now), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                // the client is closing: close() reports what is still held
            }
        }
    }

    /**
     * Sends the batches at most {@link #IN_FLIGHT} at a time, the next one as soon as one in
     * flight has answered (or timed out).
     *
     * @return completes when every batch has answered
     */
    static CompletableFuture<Void> sendAll(List<Supplier<CompletableFuture<Void>>> batches) {
        if (batches.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        int lanes = Math.min(IN_FLIGHT, batches.size());
        AtomicInteger next = new AtomicInteger();
        AtomicInteger running = new AtomicInteger(lanes);
        for (int i = 0; i < lanes; i++) {
            lane(batches, next, running, done);
        }
        return done;
    }

    /** Sends batches one after another until none is left; a batch that answers at once does not recurse. */
    private static void lane(List<Supplier<CompletableFuture<Void>>> batches, AtomicInteger next,
                             AtomicInteger running, CompletableFuture<Void> done) {
        while (true) {
            int i = next.getAndIncrement();
            if (i >= batches.size()) {
                if (running.decrementAndGet() == 0) {
                    done.complete(null);
                }
                return;
            }
            CompletableFuture<Void> sent;
            try {
                sent = batches.get(i).get();
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e);
            }
            if (!sent.isDone()) {
                sent.whenComplete((v, t) -> {
                    logUnexpected(t);
                    lane(batches, next, running, done);
                });
                return;
            }
            if (sent.isCompletedExceptionally()) {
                logUnexpected(sent.handle((v, t) -> t).join());
            }
        }
    }

    private static void logUnexpected(Throwable t) {
        if (t != null) { // send() hands every answer to the registry; this is a bug, not a Redis failure
            LOG.log(System.Logger.Level.WARNING, "a renewal batch failed unexpectedly", t);
        }
    }

    /** A renewal group of the holds of every slot one node serves. */
    private record NodeGroup(Object node) {
    }

    private Object nodeOf(int slot, Map<Integer, Object> cache) {
        Object node;
        try {
            node = nodeOfSlot == null ? null : nodeOfSlot.apply(slot);
        } catch (RuntimeException e) {
            node = null; // the driver could not tell: renew that slot on its own
        }
        cache.put(slot, node);
        return node;
    }

    /** Holds of one slot (or of a single server): every lock declared in KEYS. */
    private CompletableFuture<Void> renew(List<Hold> batch) {
        if (stopped) {
            return CompletableFuture.completedFuture(null);
        }
        List<String> keys = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(2 * batch.size() + 1);
        args.add(Long.toString(watchdogMs));
        for (Hold h : batch) {
            keys.add(h.key());
            args.add(h.field());
            String prefix = h.timeoutKeyPrefix();
            args.add(prefix == null ? "" : prefix);
        }
        return send(Scripts.LOCK_RENEW, keys, args, batch, null);
    }

    /**
     * Holds of several slots of one node: the first lock declared (it routes the call), every lock
     * in ARGV. If the call fails (say a slot moved to another node meanwhile), the batch is renewed
     * slot by slot at once.
     */
    private CompletableFuture<Void> renewOnNode(List<Hold> batch) {
        if (stopped) {
            return CompletableFuture.completedFuture(null);
        }
        if (batch.stream().map(h -> Slots.slot(h.key())).distinct().count() == 1) {
            return renew(batch);
        }
        List<String> args = new ArrayList<>(3 * batch.size() + 1);
        args.add(Long.toString(watchdogMs));
        for (Hold h : batch) {
            args.add(h.key());
            args.add(h.field());
            String prefix = h.timeoutKeyPrefix();
            args.add(prefix == null ? "" : prefix);
        }
        return send(Scripts.LOCK_RENEW_NODE, List.of(batch.get(0).key()), args, batch, () -> {
            Map<Integer, List<Hold>> bySlot = new LinkedHashMap<>();
            for (Hold h : batch) {
                bySlot.computeIfAbsent(Slots.slot(h.key()), s -> new ArrayList<>()).add(h);
            }
            List<Supplier<CompletableFuture<Void>>> slotBatches = new ArrayList<>(bySlot.size());
            for (List<Hold> slotBatch : bySlot.values()) {
                slotBatches.add(() -> renew(slotBatch));
            }
            return sendAll(slotBatches);
        });
    }

    /**
     * Sends a renewal and hands every hold's answer to the registry.
     *
     * @param fallback on failure, what to do instead of reporting the holds' renewal failed (or null)
     */
    private CompletableFuture<Void> send(Script script, List<String> keys, List<String> args, List<Hold> batch,
                                         Supplier<CompletableFuture<Void>> fallback) {
        return send(script, keys, args, batch, fallback, true);
    }

    /**
     * @param retry whether a call that fails outright (not one that times out) is sent once more
     *     at once: after a reset, a driver's pooled connections are dead one after another, and
     *     waiting a period per dead connection could cost the hold
     */
    private CompletableFuture<Void> send(Script script, List<String> keys, List<String> args, List<Hold> batch,
                                         Supplier<CompletableFuture<Void>> fallback,
                                         boolean retry) {
        long sentAt = System.nanoTime();
        CompletableFuture<Object> call;
        try {
            call = scripts.evalAsync(script, keys, args);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        // A copy, so the timeout never completes the driver's own future.
        CompletableFuture<Object> bounded = call.thenApply(r -> r).orTimeout(renewTimeoutMs, TimeUnit.MILLISECONDS);
        if (fallback != null) {
            return bounded.handle((reply, error) -> {
                if (error == null) {
                    return CompletableFuture.completedFuture(apply(batch, reply, null, sentAt));
                }
                String refusal = refusesScriptFlags(error);
                if (refusal != null) { // Redis 6.2: no script flags; group by slot from now on
                    nodeBatches = false;
                    events.serverFallback(ServerFallback.PER_SLOT_RENEWAL, refusal);
                }
                LOG.log(System.Logger.Level.DEBUG, "renewing " + batch.size() + " lock(s) of one node failed; "
                        + "renewing them slot by slot", error);
                return fallback.get();
            }).thenCompose(f -> f);
        }
        return bounded.handle((reply, error) -> {
            boolean quick = System.nanoTime() - sentAt < TimeUnit.MILLISECONDS.toNanos(renewTimeoutMs) / 2;
            if (error != null && retry && quick && !stopped && !(unwrap(error) instanceof TimeoutException)) {
                LOG.log(System.Logger.Level.DEBUG, "renewing " + batch.size() + " lock(s) failed at once; "
                        + "sending the renewal again", error);
                return send(script, keys, args, batch, null, false);
            }
            apply(batch, reply, error, sentAt);
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(f -> f);
    }

    /**
     * @return the server's words when {@code error} says it cannot compile a script's flags line
     *     ({@code #!lua flags=...}: Redis before 7 reads it as Lua), else null
     */
    static String refusesScriptFlags(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && (m.contains("near '#'") || m.toLowerCase(java.util.Locale.ROOT).contains("shebang"))) {
                return m;
            }
        }
        return null;
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private Void apply(List<Hold> batch, Object reply, Throwable error, long sentAt) {
        long now = System.nanoTime();
        boolean short_ = reply instanceof ReplicaShortfall;
        if (short_) { // replica sync: renewed on the master, but too few replicas acknowledged
            LOG.log(System.Logger.Level.WARNING, ((ReplicaShortfall) reply).getMessage());
            reply = ((ReplicaShortfall) reply).outcome(Object.class);
        }
        int i = 0;
        int failed = 0;
        for (Hold h : batch) {
            if (error != null) {
                failed++;
                registry.renewalFailed(h, now);
            } else {
                Object r = reply instanceof List<?> list && i < list.size() ? list.get(i) : null;
                if (Long.valueOf(1).equals(r) && short_) {
                    registry.renewedShort(h);
                } else if (Long.valueOf(1).equals(r)) {
                    registry.renewed(h, sentAt);
                } else {
                    registry.notHeld(h);
                    failed++;
                }
            }
            i++;
        }
        if (events.renewalTiming()) {
            events.renewalBatch(batch.size() - failed, failed, now - sentAt);
        }
        if (error != null) {
            LOG.log(System.Logger.Level.WARNING, "renewing " + batch.size() + " lock(s) failed; retrying next period",
                    error);
        }
        return null;
    }
}
