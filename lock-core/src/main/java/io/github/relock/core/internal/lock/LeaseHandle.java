package io.github.relock.core.internal.lock;

import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.util.Args;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A {@link LockLease}: one acquisition under a synthetic owner id. A release that fails (Redis
 * unreachable) leaves the lease closable again: the next {@link #close()} retries it. Meanwhile it
 * is no longer valid and no longer renewed, so if no retry ever succeeds the key expires on its own.
 * {@link #expireIn} and {@link #releaseAfter} go through {@link RedisLock#expireHold}; after
 * releaseAfter the lease is released: {@link #close()} does nothing.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LeaseHandle implements LockLease {
    private final RedisLock lock;
    private final Hold hold; // null when the lease was lost before it was handed out
    private final LockLostEvent lostAtStart;
    private final long ownerId;
    private final long token;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean releaseFailed; // a close() failed: not valid, not renewed, close() may be retried

    LeaseHandle(RedisLock lock, Hold hold) {
        this(lock, hold, null, hold.ownerId());
    }

    private LeaseHandle(RedisLock lock, Hold hold, LockLostEvent lostAtStart, long ownerId) {
        this.lock = lock;
        this.hold = hold;
        this.lostAtStart = lostAtStart;
        this.ownerId = ownerId;
        this.token = hold == null ? Acquire.NO_TOKEN : hold.token();
    }

    /** A lease whose hold was lost between its acquisition and now (client closed, key deleted). */
    static LeaseHandle lost(RedisLock lock, String field, long ownerId, LockLostEvent.Reason reason) {
        return new LeaseHandle(lock, null, new LockLostEvent(lock.getName(), field, ownerId, reason), ownerId);
    }

    @Override
    public String lockName() {
        return lock.getName();
    }

    @Override
    public long ownerId() {
        return ownerId;
    }

    @Override
    public OptionalLong fencingToken() {
        return token == Acquire.NO_TOKEN ? OptionalLong.empty() : OptionalLong.of(token);
    }

    @Override
    public boolean isValid() {
        return !released.get() && !releaseFailed && hold != null && hold.valid();
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
        LockLostEvent already = hold == null ? lostAtStart : null;
        if (hold != null) {
            hold.addLostCallback(guarded);
            already = hold.lostEvent();
        }
        if (already != null && !released.get()) {
            HoldRegistry.deliver(guarded, already);
        }
        return this;
    }

    @Override
    public boolean expireIn(Duration ttl) {
        long ms = Args.ttlMs(ttl, "expireIn", false);
        return isValid() && lock.expireHold(hold, ms, false);
    }

    @Override
    public boolean releaseAfter(Duration ttl) {
        long ms = Args.ttlMs(ttl, "releaseAfter", true);
        if (released.get()) {
            return false;
        }
        if (ms == 0) {
            return closeIfHeld(this);
        }
        if (!released.compareAndSet(false, true) || hold == null) {
            return false;
        }
        hold.clearLostCallbacks();
        return lock.expireHold(hold, ms, true);
    }

    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            if (hold != null) {
                hold.clearLostCallbacks();
            }
            try {
                lock.release(ownerId);
            } catch (RedisUnavailableException e) {
                releaseFailed = true;
                released.set(false); // a retry may still succeed; renewal has stopped either way
                throw e;
            }
        }
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> closeAsync() {
        if (!released.compareAndSet(false, true)) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        if (hold != null) {
            hold.clearLostCallbacks();
        }
        return lock.releaseAsync(ownerId).whenComplete((v, t) -> {
            if (t != null && io.github.relock.core.internal.run.ScriptRunner.unwrap(t) instanceof RedisUnavailableException) {
                releaseFailed = true;
                released.set(false); // a retry may still succeed; renewal has stopped either way
            }
        });
    }

    /** {@code releaseAfter(Duration.ZERO)}: closes {@code lease}; @return false if it no longer held its lock */
    public static boolean closeIfHeld(LockLease lease) {
        try {
            lease.close();
            return true;
        } catch (IllegalMonitorStateException notHeld) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "LockLease[" + lock.getName() + ", owner " + ownerId + (isValid() ? ", valid]" : ", not valid]");
    }
}
