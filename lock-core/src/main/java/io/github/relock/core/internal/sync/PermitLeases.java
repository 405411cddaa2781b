package io.github.relock.core.internal.sync;

import io.github.relock.api.LockLostEvent;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.lock.ClientServices;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The client's permit leases ({@link PermitHandle}) and their loss: a lease that runs out on this
 * client's clock before its release (LEASE_EXPIRED: any client may now reclaim the permit), an
 * update that finds the permit gone (NOT_HELD), or the client closing (CLIENT_CLOSED) is reported
 * once, to the lease's callbacks and the client's lock-lost listeners, as a lost lock is.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class PermitLeases {
    private final ClientServices services;
    private final Consumer<LockLostEvent> lostSink;
    private final Consumer<Runnable> callbackRunner;
    private final Set<PermitHandle> live = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    PermitLeases(ClientServices services, Consumer<LockLostEvent> lostSink, Consumer<Runnable> callbackRunner) {
        this.services = services;
        this.lostSink = lostSink;
        this.callbackRunner = callbackRunner;
    }

    /** Tracks a lease taken just now; one taken as the client closed is reported lost at once. */
    void opened(PermitHandle h) {
        live.add(h);
        if (closed) {
            lost(h, LockLostEvent.Reason.CLIENT_CLOSED);
            return;
        }
        scheduleExpiry(h);
    }

    /** (Re)arms the lease's expiry at its current deadline. */
    void scheduleExpiry(PermitHandle h) {
        long at = h.expiresAtNanos;
        if (at == Long.MAX_VALUE) {
            h.timer(null);
            return;
        }
        h.timer(services.schedule(() -> {
            if (h.expiresAtNanos == at) { // not updated meanwhile
                lost(h, LockLostEvent.Reason.LEASE_EXPIRED);
            }
        }, Math.max(0, at - System.nanoTime()), () -> { }));
    }

    /** The lease was released: no longer tracked. */
    void released(PermitHandle h) {
        live.remove(h);
    }

    /** Reports the lease lost, once. */
    void lost(PermitHandle h, LockLostEvent.Reason reason) {
        LockLostEvent event = h.markLost(reason);
        if (event == null) {
            return;
        }
        live.remove(h);
        callbackRunner.accept(() -> {
            HoldRegistry.deliver(lostSink, event);
            h.callbacks().forEach(c -> HoldRegistry.deliver(c, event));
        });
    }

    /** The client is closing: every lease still held is reported lost, on the calling thread. */
    void close() {
        closed = true;
        for (PermitHandle h : live.toArray(PermitHandle[]::new)) {
            lost(h, LockLostEvent.Reason.CLIENT_CLOSED);
        }
    }
}
