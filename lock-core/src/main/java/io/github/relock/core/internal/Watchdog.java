package io.github.relock.core.internal;

import io.github.relock.core.internal.HoldRegistry.Hold;
import io.github.relock.spi.Script;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/*
 * Design: the watchdog. It owns no hold state: every period it asks the HoldRegistry which holds
 * are due and tells it each answer.
 *
 * One periodic task per client, every lockWatchdogTimeout / 3, renews every watchdog hold in
 * batches: one script per renewalBatchSize holds (grouped by hash slot on a cluster), the batches
 * chained one after another on the driver's async path, so the timer thread never blocks and a
 * slow Redis cannot pile ticks up (a tick that finds the previous one still running is skipped).
 * The script extends a key only while the given owner still holds it, so a renewal can never
 * resurrect a released key or extend someone else's lock (and there is no per-lock timer to race
 * with unlock: Redisson #7272's class of bug cannot happen).
 *
 * A renewal that fails is retried next period; one that never answers (a stalled connection, an
 * exhausted pool) counts as failed after min(commandTimeout, watchdog), so it can neither silence
 * the watchdog nor block later ticks. Either way the registry reports RENEWAL_FAILED once nothing
 * was confirmed for a whole watchdog timeout: the key has certainly expired by then.
 */
final class Watchdog {
    private static final System.Logger LOG = System.getLogger(Watchdog.class.getName());

    /** Runs a script asynchronously (the client's runner, with the NOSCRIPT fallback). */
    interface AsyncScripts {
        CompletableFuture<Object> evalAsync(Script script, List<String> keys, List<String> args);
    }

    private final HoldRegistry registry;
    private final AsyncScripts scripts;
    private final ScheduledExecutorService timer;
    private final long watchdogMs;
    private final int batchSize;
    private final boolean cluster;
    private final long renewTimeoutMs;
    private final AtomicBoolean ticking = new AtomicBoolean();
    private volatile ScheduledFuture<?> task;
    private volatile boolean stopped;

    Watchdog(HoldRegistry registry, AsyncScripts scripts, ScheduledExecutorService timer, long watchdogMs,
             int batchSize, boolean cluster, long renewTimeoutMs) {
        this.registry = registry;
        this.scripts = scripts;
        this.timer = timer;
        this.watchdogMs = watchdogMs;
        this.batchSize = batchSize;
        this.cluster = cluster;
        this.renewTimeoutMs = Math.max(1, renewTimeoutMs);
    }

    void start() {
        long period = Math.max(1, watchdogMs / 3);
        task = timer.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    void stop() {
        stopped = true;
        ScheduledFuture<?> t = task;
        if (t != null) {
            t.cancel(false);
        }
    }

    void tick() {
        if (stopped || !ticking.compareAndSet(false, true)) {
            return;
        }
        try {
            Map<Integer, List<Hold>> bySlot = new LinkedHashMap<>();
            for (Hold h : registry.dueForRenewal()) {
                bySlot.computeIfAbsent(cluster ? Slots.slot(h.key()) : 0, s -> new ArrayList<>()).add(h);
            }
            CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            for (List<Hold> group : bySlot.values()) {
                for (int from = 0; from < group.size(); from += batchSize) {
                    List<Hold> batch = group.subList(from, Math.min(group.size(), from + batchSize));
                    chain = chain.thenCompose(v -> renew(batch));
                }
            }
            chain.whenComplete((v, t) -> ticking.set(false));
        } catch (RuntimeException e) {
            ticking.set(false);
            LOG.log(System.Logger.Level.WARNING, "renewal tick failed", e);
        }
    }

    private CompletableFuture<Void> renew(List<Hold> batch) {
        if (stopped) {
            return CompletableFuture.completedFuture(null);
        }
        long sentAt = System.nanoTime();
        List<String> keys = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(2 * batch.size() + 1);
        args.add(Long.toString(watchdogMs));
        for (Hold h : batch) {
            keys.add(h.key());
            args.add(h.field());
            String prefix = h.timeoutKeyPrefix();
            args.add(prefix == null ? "" : prefix);
        }
        CompletableFuture<Object> call;
        try {
            call = scripts.evalAsync(Scripts.LOCK_RENEW, keys, args);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        // A copy, so the timeout never completes the driver's own future.
        return call.thenApply(r -> r).orTimeout(renewTimeoutMs, TimeUnit.MILLISECONDS).handle((reply, error) -> {
            long now = System.nanoTime();
            int i = 0;
            for (Hold h : batch) {
                if (error != null) {
                    registry.renewalFailed(h, now);
                } else {
                    Object r = reply instanceof List<?> list && i < list.size() ? list.get(i) : null;
                    if (Long.valueOf(1).equals(r)) {
                        registry.renewed(h, sentAt);
                    } else {
                        registry.notHeld(h);
                    }
                }
                i++;
            }
            if (error != null) {
                LOG.log(System.Logger.Level.WARNING, "renewing " + batch.size() + " lock(s) failed; retrying next period",
                        error);
            }
            return null;
        });
    }
}
