package io.github.relock.spring.boot;

import io.github.relock.api.HeldLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockClientStats;
import io.github.relock.api.LockLostEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/*
 * Design: the relock health check, free of Boot's health types (Boot 3.5 and 4 keep them in
 * different packages; RelockHealthIndicators adapts this to whichever is present).
 *
 * What it reads: one probe round trip to Redis through the client's own scripts (an inspection of
 * a name nobody uses: read-only, one key slot), the client's held locks with their renewal lag
 * (LockClient.heldLocks, no Redis call), its stats, and the losses a lock-lost listener has seen
 * since start, and the pub/sub link as the engine sees it (LockClientStats.pubSubReconnecting: the
 * driver reported the connection broken and not back yet), with the subscription count.
 *
 * Rules, first match wins:
 *   UNKNOWN  the client is closed (the application is stopping);
 *   DOWN     the probe failed (Redis unreachable, or erroring, within the command timeout);
 *   DOWN     a renewed hold went two renewal periods (two thirds of the watchdog timeout) without
 *            a confirmed renewal: renewals are not getting through, and the hold will be reported
 *            lost at nine tenths;
 *   DOWN     a hold was lost with RENEWAL_FAILED within the last watchdog timeout;
 *   UP       otherwise. Losses of other reasons (NOT_HELD: deleted or force-unlocked by someone
 *            else; LEASE_EXPIRED: a lease too short for the work; CLIENT_CLOSED) are counted in the
 *            details but do not change the status: they say nothing about this client's link.
 *            Nor does a broken pub/sub link (detail pubSub: reconnecting): locking, renewal and
 *            release do not use it, waiters poll within the lock's TTL meanwhile, and the driver
 *            reopens it by itself; a restart would not bring it back sooner. When Redis itself is
 *            unreachable the probe says DOWN.
 *
 * Thread-safety: safe for use by several threads (the loss counters are atomic).
 */
/**
 * The relock health check behind the {@code relock} health indicator: status and details for one
 * {@link LockClient}, computed without Boot's health types. Package-private.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class RelockHealth implements AutoCloseable {

    /** The name the probe inspects; nothing is stored under it. */
    static final String PROBE_NAME = "relock:health-probe";
    /** At most this many late holds are named in the details. */
    private static final int MAX_NAMED = 10;

    private final LockClient client;
    private final Map<LockLostEvent.Reason, AtomicLong> lost = new EnumMap<>(LockLostEvent.Reason.class);
    private final AtomicReference<Loss> lastLoss = new AtomicReference<>();
    private final AtomicReference<Loss> lastRenewalFailure = new AtomicReference<>();
    private final Consumer<LockLostEvent> listener = this::lost;

    /** One loss and when it was seen. */
    private record Loss(String name, LockLostEvent.Reason reason, long atNanos, Instant at) {
    }

    /** A status code ({@code UP}, {@code DOWN}, {@code UNKNOWN}) and the details to show. */
    record Result(String status, Map<String, Object> details) {
    }

    /** @param client the client to watch; a lock-lost listener is added to it until {@link #close()} */
    RelockHealth(LockClient client) {
        this.client = client;
        for (LockLostEvent.Reason r : LockLostEvent.Reason.values()) {
            lost.put(r, new AtomicLong());
        }
        client.addLockLostListener(listener);
    }

    private void lost(LockLostEvent e) {
        lost.get(e.reason()).incrementAndGet();
        Loss loss = new Loss(e.lockName(), e.reason(), System.nanoTime(), Instant.now());
        lastLoss.set(loss);
        if (e.reason() == LockLostEvent.Reason.RENEWAL_FAILED) {
            lastRenewalFailure.set(loss);
        }
    }

    /** @return the status and details now */
    Result check() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("clientId", client.clientId());
        long watchdogMs = client.options().lockWatchdogTimeout().toMillis();
        long lagLimitMs = watchdogMs * 2 / 3;
        String status = "UP";
        String reason = null;

        long probeStart = System.nanoTime();
        try {
            client.inspect(PROBE_NAME);
            details.put("redis", Map.of("probeMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - probeStart)));
        } catch (IllegalStateException closed) {
            details.put("reason", "the client is closed: " + closed.getMessage());
            return new Result("UNKNOWN", details);
        } catch (RuntimeException e) {
            details.put("redis", Map.of("error", String.valueOf(e)));
            status = "DOWN";
            reason = "Redis did not answer relock's probe: " + e.getMessage();
        }

        LockClientStats stats = client.stats();
        details.put("heldLocks", stats.heldLocks());
        details.put("waiters", stats.waiters());
        details.put("subscriptions", stats.subscriptions());
        details.put("pubSub", stats.pubSubReconnecting() ? "reconnecting" : "up");

        long maxLag = 0;
        List<String> late = new ArrayList<>();
        int lateCount = 0;
        for (HeldLock h : client.heldLocks()) {
            if (!h.renewed()) {
                continue;
            }
            maxLag = Math.max(maxLag, h.sinceConfirmedMillis());
            if (h.sinceConfirmedMillis() > lagLimitMs) {
                lateCount++;
                if (late.size() < MAX_NAMED) {
                    late.add(h.name());
                }
            }
        }
        Map<String, Object> renewal = new LinkedHashMap<>();
        renewal.put("maxLagMillis", maxLag);
        renewal.put("lagLimitMillis", lagLimitMs);
        renewal.put("watchdogTimeoutMillis", watchdogMs);
        if (lateCount > 0) {
            renewal.put("late", late);
            if (reason == null) {
                status = "DOWN";
                reason = lateCount + " renewed lock(s) had no confirmed renewal for over " + lagLimitMs + " ms";
            }
        }
        details.put("renewal", renewal);

        Map<String, Object> losses = new LinkedHashMap<>();
        lost.forEach((r, n) -> losses.put(r.name(), n.get()));
        details.put("lostLocks", losses);
        Loss last = lastLoss.get();
        if (last != null) {
            details.put("lastLoss", Map.of("name", last.name(), "reason", last.reason().name(), "at", last.at().toString()));
        }
        Loss failure = lastRenewalFailure.get();
        if (reason == null && failure != null
                && System.nanoTime() - failure.atNanos() < TimeUnit.MILLISECONDS.toNanos(watchdogMs)) {
            status = "DOWN";
            reason = "lock '" + failure.name() + "' was lost with RENEWAL_FAILED "
                    + Duration.ofNanos(System.nanoTime() - failure.atNanos()).toMillis()
                    + " ms ago (within the watchdog timeout)";
        }
        if (reason != null) {
            details.put("reason", reason);
        }
        return new Result(status, details);
    }

    /** Removes the lock-lost listener. */
    @Override
    public void close() {
        client.removeLockLostListener(listener);
    }
}
