package io.github.relock.reactor;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.api.ReleaseOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The engine's lease plus a record of its non-blocking release ({@link LockLease#closeAsync()}),
 * so the lease keeps telling the truth: not {@linkplain #isValid() valid} once released
 * either way, a later {@code close()} does nothing, and a loss reported while the release is in
 * flight is not passed on. A release that failed for want of Redis may be retried, as with
 * {@code close()}.
 *
 * <p>Thread-safety: thread-safe; exactly one of {@link #sendRelease()}, {@link #close()} and
 * {@link #releaseAfter} sends a release.
 */
final class TrackedLease implements LockLease {
    private final DistributedLock lock;
    private final LockLease lease;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean releaseFailed; // for want of Redis: not valid, not renewed, may be retried

    TrackedLease(DistributedLock lock, LockLease lease) {
        this.lock = lock;
        this.lease = lease;
    }

    DistributedLock lock() {
        return lock;
    }

    /**
     * Releases without blocking; completes at once when this lease was already released.
     *
     * @return completes when Redis answered; fails as {@code close()} would throw
     */
    CompletableFuture<Void> sendRelease() {
        if (!released.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> sent;
        try {
            sent = lease.closeAsync();
        } catch (RuntimeException e) {
            released.set(false);
            return CompletableFuture.failedFuture(e);
        }
        return sent.whenComplete((ok, error) -> {
            if (error != null && unwrap(error) instanceof RedisUnavailableException) {
                releaseFailed = true;
                released.set(false); // a retry may still succeed; the engine stopped renewing either way
            }
        });
    }

    static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    @Override
    public String lockName() {
        return lease.lockName();
    }

    @Override
    public long ownerId() {
        return lease.ownerId();
    }

    @Override
    public boolean isValid() {
        return !released.get() && !releaseFailed && lease.isValid();
    }

    @Override
    public OptionalLong fencingToken() {
        return lease.fencingToken();
    }

    @Override
    public LockLease onLost(Consumer<LockLostEvent> callback) {
        Objects.requireNonNull(callback, "callback must not be null");
        lease.onLost(event -> {
            if (!released.get()) {
                callback.accept(event);
            }
        });
        return this;
    }

    @Override
    public boolean expireIn(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl must not be null");
        // Released here means the engine's lease does not know it: asking it would reach Redis,
        // find the lock gone and report a loss.
        return !released.get() && lease.expireIn(ttl);
    }

    @Override
    public boolean releaseAfter(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl must not be null");
        if (!released.compareAndSet(false, true)) {
            return false;
        }
        try {
            return lease.releaseAfter(ttl);
        } catch (IllegalArgumentException e) { // the engine refused ttl before doing anything
            released.set(false);
            throw e;
        }
    }

    /** {@link LockLease#closeAsync()}: the same release as {@link #sendRelease()}. */
    @Override
    public CompletableFuture<Void> closeAsync() {
        return sendRelease();
    }

    @Override
    public ReleaseOutcome releaseIfHeld() {
        released.set(true); // the engine's lease sends at most one release
        try {
            return lease.releaseIfHeld();
        } catch (RedisUnavailableException e) {
            releaseFailed = true;
            released.set(false);
            throw e;
        }
    }

    @Override
    public CompletableFuture<ReleaseOutcome> releaseIfHeldAsync() {
        released.set(true); // the engine's lease sends at most one release
        return lease.releaseIfHeldAsync().whenComplete((o, error) -> {
            if (error != null && unwrap(error) instanceof RedisUnavailableException) {
                releaseFailed = true;
                released.set(false);
            }
        });
    }

    @Override
    public Instant deadline() {
        return isValid() ? lease.deadline() : Instant.now();
    }

    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            try {
                lease.close();
            } catch (RedisUnavailableException e) {
                releaseFailed = true;
                released.set(false);
                throw e;
            }
        }
    }

    @Override
    public String toString() {
        return "LockLease[" + lockName() + ", owner " + ownerId() + (isValid() ? ", valid]" : ", not valid]");
    }
}
