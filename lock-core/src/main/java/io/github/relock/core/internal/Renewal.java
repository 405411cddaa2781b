package io.github.relock.core.internal;

import io.github.relock.api.LockLostEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/*
 * Design: the watchdog and the registry of holds.
 *
 * State. One Hold per (lock key, owner field) this client holds, in one map. An acquisition
 * (the acquire script answered nil) creates the Hold or bumps its count; a release follows the
 * release script's answer (1: gone, 0: still held); a release of a lock not held drops it. Holds
 * taken with an explicit lease are kept too, so that leases can say whether they are valid; they
 * are dropped once their lease has run out.
 *
 * Renewal. One periodic task per client, every lockWatchdogTimeout / 3, renews every watchdog
 * hold in batches: one script per renewalBatchSize holds (grouped by hash slot on a cluster), the
 * batches chained one after another on the driver's async path, so the timer thread never blocks
 * and a slow Redis cannot pile ticks up (a tick that finds the previous one still running is
 * skipped). The script extends a key only while the given owner still holds it, so a renewal can
 * never resurrect a released key or extend someone else's lock.
 *
 * Release. A hold leaves the map when the application has released every acquisition it knows
 * of: the release script answered 1 (gone), or 0 (still held) for the last local count, or the
 * release failed with an unknown outcome. The local count is never above Redis's (an acquisition
 * whose reply was lost is not counted), so a stray count left in Redis by such a ghost acquisition
 * is simply no longer renewed and expires within one watchdog timeout; it is never renewed forever.
 *
 * Loss. A renewal answering 0 for a hold that is still registered and not being released means
 * the key expired, was force-unlocked or deleted behind the holder's back: the hold is dropped
 * and reported NOT_HELD. A renewal that fails (Redis unreachable, error) is retried on the next
 * tick; once no renewal has succeeded for a whole watchdog timeout the key has certainly expired,
 * so the hold is reported RENEWAL_FAILED. A renewal that never answers (a stalled connection, an
 * exhausted pool) counts as failed after min(commandTimeout, watchdog), so it cannot silence the
 * watchdog or block later ticks. Expiries and confirmations are measured from the moment the
 * command was sent, never from the reply, so a lease never looks valid after Redis expired it.
 * Callbacks run through the client's callback runner (the timer thread or the user's executor),
 * never on a driver I/O thread; close() reports on the closing thread before it returns. An explicit lease that runs out while still registered
 * is reported LEASE_EXPIRED. Closing the client reports every remaining hold CLIENT_CLOSED.
 *
 * Races with unlock (Redisson #7272 class). Cancel is ordered after schedule by construction:
 * there is no per-lock timer to cancel. An unlock marks its hold `releasing` before sending the
 * release script; a renewal answer of 0 for a releasing hold is not a loss, and the hold leaves
 * the map only on the release script's answer. A renewal in flight while the key is deleted
 * simply answers 0 (PEXPIRE is conditional on the owner's field), so no key is left renewed.
 */
final class Renewal {
    private static final System.Logger LOG = System.getLogger(Renewal.class.getName());

    /** Runs a script asynchronously (the client's runner, with the NOSCRIPT fallback). */
    interface AsyncScripts {
        CompletableFuture<Object> evalAsync(io.github.relock.spi.Script script, List<String> keys, List<String> args);
    }

    private final Map<String, Hold> holds = new ConcurrentHashMap<>();
    private final AsyncScripts scripts;
    private final ScheduledExecutorService timer;
    private final long watchdogMs;
    private final int batchSize;
    private final boolean cluster;
    private final long renewTimeoutMs;
    private final Consumer<LockLostEvent> lostSink;
    private final Consumer<Runnable> callbackRunner;
    private final AtomicBoolean ticking = new AtomicBoolean();
    private volatile ScheduledFuture<?> task;
    private volatile boolean closed;

    Renewal(AsyncScripts scripts, ScheduledExecutorService timer, long watchdogMs, int batchSize, boolean cluster,
            long renewTimeoutMs, Consumer<LockLostEvent> lostSink, Consumer<Runnable> callbackRunner) {
        this.scripts = scripts;
        this.timer = timer;
        this.watchdogMs = watchdogMs;
        this.batchSize = batchSize;
        this.cluster = cluster;
        this.renewTimeoutMs = Math.max(1, renewTimeoutMs);
        this.lostSink = lostSink;
        this.callbackRunner = callbackRunner;
    }

    void start() {
        long period = Math.max(1, watchdogMs / 3);
        task = timer.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Records an acquisition the script confirmed.
     *
     * @param sentAtNanos when the acquire script was sent: the lease runs from then
     * @return the hold, or null if the client is closed (nothing is registered; the caller gives the lock back)
     */
    Hold acquired(String key, String field, long ownerId, String lockName, long leaseMs, long sentAtNanos) {
        if (closed) {
            return null;
        }
        long now = sentAtNanos;
        Hold hold = holds.compute(Hold.id(key, field), (id, h) -> {
            if (h == null || h.lost) {
                h = new Hold(key, field, ownerId, lockName);
            }
            h.count++;
            h.leaseMs = leaseMs;
            h.expiresAtNanos = leaseMs == Args.WATCHDOG ? Long.MAX_VALUE : now + TimeUnit.MILLISECONDS.toNanos(leaseMs);
            h.lastConfirmedNanos = now;
            h.releasing = false;
            return h;
        });
        if (closed) { // close() ran meanwhile: whether or not it saw this hold, it must not stay registered
            holds.remove(hold.id, hold);
            return null;
        }
        return hold;
    }

    /** A composite shortened a hold's lease after acquiring it with a longer one. */
    void acquiredLeaseChanged(String key, String field, long leaseMs) {
        Hold h = holds.get(Hold.id(key, field));
        if (h != null && !h.watchdog()) {
            h.leaseMs = leaseMs;
            h.expiresAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMs);
        }
    }

    Hold get(String key, String field) {
        return holds.get(Hold.id(key, field));
    }

    /** Applies the release script's answer: 1 gone, 0 one hold fewer, anything else not held. */
    void released(String key, String field, long answer) {
        released(Hold.id(key, field), answer);
    }

    /** As {@link #released(String, String, long)}, for a hold already looked up. */
    void released(Hold hold, long answer) {
        released(hold.id, answer);
    }

    private void released(String holdId, long answer) {
        holds.computeIfPresent(holdId, (id, h) -> {
            if (answer == 0 && h.count > 1) {
                h.count--;
                h.releasing = false;
                return h;
            }
            if (answer == 0) {
                LOG.log(System.Logger.Level.WARNING, "lock ''{0}'' ({1}) is still held in Redis after its last known "
                        + "release (an acquisition whose reply was lost counted twice); no longer renewed, it "
                        + "expires within {2} ms", h.lockName, h.field, h.leaseMs == Args.WATCHDOG ? watchdogMs : h.leaseMs);
            }
            return null;
        });
    }

    /**
     * A release failed with an unknown outcome: one acquisition fewer is the application's, and the
     * last one out stops renewal, so the key expires on its own if the release never ran.
     */
    void releaseFailed(String key, String field) {
        holds.computeIfPresent(Hold.id(key, field), (id, h) -> {
            h.releasing = false;
            if (h.count > 1) {
                h.count--;
                return h;
            }
            return null;
        });
    }

    /** This client force-unlocked {@code key}: its own holds of it are lost now, not at the next tick. */
    void forceReleased(String key) {
        for (Hold h : holds.values()) {
            if (h.key.equals(key) && holds.remove(h.id, h)) {
                lost(h, LockLostEvent.Reason.NOT_HELD);
            }
        }
    }

    int size() {
        return holds.size();
    }

    /** Stops renewing and reports every remaining hold lost with CLIENT_CLOSED. */
    void close() {
        closed = true;
        ScheduledFuture<?> t = task;
        if (t != null) {
            t.cancel(false);
        }
        for (Hold h : new ArrayList<>(holds.values())) {
            if (holds.remove(h.id, h) && (h.watchdog() || System.nanoTime() - h.expiresAtNanos < 0)) {
                lost(h, LockLostEvent.Reason.CLIENT_CLOSED, Runnable::run);
            }
        }
    }

    void tick() {
        if (closed || !ticking.compareAndSet(false, true)) {
            return;
        }
        try {
            long now = System.nanoTime();
            Map<Integer, List<Hold>> bySlot = new LinkedHashMap<>();
            for (Hold h : holds.values()) {
                if (h.lost) {
                    continue;
                }
                if (h.watchdog()) {
                    bySlot.computeIfAbsent(cluster ? Slots.slot(h.key) : 0, s -> new ArrayList<>()).add(h);
                } else if (now - h.expiresAtNanos >= 0 && !h.releasing && holds.remove(h.id, h)) {
                    lost(h, LockLostEvent.Reason.LEASE_EXPIRED);
                }
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

    private CompletableFuture<Void> renew(Collection<Hold> batch) {
        if (closed) {
            return CompletableFuture.completedFuture(null);
        }
        long sentAt = System.nanoTime();
        List<String> keys = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(batch.size() + 1);
        args.add(Long.toString(watchdogMs));
        for (Hold h : batch) {
            keys.add(h.key);
            args.add(h.field);
        }
        CompletableFuture<Object> call;
        try {
            call = scripts.evalAsync(Scripts.LOCK_RENEW, keys, args);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        // A copy, so the timeout never completes the driver's own future.
        return call.thenApply(r -> r).orTimeout(renewTimeoutMs, TimeUnit.MILLISECONDS).handle((reply, error) -> {
            int i = 0;
            long now = System.nanoTime();
            for (Hold h : batch) {
                if (error != null) {
                    if (now - h.lastConfirmedNanos >= TimeUnit.MILLISECONDS.toNanos(watchdogMs)
                            && holds.remove(h.id, h)) {
                        lost(h, LockLostEvent.Reason.RENEWAL_FAILED);
                    }
                } else {
                    Object r = reply instanceof List<?> list && i < list.size() ? list.get(i) : null;
                    if (Long.valueOf(1).equals(r)) {
                        h.lastConfirmedNanos = sentAt;
                    } else if (!h.releasing && holds.remove(h.id, h)) {
                        lost(h, LockLostEvent.Reason.NOT_HELD);
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

    private void lost(Hold h, LockLostEvent.Reason reason) {
        lost(h, reason, callbackRunner);
    }

    private void lost(Hold h, LockLostEvent.Reason reason, Consumer<Runnable> runner) {
        h.lostReason = reason;
        h.lost = true;
        LockLostEvent event = new LockLostEvent(h.lockName, h.field, h.ownerId, reason);
        LOG.log(System.Logger.Level.WARNING, "lock ''{0}'' held by {1} lost: {2}", h.lockName, h.field, reason);
        runner.accept(() -> {
            for (Consumer<LockLostEvent> c : h.lostCallbacks) {
                deliver(c, event);
            }
            deliver(lostSink, event);
        });
    }

    static void deliver(Consumer<LockLostEvent> c, LockLostEvent event) {
        try {
            c.accept(event);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "lock-lost callback threw; ignored", e);
        }
    }
}
