package io.github.relock.core.internal.sync;

import io.github.relock.api.DistributedCountDownLatch;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.util.Args;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Redisson's {@code RCountDownLatch} on relock (sync spec 4): the count in key N, "0" published on
 * <code>redisson_countdownlatch__channel__&#123;N&#125;</code> when it reaches zero. An await is a
 * wait of the one wait machine whose attempt reads the count: open (zero, or no key) is
 * "acquired"; "0" wakes every waiter of this client, and each polls at most every
 * {@link SyncPolicy#POLL_MS} meanwhile. There is nothing to give back.
 *
 * <p>Thread-safety: safe for use by several threads; it holds no state beyond its name.
 */
public final class RedisCountDownLatch implements DistributedCountDownLatch {
    private final Sync sync;
    private final SyncCalls calls;
    private final SyncTarget open;

    /**
     * @param sync the client's synchronizer services
     * @param name the latch's name (already checked and mapped)
     */
    public RedisCountDownLatch(Sync sync, String name) {
        this.sync = sync;
        this.calls = sync.calls(name);
        SyncPolicy policy = new SyncPolicy("RedisCountDownLatch", name, SyncCalls.latchChannel(name), SyncPolicy.LATCH,
                true);
        this.open = new SyncTarget(sync, policy) {
            @Override
            Call<Acquire> attemptCall(AttemptMode mode) {
                return calls.latchOpen();
            }

            @Override
            Call<?> giveBackCall() {
                return null;
            }
        };
    }

    @Override
    public String getName() {
        return calls.name;
    }

    @Override
    public String toString() {
        return "RedisCountDownLatch[" + calls.name + "]";
    }

    @Override
    public void await() throws InterruptedException {
        sync.await(open, Args.WAIT_FOREVER);
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return sync.await(open, timeoutMs(timeout, unit));
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        return sync.await(open, Args.waitMs(timeout));
    }

    private static long timeoutMs(long timeout, TimeUnit unit) {
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be >= 0, was " + timeout + " " + unit);
        }
        return Args.waitMs(timeout, unit);
    }

    @Override
    public void countDown() {
        sync.run(calls.countDown());
    }

    @Override
    public long getCount() {
        return Math.max(0, sync.run(calls.count()));
    }

    @Override
    public boolean trySetCount(long count) {
        return sync.run(calls.trySetCount(SyncArgs.count(count)));
    }

    @Override
    public boolean delete() {
        return sync.run(calls.latchDelete());
    }

    @Override
    public boolean isExists() {
        return sync.run(calls.ttl()) != -2;
    }

    @Override
    public CompletableFuture<Void> awaitAsync() {
        return sync.awaitAsync(open, Args.WAIT_FOREVER, ok -> null);
    }

    @Override
    public CompletableFuture<Boolean> awaitAsync(long timeout, TimeUnit unit) {
        try {
            return sync.awaitAsync(open, timeoutMs(timeout, unit), Boolean::valueOf);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Void> countDownAsync() {
        return sync.runAsync(calls.countDown()).thenApply(n -> null);
    }

    @Override
    public CompletableFuture<Long> getCountAsync() {
        return sync.runAsync(calls.count()).thenApply(n -> Math.max(0, n));
    }

    @Override
    public CompletableFuture<Boolean> trySetCountAsync(long count) {
        try {
            return sync.runAsync(calls.trySetCount(SyncArgs.count(count)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync() {
        return sync.runAsync(calls.latchDelete());
    }

    @Override
    public CompletableFuture<Boolean> isExistsAsync() {
        return sync.runAsync(calls.ttl()).thenApply(ttl -> ttl != -2);
    }
}
