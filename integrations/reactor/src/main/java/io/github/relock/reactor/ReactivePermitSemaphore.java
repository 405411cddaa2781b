package io.github.relock.reactor;

import io.github.relock.api.LockTimeoutException;
import io.github.relock.api.PermitExpirableSemaphore;
import io.github.relock.api.PermitLease;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A {@link PermitExpirableSemaphore} for Project Reactor (Redisson's
 * {@code RPermitExpirableSemaphoreReactive}): permits with ids and leases as cold {@code Mono}s over
 * the semaphore's {@code …Async} methods, so no thread is parked while waiting.
 *
 * <pre>{@code
 * ReactivePermitSemaphore slots = ReactivePermitSemaphore.of(locks.getPermitExpirableSemaphore("crawlers"));
 * Flux<Page> pages = slots.withPermit(Duration.ofSeconds(5), Duration.ofMinutes(1), permit -> crawl(site));
 * }</pre>
 *
 * <p>Cancellation: cancelling an acquisition while it waits ends the engine's wait (a permit that
 * lands afterwards goes back); a permit granted but not yet delivered (no request yet, or a cancel
 * racing the grant) is released here. A cancel never leaks a permit. Once delivered, a permit id or
 * {@link PermitLease} is the subscriber's: prefer {@link #withPermit}, which always releases.
 *
 * <p>A {@link PermitLease} closes with a blocking call ({@link PermitLease#close()}): its
 * {@link #release(PermitLease)} runs on {@code Schedulers.boundedElastic()}. Releasing by id
 * ({@link #release(String)}) blocks nothing.
 *
 * <p>Thread-safety: immutable; safe for use by several threads, each subscription independent.
 */
public final class ReactivePermitSemaphore {
    private static final long NO_LEASE = -1;

    private final PermitExpirableSemaphore semaphore;

    private ReactivePermitSemaphore(PermitExpirableSemaphore semaphore) {
        this.semaphore = semaphore;
    }

    /**
     * @param semaphore a relock permit-expirable semaphore
     * @return its Reactor view; cheap, holds no resource
     * @throws NullPointerException if {@code semaphore} is null
     */
    public static ReactivePermitSemaphore of(PermitExpirableSemaphore semaphore) {
        return new ReactivePermitSemaphore(Objects.requireNonNull(semaphore, "semaphore must not be null"));
    }

    /** @return the semaphore this view uses */
    public PermitExpirableSemaphore semaphore() {
        return semaphore;
    }

    /** @return the id of one permit without a lease, waiting as long as needed */
    public Mono<String> acquire() {
        return granted(() -> semaphore.acquireAsync(NO_LEASE, TimeUnit.MILLISECONDS));
    }

    /**
     * @param leaseTime positive: the permit comes back to the pool after it unless released before
     * @return the permit's id, waiting as long as needed
     * @throws NullPointerException if {@code leaseTime} is null
     */
    public Mono<String> acquire(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        return granted(() -> semaphore.acquireAsync(leaseTime.toMillis(), TimeUnit.MILLISECONDS));
    }

    /** @return a permit's id (no lease) taken in a single attempt, or empty if none was free */
    public Mono<String> tryAcquire() {
        return granted(() -> semaphore.tryAcquireAsync(NO_LEASE, NO_LEASE, TimeUnit.MILLISECONDS));
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @return a permit's id (no lease), or empty if none was free within the wait
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Mono<String> tryAcquire(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        return granted(() -> semaphore.tryAcquireAsync(waitTime.toMillis(), NO_LEASE, TimeUnit.MILLISECONDS));
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease of the permit
     * @return a permit's id, or empty if none was free within the wait
     * @throws NullPointerException if an argument is null
     */
    public Mono<String> tryAcquire(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        return granted(() -> semaphore.tryAcquireAsync(waitTime.toMillis(), leaseTime.toMillis(), TimeUnit.MILLISECONDS));
    }

    private Mono<String> granted(Supplier<CompletableFuture<String>> start) {
        return Mono.defer(() -> Grants.granted(start, Objects::nonNull, id -> Grants.logged(
                semaphore.tryReleaseAsync(id), "permit " + id + " of semaphore '" + semaphore.getName() + "'")));
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
    public Mono<PermitLease> acquireLease(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        return Mono.defer(() -> Grants.granted(() -> semaphore.acquireLeaseAsync(waitTime, leaseTime), Objects::nonNull,
                lease -> Grants.logged(CompletableFuture.runAsync(lease::close, r -> Schedulers.boundedElastic().schedule(r)),
                        lease.toString())));
    }

    /**
     * Cancelling the returned {@code Mono} does not stop a release already sent.
     *
     * @param permitId a held permit's id
     * @return completes when released; fails with {@link IllegalArgumentException} if it was not held
     */
    public Mono<Void> release(String permitId) {
        return call(() -> semaphore.releaseAsync(permitId));
    }

    /**
     * @param permitId a permit's id
     * @return whether it was held and is now released
     */
    public Mono<Boolean> tryRelease(String permitId) {
        return call(() -> semaphore.tryReleaseAsync(permitId));
    }

    /**
     * Closes a permit lease ({@link PermitLease#close()}, idempotent) on
     * {@code Schedulers.boundedElastic()}.
     *
     * @param lease the lease
     * @return completes when released
     * @throws NullPointerException if {@code lease} is null
     */
    public Mono<Void> release(PermitLease lease) {
        Objects.requireNonNull(lease, "lease must not be null");
        return Mono.<Void>fromRunnable(lease::close).subscribeOn(Schedulers.boundedElastic());
    }

    /** @return the permits available now */
    public Mono<Integer> availablePermits() {
        return call(semaphore::availablePermitsAsync);
    }

    /** @return the total of permits, available and taken */
    public Mono<Integer> getPermits() {
        return call(semaphore::getPermitsAsync);
    }

    /** @return the permits taken now */
    public Mono<Integer> acquiredPermits() {
        return call(semaphore::acquiredPermitsAsync);
    }

    /**
     * @param permits the count
     * @return whether it was set (only when the semaphore had no count)
     */
    public Mono<Boolean> trySetPermits(int permits) {
        return call(() -> semaphore.trySetPermitsAsync(permits));
    }

    /**
     * @param permits the new total
     * @return completes when set
     */
    public Mono<Void> setPermits(int permits) {
        return call(() -> semaphore.setPermitsAsync(permits));
    }

    /**
     * @param permits any value
     * @return completes when added
     */
    public Mono<Void> addPermits(int permits) {
        return call(() -> semaphore.addPermitsAsync(permits));
    }

    /**
     * @param permitId a held permit
     * @param leaseTime the new lease from now, positive
     * @return whether the permit was still held
     * @throws NullPointerException if {@code leaseTime} is null
     */
    public Mono<Boolean> updateLeaseTime(String permitId, Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        return call(() -> semaphore.updateLeaseTimeAsync(permitId, leaseTime.toMillis(), TimeUnit.MILLISECONDS));
    }

    /**
     * @param permitId a held permit
     * @return its remaining lease in ms, as {@link PermitExpirableSemaphore#getLeaseTime(String)}
     */
    public Mono<Long> getLeaseTime(String permitId) {
        return call(() -> semaphore.getLeaseTimeAsync(permitId));
    }

    /** @return whether the semaphore existed; it is deleted */
    public Mono<Boolean> delete() {
        return call(semaphore::deleteAsync);
    }

    /**
     * Takes a permit as a lease, runs {@code work} and releases the permit when the work
     * completes, fails or is cancelled ({@link Flux#usingWhen}). A cancel before the grant leaves
     * nothing taken.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease of the permit, or {@code null} for none
     * @param work the work under the permit, given its lease
     * @param <T> what the work emits
     * @return the work's signals; {@link LockTimeoutException} if no permit was free within the wait
     * @throws NullPointerException if {@code waitTime} or {@code work} is null
     */
    public <T> Flux<T> withPermit(Duration waitTime, Duration leaseTime,
                                  Function<? super PermitLease, ? extends Publisher<? extends T>> work) {
        Objects.requireNonNull(work, "work must not be null");
        return Flux.usingWhen(acquireLease(waitTime, leaseTime), work, this::release, (l, error) -> release(l),
                this::release);
    }

    private static <T> Mono<T> call(Supplier<CompletableFuture<T>> call) {
        return Mono.fromFuture(call, true);
    }

    @Override
    public String toString() {
        return "ReactivePermitSemaphore[" + semaphore.getName() + "]";
    }
}
