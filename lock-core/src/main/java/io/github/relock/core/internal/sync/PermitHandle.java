package io.github.relock.core.internal.sync;

import io.github.relock.api.LockLostEvent;
import io.github.relock.api.PermitLease;
import io.github.relock.core.internal.hold.HoldRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A permit of a permit-expirable semaphore as a {@link PermitLease}: held until closed, lost as
 * {@link PermitLeases} says. Its lease runs from when its acquire was sent, on this client's clock,
 * so it never looks valid after any client could have reclaimed it.
 *
 * <p>Thread-safety: safe for use by several threads; {@link #close()} is idempotent.
 */
final class PermitHandle implements PermitLease {
    private static final Object HELD = new Object();
    private static final Object RELEASED = new Object();

    private final RedisPermitExpirableSemaphore semaphore;
    private final PermitLeases leases;
    private final String id;
    /** HELD, RELEASED, or the LockLostEvent of its loss. */
    private final AtomicReference<Object> state = new AtomicReference<>(HELD);
    private final List<Consumer<LockLostEvent>> callbacks = new CopyOnWriteArrayList<>();
    /** When the lease ends on this client's clock; Long.MAX_VALUE for never. */
    volatile long expiresAtNanos;
    private volatile Future<?> timer;

    PermitHandle(RedisPermitExpirableSemaphore semaphore, PermitLeases leases, String id, long sentAtNanos, long leaseMs) {
        this.semaphore = semaphore;
        this.leases = leases;
        this.id = id;
        this.expiresAtNanos = expiry(sentAtNanos, leaseMs);
    }

    private static long expiry(long sentAtNanos, long leaseMs) {
        return leaseMs == SyncArgs.NO_LEASE ? Long.MAX_VALUE : sentAtNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
    }

    @Override
    public String semaphoreName() {
        return semaphore.getName();
    }

    @Override
    public String permitId() {
        return id;
    }

    @Override
    public boolean isValid() {
        long at = expiresAtNanos;
        return state.get() == HELD && (at == Long.MAX_VALUE || System.nanoTime() - at < 0);
    }

    @Override
    public PermitLease onLost(Consumer<LockLostEvent> callback) {
        Objects.requireNonNull(callback, "callback must not be null");
        callbacks.add(callback);
        if (state.get() instanceof LockLostEvent e && callbacks.remove(callback)) {
            HoldRegistry.deliver(callback, e); // already lost: at once, on this thread
        }
        return this;
    }

    @Override
    public boolean updateLeaseTime(Duration leaseTime) {
        long leaseMs = SyncArgs.leaseMs(leaseTime);
        if (!isValid()) {
            return false;
        }
        long sent = System.nanoTime();
        boolean held = semaphore.updateLease(id, leaseMs);
        if (!held) {
            leases.lost(this, LockLostEvent.Reason.NOT_HELD);
            return false;
        }
        cancelTimer();
        expiresAtNanos = expiry(sent, leaseMs);
        if (state.get() == HELD) {
            leases.scheduleExpiry(this);
        }
        return true;
    }

    @Override
    public void close() {
        if (!state.compareAndSet(HELD, RELEASED)) {
            return;
        }
        cancelTimer();
        leases.released(this);
        semaphore.tryRelease(id); // false: its lease had ended (it still went back) or it was reclaimed
    }

    /** @return the loss event, or null if it was already released or lost */
    LockLostEvent markLost(LockLostEvent.Reason reason) {
        LockLostEvent event = new LockLostEvent(semaphore.getName(), id, 0, reason);
        if (!state.compareAndSet(HELD, event)) {
            return null;
        }
        cancelTimer();
        return event;
    }

    /** @return the callbacks registered so far, each taken out so it runs once */
    List<Consumer<LockLostEvent>> callbacks() {
        return List.copyOf(callbacks).stream().filter(callbacks::remove).toList(); // each taken once, here or by onLost
    }

    void timer(Future<?> t) {
        timer = t;
    }

    private void cancelTimer() {
        Future<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
    }

    @Override
    public String toString() {
        return "PermitLease[" + semaphore.getName() + ", " + id + "]";
    }
}
