package io.github.relock.core.internal.sync;

import io.github.relock.api.DistributedSemaphore;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.util.Args;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Redisson's {@code RSemaphore} on relock (sync spec 2): the permit count in key N, releases
 * publishing the new count on {@code redisson_sc:{N}}. A waiting acquire is a wait of the one wait
 * machine over a {@link SyncTarget} asking for its permits; a lost reply fails the wait (permits
 * have no owner to resolve by).
 *
 * <p>Thread-safety: safe for use by several threads; it holds no state beyond its name.
 */
public final class RedisSemaphore extends ExpirableSync implements DistributedSemaphore {
    private final Sync sync;
    private final SyncCalls calls;
    private final SyncPolicy policy;

    /**
     * @param sync the client's synchronizer services
     * @param name the semaphore's name (already checked and mapped)
     */
    public RedisSemaphore(Sync sync, String name) {
        this(sync, sync.calls(name));
    }

    private RedisSemaphore(Sync sync, SyncCalls calls) {
        super(sync, calls, false);
        this.sync = sync;
        this.calls = calls;
        this.policy = new SyncPolicy("RedisSemaphore", calls.name, SyncCalls.semaphoreChannel(calls.name), SyncPolicy.PERMITS, false);
    }

    /** One acquire call's wait: its permits. */
    private static final class Permits extends SyncTarget {
        private final SyncCalls calls;
        private final int permits;

        Permits(Sync sync, SyncPolicy policy, SyncCalls calls, int permits) {
            super(sync, policy);
            this.calls = calls;
            this.permits = permits;
        }

        @Override
        Call<Acquire> attemptCall(AttemptMode mode) {
            return calls.tryAcquire(permits);
        }

        @Override
        Call<?> giveBackCall() {
            return calls.release(permits, false);
        }
    }

    @Override
    public String getName() {
        return calls.name;
    }

    @Override
    public String toString() {
        return "RedisSemaphore[" + calls.name + "]";
    }

    // ---------------------------------------------------------------- blocking

    private boolean take(int permits, long waitMs, String method) throws InterruptedException {
        if (SyncArgs.permits(permits, 0, method) == 0) {
            return true;
        }
        return sync.await(new Permits(sync, policy, calls, permits), waitMs);
    }

    @Override
    public void acquire() throws InterruptedException {
        take(1, Args.WAIT_FOREVER, "acquire");
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        take(permits, Args.WAIT_FOREVER, "acquire");
    }

    @Override
    public boolean tryAcquire() {
        return tryAcquire(1);
    }

    @Override
    public boolean tryAcquire(int permits) {
        if (SyncArgs.permits(permits, 0, "tryAcquire") == 0) {
            return true;
        }
        return sync.run(calls.tryAcquire(permits)) instanceof Acquire.Acquired;
    }

    @Override
    public boolean tryAcquire(long waitTime, TimeUnit unit) throws InterruptedException {
        return take(1, Args.waitMs(waitTime, unit), "tryAcquire");
    }

    @Override
    public boolean tryAcquire(int permits, long waitTime, TimeUnit unit) throws InterruptedException {
        return take(permits, Args.waitMs(waitTime, unit), "tryAcquire");
    }

    @Override
    public boolean tryAcquire(Duration waitTime) throws InterruptedException {
        return take(1, Args.waitMs(waitTime), "tryAcquire");
    }

    @Override
    public boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException {
        return take(permits, Args.waitMs(waitTime), "tryAcquire");
    }

    @Override
    public void release() {
        release(1);
    }

    @Override
    public void release(int permits) {
        if (SyncArgs.permits(permits, 0, "release") > 0) {
            sync.run(calls.release(permits, false));
        }
    }

    @Override
    public boolean releaseIfExists(int permits) {
        return SyncArgs.permits(permits, 0, "releaseIfExists") > 0 && sync.run(calls.release(permits, true)) != null;
    }

    @Override
    public int availablePermits() {
        return (int) (long) sync.run(calls.available());
    }

    @Override
    public int drainPermits() {
        return (int) (long) sync.run(calls.drain());
    }

    @Override
    public boolean trySetPermits(int permits) {
        return sync.run(calls.trySetPermits(permits, 0));
    }

    @Override
    public boolean trySetPermits(int permits, Duration timeToLive) {
        return sync.run(calls.trySetPermits(permits, SyncArgs.ttlMs(timeToLive, "trySetPermits")));
    }

    @Override
    public void addPermits(int permits) {
        sync.run(calls.addPermits(permits, false));
    }

    @Override
    public boolean delete() {
        return sync.run(calls.delete(false));
    }

    // ---------------------------------------------------------------- async

    /** The future returned is the wait's own: cancelling it ends the wait. */
    private <T> CompletableFuture<T> takeAsync(int permits, long waitMs, java.util.function.Function<Boolean, T> outcome) {
        if (permits == 0) {
            return CompletableFuture.completedFuture(outcome.apply(true));
        }
        return sync.awaitAsync(new Permits(sync, policy, calls, permits), waitMs, outcome);
    }

    private static <T> CompletableFuture<T> failed(RuntimeException e) {
        return CompletableFuture.failedFuture(e);
    }

    @Override
    public CompletableFuture<Void> acquireAsync() {
        return acquireAsync(1);
    }

    @Override
    public CompletableFuture<Void> acquireAsync(int permits) {
        try {
            SyncArgs.permits(permits, 0, "acquireAsync");
        } catch (RuntimeException e) {
            return failed(e);
        }
        return takeAsync(permits, Args.WAIT_FOREVER, ok -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync() {
        return tryAcquireAsync(1);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits) {
        try {
            if (SyncArgs.permits(permits, 0, "tryAcquireAsync") == 0) {
                return CompletableFuture.completedFuture(true);
            }
        } catch (RuntimeException e) {
            return failed(e);
        }
        return sync.runAsync(calls.tryAcquire(permits)).thenApply(a -> a instanceof Acquire.Acquired);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(long waitTime, TimeUnit unit) {
        return tryAcquireAsync(1, waitTime, unit);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(Duration waitTime) {
        return tryAcquireAsync(1, waitTime);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits, long waitTime, TimeUnit unit) {
        long waitMs;
        try {
            SyncArgs.permits(permits, 0, "tryAcquireAsync");
            waitMs = Args.waitMs(waitTime, unit);
        } catch (RuntimeException e) {
            return failed(e);
        }
        return takeAsync(permits, waitMs, Boolean::valueOf);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration waitTime) {
        long waitMs;
        try {
            SyncArgs.permits(permits, 0, "tryAcquireAsync");
            waitMs = Args.waitMs(waitTime);
        } catch (RuntimeException e) {
            return failed(e);
        }
        return takeAsync(permits, waitMs, Boolean::valueOf);
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return releaseAsync(1);
    }

    @Override
    public CompletableFuture<Void> releaseAsync(int permits) {
        try {
            if (SyncArgs.permits(permits, 0, "releaseAsync") == 0) {
                return CompletableFuture.completedFuture(null);
            }
        } catch (RuntimeException e) {
            return failed(e);
        }
        return sync.runAsync(calls.release(permits, false)).thenApply(n -> null);
    }

    @Override
    public CompletableFuture<Boolean> releaseIfExistsAsync(int permits) {
        try {
            if (SyncArgs.permits(permits, 0, "releaseIfExistsAsync") == 0) {
                return CompletableFuture.completedFuture(false);
            }
        } catch (RuntimeException e) {
            return failed(e);
        }
        return sync.runAsync(calls.release(permits, true)).thenApply(n -> n != null);
    }

    @Override
    public CompletableFuture<Integer> availablePermitsAsync() {
        return sync.runAsync(calls.available()).thenApply(Long::intValue);
    }

    @Override
    public CompletableFuture<Integer> drainPermitsAsync() {
        return sync.runAsync(calls.drain()).thenApply(Long::intValue);
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits) {
        return sync.runAsync(calls.trySetPermits(permits, 0));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits, Duration timeToLive) {
        try {
            return sync.runAsync(calls.trySetPermits(permits, SyncArgs.ttlMs(timeToLive, "trySetPermitsAsync")));
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> addPermitsAsync(int permits) {
        return sync.runAsync(calls.addPermits(permits, false)).thenApply(n -> null);
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync() {
        return sync.runAsync(calls.delete(false));
    }
}
