package io.github.relock.reactor;

import io.github.relock.api.DistributedCountDownLatch;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * A {@link DistributedCountDownLatch} for Project Reactor (Redisson's
 * {@code RCountDownLatchReactive}): cold {@code Mono}s over the latch's {@code …Async} methods, so an
 * await parks no thread.
 *
 * <pre>{@code
 * ReactiveCountDownLatch ready = ReactiveCountDownLatch.of(locks.getCountDownLatch("workers-ready"));
 * Mono<Boolean> allReady = ready.await(Duration.ofSeconds(30));
 * }</pre>
 *
 * <p>Cancelling an {@code await} ends the engine's wait at once (it leaves the latch's channel);
 * a latch has nothing to give back. Signals arrive on the thread that completed the engine's
 * future: keep work there non-blocking.
 *
 * <p>Thread-safety: immutable; safe for use by several threads, each subscription independent.
 */
public final class ReactiveCountDownLatch {
    private final DistributedCountDownLatch latch;

    private ReactiveCountDownLatch(DistributedCountDownLatch latch) {
        this.latch = latch;
    }

    /**
     * @param latch a relock count-down latch
     * @return its Reactor view; cheap, holds no resource
     * @throws NullPointerException if {@code latch} is null
     */
    public static ReactiveCountDownLatch of(DistributedCountDownLatch latch) {
        return new ReactiveCountDownLatch(Objects.requireNonNull(latch, "latch must not be null"));
    }

    /** @return the latch this view uses */
    public DistributedCountDownLatch latch() {
        return latch;
    }

    /** @return completes when the count is zero, waiting as long as needed; a cancel ends the wait */
    public Mono<Void> await() {
        return Mono.fromFuture(latch::awaitAsync);
    }

    /**
     * @param timeout longest wait, {@code >= 0}
     * @return whether the count reached zero within the wait; a cancel ends the wait
     * @throws NullPointerException if {@code timeout} is null
     */
    public Mono<Boolean> await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        return Mono.fromFuture(() -> latch.awaitAsync(timeout.toMillis(), TimeUnit.MILLISECONDS));
    }

    /** @return completes when counted down; at zero every waiter of every client is woken */
    public Mono<Void> countDown() {
        return call(latch::countDownAsync);
    }

    /** @return the count now, 0 when open */
    public Mono<Long> getCount() {
        return call(latch::getCountAsync);
    }

    /**
     * @param count {@code >= 1}
     * @return whether it was set (only when the latch was open)
     */
    public Mono<Boolean> trySetCount(long count) {
        return call(() -> latch.trySetCountAsync(count));
    }

    /** @return whether the latch existed; it is deleted */
    public Mono<Boolean> delete() {
        return call(latch::deleteAsync);
    }

    private static <T> Mono<T> call(Supplier<CompletableFuture<T>> call) {
        return Mono.fromFuture(call, true);
    }

    @Override
    public String toString() {
        return "ReactiveCountDownLatch[" + latch.getName() + "]";
    }
}
