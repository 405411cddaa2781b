package io.github.relock.rxjava3;

import io.github.relock.api.LockTimeoutException;
import io.github.relock.api.PermitExpirableSemaphore;
import io.github.relock.api.PermitLease;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.core.SingleSource;
import io.reactivex.rxjava3.schedulers.Schedulers;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A {@link PermitExpirableSemaphore} for RxJava 3 (Redisson's {@code RPermitExpirableSemaphoreRx}):
 * permits with ids and leases as cold {@code Single}s and {@code Maybe}s over the semaphore's
 * {@code …Async} methods, so no thread is parked while waiting.
 *
 * <pre>{@code
 * RxPermitSemaphore slots = RxPermitSemaphore.of(locks.getPermitExpirableSemaphore("crawlers"));
 * Single<Page> page = slots.withPermit(Duration.ofSeconds(5), Duration.ofMinutes(1), permit -> crawl(site));
 * }</pre>
 *
 * <p>Disposal: disposing an acquisition while it waits ends the engine's wait (a permit that lands
 * afterwards goes back); a permit granted as the dispose comes is released here. A dispose never
 * leaks a permit. Once emitted, a permit id or {@link PermitLease} is the subscriber's: prefer
 * {@link #withPermit}, which always releases. A {@link PermitLease} closes with a blocking call
 * ({@link PermitLease#close()}): {@link #release(PermitLease)} runs it on {@code Schedulers.io()};
 * releasing by id blocks nothing.
 *
 * <p>Thread-safety: immutable; safe for use by several threads, each subscription independent.
 */
public final class RxPermitSemaphore {
    private static final long NO_LEASE = -1;

    private final PermitExpirableSemaphore semaphore;

    private RxPermitSemaphore(PermitExpirableSemaphore semaphore) {
        this.semaphore = semaphore;
    }

    /**
     * @param semaphore a relock permit-expirable semaphore
     * @return its RxJava view; cheap, holds no resource
     * @throws NullPointerException if {@code semaphore} is null
     */
    public static RxPermitSemaphore of(PermitExpirableSemaphore semaphore) {
        return new RxPermitSemaphore(Objects.requireNonNull(semaphore, "semaphore must not be null"));
    }

    /** @return the semaphore this view uses */
    public PermitExpirableSemaphore semaphore() {
        return semaphore;
    }

    /** @return the id of one permit without a lease, waiting as long as needed */
    public Single<String> acquire() {
        return granted(() -> semaphore.acquireAsync(NO_LEASE, TimeUnit.MILLISECONDS)).toSingle();
    }

    /**
     * @param leaseTime positive: the permit comes back to the pool after it unless released before
     * @return the permit's id, waiting as long as needed
     * @throws NullPointerException if {@code leaseTime} is null
     */
    public Single<String> acquire(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        return granted(() -> semaphore.acquireAsync(leaseTime.toMillis(), TimeUnit.MILLISECONDS)).toSingle();
    }

    /** @return a permit's id (no lease) taken in a single attempt, or empty if none was free */
    public Maybe<String> tryAcquire() {
        return granted(() -> semaphore.tryAcquireAsync(NO_LEASE, NO_LEASE, TimeUnit.MILLISECONDS));
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @return a permit's id (no lease), or empty if none was free within the wait
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Maybe<String> tryAcquire(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        return granted(() -> semaphore.tryAcquireAsync(waitTime.toMillis(), NO_LEASE, TimeUnit.MILLISECONDS));
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease of the permit
     * @return a permit's id, or empty if none was free within the wait
     * @throws NullPointerException if an argument is null
     */
    public Maybe<String> tryAcquire(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        return granted(() -> semaphore.tryAcquireAsync(waitTime.toMillis(), leaseTime.toMillis(), TimeUnit.MILLISECONDS));
    }

    private Maybe<String> granted(Supplier<CompletableFuture<String>> start) {
        return RxGrants.granted(start, Objects::nonNull, id -> RxGrants.logged(semaphore.tryReleaseAsync(id),
                "permit " + id + " of semaphore '" + semaphore.getName() + "'"));
    }

    /**
     * Waits up to {@code waitTime} for a permit and emits it as a {@link PermitLease}, which reports
     * the permit's loss ({@link PermitLease#onLost}).
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease of the permit, or {@code null} for none
     * @return the lease, or {@link LockTimeoutException} if no permit was free within the wait
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Single<PermitLease> acquireLease(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        return RxGrants.granted(() -> semaphore.acquireLeaseAsync(waitTime, leaseTime), Objects::nonNull,
                lease -> Schedulers.io().scheduleDirect(lease::close)).toSingle();
    }

    /**
     * Disposing the returned {@code Completable} does not stop a release already sent.
     *
     * @param permitId a held permit's id
     * @return completes when released; {@link IllegalArgumentException} if it was not held
     */
    public Completable release(String permitId) {
        return RxGrants.run(() -> semaphore.releaseAsync(permitId));
    }

    /**
     * @param permitId a permit's id
     * @return whether it was held and is now released
     */
    public Single<Boolean> tryRelease(String permitId) {
        return RxGrants.call(() -> semaphore.tryReleaseAsync(permitId));
    }

    /**
     * Closes a permit lease ({@link PermitLease#close()}, idempotent) on {@code Schedulers.io()}.
     *
     * @param lease the lease
     * @return completes when released
     * @throws NullPointerException if {@code lease} is null
     */
    public Completable release(PermitLease lease) {
        Objects.requireNonNull(lease, "lease must not be null");
        return Completable.fromRunnable(lease::close).subscribeOn(Schedulers.io());
    }

    /** @return the permits available now */
    public Single<Integer> availablePermits() {
        return RxGrants.call(semaphore::availablePermitsAsync);
    }

    /** @return the total of permits, available and taken */
    public Single<Integer> getPermits() {
        return RxGrants.call(semaphore::getPermitsAsync);
    }

    /** @return the permits taken now */
    public Single<Integer> acquiredPermits() {
        return RxGrants.call(semaphore::acquiredPermitsAsync);
    }

    /**
     * @param permits the count
     * @return whether it was set (only when the semaphore had no count)
     */
    public Single<Boolean> trySetPermits(int permits) {
        return RxGrants.call(() -> semaphore.trySetPermitsAsync(permits));
    }

    /**
     * @param permits the new total
     * @return completes when set
     */
    public Completable setPermits(int permits) {
        return RxGrants.run(() -> semaphore.setPermitsAsync(permits));
    }

    /**
     * @param permits any value
     * @return completes when added
     */
    public Completable addPermits(int permits) {
        return RxGrants.run(() -> semaphore.addPermitsAsync(permits));
    }

    /**
     * @param permitId a held permit
     * @param leaseTime the new lease from now, positive
     * @return whether the permit was still held
     * @throws NullPointerException if {@code leaseTime} is null
     */
    public Single<Boolean> updateLeaseTime(String permitId, Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        return RxGrants.call(() -> semaphore.updateLeaseTimeAsync(permitId, leaseTime.toMillis(), TimeUnit.MILLISECONDS));
    }

    /**
     * @param permitId a held permit
     * @return its remaining lease in ms, as {@link PermitExpirableSemaphore#getLeaseTime(String)}
     */
    public Single<Long> getLeaseTime(String permitId) {
        return RxGrants.call(() -> semaphore.getLeaseTimeAsync(permitId));
    }

    /** @return whether the semaphore existed; it is deleted */
    public Single<Boolean> delete() {
        return RxGrants.call(semaphore::deleteAsync);
    }

    /**
     * Takes a permit as a lease, runs {@code work} and releases the permit when the work succeeds,
     * fails or is disposed; completion waits for the release. A dispose before the grant leaves
     * nothing taken.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease of the permit, or {@code null} for none
     * @param work the work under the permit, given its lease
     * @param <T> what the work emits
     * @return the work's value; {@link LockTimeoutException} if no permit was free within the wait
     * @throws NullPointerException if {@code waitTime} or {@code work} is null
     */
    public <T> Single<T> withPermit(Duration waitTime, Duration leaseTime,
                                    Function<? super PermitLease, ? extends SingleSource<? extends T>> work) {
        Objects.requireNonNull(work, "work must not be null");
        return RxGrants.using(acquireLease(waitTime, leaseTime),
                lease -> CompletableFuture.runAsync(lease::close, command -> Schedulers.io().scheduleDirect(command)), work);
    }

    @Override
    public String toString() {
        return "RxPermitSemaphore[" + semaphore.getName() + "]";
    }
}
