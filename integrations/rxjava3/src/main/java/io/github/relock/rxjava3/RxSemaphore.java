package io.github.relock.rxjava3;

import io.github.relock.api.DistributedSemaphore;
import io.github.relock.api.LockTimeoutException;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.core.SingleSource;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A {@link DistributedSemaphore} for RxJava 3 (Redisson's {@code RSemaphoreRx}): every method is
 * the semaphore's {@code …Async} method as a cold {@code Completable} or {@code Single}, so no thread
 * is parked.
 *
 * <pre>{@code
 * RxSemaphore slots = RxSemaphore.of(locks.getSemaphore("exports"));
 * Single<Report> report = slots.withPermits(1, Duration.ofSeconds(5), () -> exporter.run());
 * }</pre>
 *
 * <p>Disposal: disposing an acquisition while it waits ends the engine's wait, and permits that land
 * after it are given back by the engine; permits granted as the dispose comes are released here. A
 * dispose never leaks a permit. Once the acquisition completed (or emitted {@code true}), the
 * permits are the subscriber's to release: prefer {@link #withPermits}, which always releases.
 * Permits have no owner: any subscriber may release any number. Signals arrive on the thread that
 * completed the engine's future: keep work there non-blocking.
 *
 * <p>Thread-safety: immutable; safe for use by several threads, each subscription independent.
 */
public final class RxSemaphore {
    private final DistributedSemaphore semaphore;

    private RxSemaphore(DistributedSemaphore semaphore) {
        this.semaphore = semaphore;
    }

    /**
     * @param semaphore a relock semaphore
     * @return its RxJava view; cheap, holds no resource
     * @throws NullPointerException if {@code semaphore} is null
     */
    public static RxSemaphore of(DistributedSemaphore semaphore) {
        return new RxSemaphore(Objects.requireNonNull(semaphore, "semaphore must not be null"));
    }

    /** @return the semaphore this view uses */
    public DistributedSemaphore semaphore() {
        return semaphore;
    }

    /** @return completes when one permit was taken, waiting as long as needed */
    public Completable acquire() {
        return acquire(1);
    }

    /**
     * @param permits {@code >= 0}
     * @return completes when the permits were taken, waiting as long as needed
     */
    public Completable acquire(int permits) {
        return RxGrants.granted(() -> semaphore.acquireAsync(permits), v -> true, v -> giveBack(permits)).ignoreElement();
    }

    /** @return whether one permit was taken, in a single attempt */
    public Single<Boolean> tryAcquire() {
        return tryAcquire(1, Duration.ZERO);
    }

    /**
     * @param permits {@code >= 0}
     * @return whether the permits were taken, in a single attempt
     */
    public Single<Boolean> tryAcquire(int permits) {
        return tryAcquire(permits, Duration.ZERO);
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @return whether one permit was taken within the wait
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Single<Boolean> tryAcquire(Duration waitTime) {
        return tryAcquire(1, waitTime);
    }

    /**
     * @param permits {@code >= 0}
     * @param waitTime longest wait, {@code >= 0}; zero tries once
     * @return whether the permits were taken within the wait ({@code false}: nothing was taken)
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Single<Boolean> tryAcquire(int permits, Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        return RxGrants.granted(() -> semaphore.tryAcquireAsync(permits, waitTime), Boolean::booleanValue,
                v -> giveBack(permits)).toSingle();
    }

    private void giveBack(int permits) {
        RxGrants.logged(semaphore.releaseAsync(permits), permits + " permit(s) of semaphore '" + semaphore.getName() + "'");
    }

    /** @return completes when one permit was given back */
    public Completable release() {
        return release(1);
    }

    /**
     * Disposing the returned {@code Completable} does not stop a release already sent.
     *
     * @param permits {@code >= 0}
     * @return completes when the permits were given back
     */
    public Completable release(int permits) {
        return RxGrants.run(() -> semaphore.releaseAsync(permits));
    }

    /**
     * @param permits {@code >= 0}
     * @return as {@link DistributedSemaphore#releaseIfExists(int)}
     */
    public Single<Boolean> releaseIfExists(int permits) {
        return RxGrants.call(() -> semaphore.releaseIfExistsAsync(permits));
    }

    /** @return the permits available now */
    public Single<Integer> availablePermits() {
        return RxGrants.call(semaphore::availablePermitsAsync);
    }

    /** @return how many permits were taken, all that were available */
    public Single<Integer> drainPermits() {
        return RxGrants.call(semaphore::drainPermitsAsync);
    }

    /**
     * @param permits the count
     * @return whether it was set (only when the semaphore had no count)
     */
    public Single<Boolean> trySetPermits(int permits) {
        return RxGrants.call(() -> semaphore.trySetPermitsAsync(permits));
    }

    /**
     * @param permits the count
     * @param timeToLive positive: the semaphore's key expires after it
     * @return whether it was set
     * @throws NullPointerException if {@code timeToLive} is null
     */
    public Single<Boolean> trySetPermits(int permits, Duration timeToLive) {
        Objects.requireNonNull(timeToLive, "timeToLive must not be null");
        return RxGrants.call(() -> semaphore.trySetPermitsAsync(permits, timeToLive));
    }

    /**
     * @param permits any value; negative removes permits
     * @return completes when added
     */
    public Completable addPermits(int permits) {
        return RxGrants.run(() -> semaphore.addPermitsAsync(permits));
    }

    /** @return whether the semaphore existed; it is deleted */
    public Single<Boolean> delete() {
        return RxGrants.call(semaphore::deleteAsync);
    }

    /**
     * Takes {@code permits} permits, runs {@code work} and gives them back when the work succeeds,
     * fails or is disposed; completion waits for the release. A dispose before the grant leaves
     * nothing taken.
     *
     * @param permits {@code >= 1}
     * @param waitTime longest wait, {@code >= 0}
     * @param work the work under the permits, subscribed once they are taken
     * @param <T> what the work emits
     * @return the work's value; {@link LockTimeoutException} if the permits were not free within the wait
     * @throws NullPointerException if an argument is null
     */
    public <T> Single<T> withPermits(int permits, Duration waitTime, Supplier<? extends SingleSource<? extends T>> work) {
        Objects.requireNonNull(work, "work must not be null");
        Single<Integer> taken = tryAcquire(permits, waitTime).map(ok -> {
            if (!ok) {
                throw new LockTimeoutException("semaphore '" + semaphore.getName() + "' had no " + permits
                        + " permit(s) free within " + waitTime);
            }
            return permits;
        });
        return RxGrants.using(taken, semaphore::releaseAsync, p -> work.get());
    }

    @Override
    public String toString() {
        return "RxSemaphore[" + semaphore.getName() + "]";
    }
}
