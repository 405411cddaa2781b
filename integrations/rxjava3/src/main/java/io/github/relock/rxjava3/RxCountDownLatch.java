package io.github.relock.rxjava3;

import io.github.relock.api.DistributedCountDownLatch;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A {@link DistributedCountDownLatch} for RxJava 3 (Redisson's {@code RCountDownLatchRx}): cold
 * {@code Completable}s and {@code Single}s over the latch's {@code …Async} methods, so an await
 * parks no thread.
 *
 * <pre>{@code
 * RxCountDownLatch ready = RxCountDownLatch.of(locks.getCountDownLatch("workers-ready"));
 * Single<Boolean> allReady = ready.await(Duration.ofSeconds(30));
 * }</pre>
 *
 * <p>Disposing an await ends the engine's wait at once (it leaves the latch's channel); a latch has
 * nothing to give back. Signals arrive on the thread that completed the engine's future: keep work
 * there non-blocking.
 *
 * <p>Thread-safety: immutable; safe for use by several threads, each subscription independent.
 */
public final class RxCountDownLatch {
    private final DistributedCountDownLatch latch;

    private RxCountDownLatch(DistributedCountDownLatch latch) {
        this.latch = latch;
    }

    /**
     * @param latch a relock count-down latch
     * @return its RxJava view; cheap, holds no resource
     * @throws NullPointerException if {@code latch} is null
     */
    public static RxCountDownLatch of(DistributedCountDownLatch latch) {
        return new RxCountDownLatch(Objects.requireNonNull(latch, "latch must not be null"));
    }

    /** @return the latch this view uses */
    public DistributedCountDownLatch latch() {
        return latch;
    }

    /** @return completes when the count is zero, waiting as long as needed; a dispose ends the wait */
    public Completable await() {
        return RxGrants.granted(latch::awaitAsync, v -> false, v -> { }).ignoreElement();
    }

    /**
     * @param timeout longest wait, {@code >= 0}
     * @return whether the count reached zero within the wait; a dispose ends the wait
     * @throws NullPointerException if {@code timeout} is null
     */
    public Single<Boolean> await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        return RxGrants.granted(() -> latch.awaitAsync(timeout.toMillis(), TimeUnit.MILLISECONDS), v -> false, v -> { })
                .toSingle();
    }

    /** @return completes when counted down; at zero every waiter of every client is woken */
    public Completable countDown() {
        return RxGrants.run(latch::countDownAsync);
    }

    /** @return the count now, 0 when open */
    public Single<Long> getCount() {
        return RxGrants.call(latch::getCountAsync);
    }

    /**
     * @param count {@code >= 1}
     * @return whether it was set (only when the latch was open)
     */
    public Single<Boolean> trySetCount(long count) {
        return RxGrants.call(() -> latch.trySetCountAsync(count));
    }

    /** @return whether the latch existed; it is deleted */
    public Single<Boolean> delete() {
        return RxGrants.call(latch::deleteAsync);
    }

    @Override
    public String toString() {
        return "RxCountDownLatch[" + latch.getName() + "]";
    }
}
