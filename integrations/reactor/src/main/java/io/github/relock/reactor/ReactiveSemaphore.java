package io.github.relock.reactor;

import io.github.relock.api.DistributedSemaphore;
import io.github.relock.api.LockTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link DistributedSemaphore} for Project Reactor (Redisson's {@code RSemaphoreReactive}): every
 * method is the semaphore's {@code …Async} method as a cold {@code Mono}, so no thread is parked.
 *
 * <pre>{@code
 * ReactiveSemaphore slots = ReactiveSemaphore.of(locks.getSemaphore("exports"));
 * Mono<Report> report = slots.withPermitsMono(1, Duration.ofSeconds(5), () -> exporter.run());
 * }</pre>
 *
 * <p>Cancellation: cancelling an acquisition while it waits ends the engine's wait, and permits
 * that land after the cancel are given back by the engine; permits granted but not yet delivered
 * (no request yet, or a cancel racing the grant) are released here. A cancel never leaks a permit.
 * Once delivered (the {@code Mono} completed, or emitted {@code true}), the permits are the
 * subscriber's to release: prefer {@link #withPermits}, which always releases.
 *
 * <p>Permits have no owner (see {@link DistributedSemaphore}): any subscriber may release any
 * number. Signals arrive on the thread that completed the engine's future (a driver's I/O thread
 * or the client's timer): keep work there non-blocking, or {@code publishOn} before it.
 *
 * <p>Thread-safety: immutable; safe for use by several threads, each subscription independent.
 */
public final class ReactiveSemaphore {
    private final DistributedSemaphore semaphore;

    private ReactiveSemaphore(DistributedSemaphore semaphore) {
        this.semaphore = semaphore;
    }

    /**
     * @param semaphore a relock semaphore
     * @return its Reactor view; cheap, holds no resource
     * @throws NullPointerException if {@code semaphore} is null
     */
    public static ReactiveSemaphore of(DistributedSemaphore semaphore) {
        return new ReactiveSemaphore(Objects.requireNonNull(semaphore, "semaphore must not be null"));
    }

    /** @return the semaphore this view uses */
    public DistributedSemaphore semaphore() {
        return semaphore;
    }

    /** @return completes when one permit was taken, waiting as long as needed */
    public Mono<Void> acquire() {
        return acquire(1);
    }

    /**
     * @param permits {@code >= 0}
     * @return completes when the permits were taken, waiting as long as needed
     */
    public Mono<Void> acquire(int permits) {
        return Mono.defer(() -> Grants.granted(() -> semaphore.acquireAsync(permits), v -> true,
                v -> giveBack(permits)));
    }

    /** @return whether one permit was taken, in a single attempt */
    public Mono<Boolean> tryAcquire() {
        return tryAcquire(1, Duration.ZERO);
    }

    /**
     * @param permits {@code >= 0}
     * @return whether the permits were taken, in a single attempt
     */
    public Mono<Boolean> tryAcquire(int permits) {
        return tryAcquire(permits, Duration.ZERO);
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @return whether one permit was taken within the wait
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Mono<Boolean> tryAcquire(Duration waitTime) {
        return tryAcquire(1, waitTime);
    }

    /**
     * @param permits {@code >= 0}
     * @param waitTime longest wait, {@code >= 0}; zero tries once
     * @return whether the permits were taken within the wait ({@code false}: nothing was taken)
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Mono<Boolean> tryAcquire(int permits, Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        return Mono.defer(() -> Grants.granted(() -> semaphore.tryAcquireAsync(permits, waitTime), Boolean::booleanValue,
                v -> giveBack(permits)));
    }

    private void giveBack(int permits) {
        Grants.logged(semaphore.releaseAsync(permits), permits + " permit(s) of semaphore '" + semaphore.getName() + "'");
    }

    /** @return completes when one permit was given back */
    public Mono<Void> release() {
        return release(1);
    }

    /**
     * Cancelling the returned {@code Mono} does not stop a release already sent.
     *
     * @param permits {@code >= 0}
     * @return completes when the permits were given back
     */
    public Mono<Void> release(int permits) {
        return call(() -> semaphore.releaseAsync(permits));
    }

    /**
     * @param permits {@code >= 0}
     * @return as {@link DistributedSemaphore#releaseIfExists(int)}
     */
    public Mono<Boolean> releaseIfExists(int permits) {
        return call(() -> semaphore.releaseIfExistsAsync(permits));
    }

    /** @return the permits available now */
    public Mono<Integer> availablePermits() {
        return call(semaphore::availablePermitsAsync);
    }

    /** @return how many permits were taken, all that were available */
    public Mono<Integer> drainPermits() {
        return call(semaphore::drainPermitsAsync);
    }

    /**
     * @param permits the count
     * @return whether it was set (only when the semaphore had no count)
     */
    public Mono<Boolean> trySetPermits(int permits) {
        return call(() -> semaphore.trySetPermitsAsync(permits));
    }

    /**
     * @param permits the count
     * @param timeToLive positive: the semaphore's key expires after it
     * @return whether it was set
     * @throws NullPointerException if {@code timeToLive} is null
     */
    public Mono<Boolean> trySetPermits(int permits, Duration timeToLive) {
        Objects.requireNonNull(timeToLive, "timeToLive must not be null");
        return call(() -> semaphore.trySetPermitsAsync(permits, timeToLive));
    }

    /**
     * @param permits any value; negative removes permits
     * @return completes when added
     */
    public Mono<Void> addPermits(int permits) {
        return call(() -> semaphore.addPermitsAsync(permits));
    }

    /** @return whether the semaphore existed; it is deleted */
    public Mono<Boolean> delete() {
        return call(semaphore::deleteAsync);
    }

    /**
     * Takes {@code permits} permits, runs {@code work} and gives them back when the work completes,
     * fails or is cancelled ({@link Flux#usingWhen}). A cancel before the grant leaves nothing taken.
     *
     * @param permits {@code >= 1}
     * @param waitTime longest wait, {@code >= 0}
     * @param work the work under the permits, subscribed once they are taken
     * @param <T> what the work emits
     * @return the work's signals; {@link LockTimeoutException} if the permits were not available
     *     within the wait
     * @throws NullPointerException if an argument is null
     */
    public <T> Flux<T> withPermits(int permits, Duration waitTime, Supplier<? extends Publisher<? extends T>> work) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        Objects.requireNonNull(work, "work must not be null");
        // handle, not flatMap: synchronous, so the granted permits reach usingWhen as they came
        Mono<Integer> taken = tryAcquire(permits, waitTime).handle((ok, sink) -> {
            if (ok) {
                sink.next(permits);
            } else {
                sink.error(new LockTimeoutException("semaphore '" + semaphore.getName() + "' had no " + permits
                        + " permit(s) free within " + waitTime));
            }
        });
        return Flux.usingWhen(taken, p -> Flux.from(work.get()), this::release, (p, error) -> release(p),
                this::release);
    }

    /**
     * {@link #withPermits} for work that emits at most one value; the value is emitted once the
     * permits were given back.
     *
     * @param permits {@code >= 1}
     * @param waitTime longest wait, {@code >= 0}
     * @param work the work under the permits
     * @param <T> what the work emits
     * @return the work's value
     */
    public <T> Mono<T> withPermitsMono(int permits, Duration waitTime, Supplier<? extends Mono<? extends T>> work) {
        return withPermits(permits, waitTime, work).singleOrEmpty();
    }

    private static <T> Mono<T> call(Supplier<java.util.concurrent.CompletableFuture<T>> call) {
        return Mono.fromFuture(call, true);
    }

    @Override
    public String toString() {
        return "ReactiveSemaphore[" + semaphore.getName() + "]";
    }
}
