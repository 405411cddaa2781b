package io.github.relock.core.internal;

import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.RedisUnavailableException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A {@link LockLease}: one acquisition under a synthetic owner id. A release that fails (Redis
 * unreachable) leaves the lease closable again: the next {@link #close()} retries it. Meanwhile it
 * is no longer valid and no longer renewed, so if no retry ever succeeds the key expires on its own.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LeaseHandle implements LockLease {
    private final RedisLock lock;
    private final Hold hold;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean releaseFailed; // a close() failed: not valid, not renewed, close() may be retried

    LeaseHandle(RedisLock lock, Hold hold) {
        this.lock = lock;
        this.hold = hold;
    }

    @Override
    public String lockName() {
        return lock.getName();
    }

    @Override
    public long ownerId() {
        return hold.ownerId;
    }

    @Override
    public boolean isValid() {
        return !released.get() && !releaseFailed && valid(hold);
    }

    /** @return whether a hold is still believed held: not lost, and within its lease if it has one */
    static boolean valid(Hold hold) {
        return !hold.lost && (hold.watchdog() || System.nanoTime() - hold.expiresAtNanos < 0);
    }

    @Override
    public LockLease onLost(Consumer<LockLostEvent> callback) {
        Objects.requireNonNull(callback, "callback must not be null");
        AtomicBoolean once = new AtomicBoolean();
        Consumer<LockLostEvent> guarded = e -> {
            if (once.compareAndSet(false, true)) {
                callback.accept(e);
            }
        };
        hold.lostCallbacks.add(guarded);
        if (hold.lost && !released.get()) {
            LockLostEvent.Reason reason = hold.lostReason != null ? hold.lostReason : LockLostEvent.Reason.NOT_HELD;
            Renewal.deliver(guarded, new LockLostEvent(hold.lockName, hold.field, hold.ownerId, reason));
        }
        return this;
    }

    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            hold.lostCallbacks.clear();
            try {
                lock.releaseLease(hold.ownerId);
            } catch (RedisUnavailableException e) {
                releaseFailed = true;
                released.set(false); // a retry may still succeed; renewal has stopped either way
                throw e;
            }
        }
    }

    @Override
    public String toString() {
        return "LockLease[" + hold.lockName + ", owner " + hold.field + (isValid() ? ", valid]" : ", not valid]");
    }
}
