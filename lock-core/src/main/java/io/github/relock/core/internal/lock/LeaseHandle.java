package io.github.relock.core.internal.lock;

import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockLostException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.api.ReleaseOutcome;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.util.Args;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A {@link LockLease}: one acquisition under a synthetic owner id. A release that fails (Redis
 * unreachable) leaves the lease closable again: the next {@link #close()} retries it. Meanwhile it
 * is no longer valid and no longer renewed, so if no retry ever succeeds the key expires on its own.
 * A close() of a lease whose loss the holder was already told of returns quietly; one that finds
 * the lock gone first throws LockLostException; releaseIfHeld() answers either as a ReleaseOutcome.
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
    private volatile ReleaseOutcome outcome; // what the release that ended this lease found
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
            return releaseIfHeld() == ReleaseOutcome.RELEASED;
        }
        if (!released.compareAndSet(false, true) || hold == null) {
            return false;
        }
        hold.clearLostCallbacks();
        return lock.expireHold(hold, ms, true);
    }

    /**
     * Whether the holder was already told the lease is gone: its loss was reported (onLost), it was
     * lost before it was handed out, or its explicit lease time ran out (isValid() answers false).
     */
    private boolean lossKnown() {
        return hold == null || !hold.valid();
    }

    @Override
    public ReleaseOutcome releaseIfHeld() {
        if (!released.compareAndSet(false, true)) {
            ReleaseOutcome o = outcome;
            return o == null ? ReleaseOutcome.RELEASED : o;
        }
        if (hold != null) {
            hold.clearLostCallbacks();
        }
        try {
            ReleaseOutcome o = lock.releaseOutcome(ownerId);
            outcome = o;
            return o;
        } catch (RedisUnavailableException e) {
            releaseFailed = true;
            released.set(false); // a retry may still succeed; renewal has stopped either way
            throw e;
        }
    }

    @Override
    public CompletableFuture<ReleaseOutcome> releaseIfHeldAsync() {
        if (!released.compareAndSet(false, true)) {
            ReleaseOutcome o = outcome;
            return CompletableFuture.completedFuture(o == null ? ReleaseOutcome.RELEASED : o);
        }
        if (hold != null) {
            hold.clearLostCallbacks();
        }
        return lock.releaseOutcomeFor(ownerId).whenComplete((o, t) -> {
            if (t == null) {
                outcome = o;
            } else if (ScriptRunner.unwrap(t) instanceof RedisUnavailableException) {
                releaseFailed = true;
                released.set(false); // a retry may still succeed; renewal has stopped either way
            }
        });
    }

    @Override
    public void close() {
        close(this, lossKnown() || outcome != null); // told before, or answered by an earlier release
    }

    @Override
    public CompletableFuture<Void> closeAsync() {
        return closeAsync(this, lossKnown() || outcome != null);
    }

    /**
     * {@link LockLease#close()} on top of {@code lease}'s {@link LockLease#releaseIfHeld()}: quiet
     * when {@code known} (its loss was reported, or an earlier release answered), else a lock no
     * longer held is a {@link LockLostException}.
     */
    public static void close(LockLease lease, boolean known) {
        ReleaseOutcome o;
        try {
            o = lease.releaseIfHeld();
        } catch (RedisUnavailableException e) {
            if (known) {
                return; // lost already and told: not renewed, the lock expires on its own
            }
            throw e;
        }
        if (o != ReleaseOutcome.RELEASED && !known) {
            throw lost(lease.lockName(), lease.ownerId(), o);
        }
    }

    /** {@link #close(LockLease, boolean)} without blocking, on {@link LockLease#releaseIfHeldAsync()}. */
    public static CompletableFuture<Void> closeAsync(LockLease lease, boolean known) {
        return lease.releaseIfHeldAsync().handle((o, t) -> {
            if (t != null) {
                Throwable cause = ScriptRunner.unwrap(t);
                if (known && cause instanceof RedisUnavailableException) {
                    return null;
                }
                throw ScriptRunner.asRuntime(cause);
            }
            if (o != ReleaseOutcome.RELEASED && !known) {
                throw lost(lease.lockName(), lease.ownerId(), o);
            }
            return null;
        });
    }

    /** The exception of a close() whose release found the lock gone ({@code o}) before any loss was reported. */
    static LockLostException lost(String lockName, long ownerId, ReleaseOutcome o) {
        return new LockLostException(lockName, LockLostEvent.Reason.NOT_HELD, "lock '" + lockName + "' was lost by "
                + "lease " + ownerId + " before it was released: " + (o == ReleaseOutcome.HELD_BY_ANOTHER
                        ? "it is held by another owner" : "it is free (its lease expired, or it was deleted or force-unlocked)"));
    }

    @Override
    public Instant deadline() {
        long now = System.nanoTime();
        Instant wall = Instant.now();
        if (!isValid()) {
            return wall;
        }
        long left = lock.heldUntilNanos(hold) - now;
        return left <= 0 ? wall : wall.plusNanos(left);
    }

    @Override
    public String toString() {
        return "LockLease[" + lock.getName() + ", owner " + ownerId + (isValid() ? ", valid]" : ", not valid]");
    }
}
