package io.github.relock.rxjava3;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostException;
import io.github.relock.api.LockTimeoutException;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.core.SingleSource;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link DistributedLock} for RxJava 3, the counterpart of Redisson's {@code RLockRx} with
 * leases instead of thread ids: {@link #lock} emits a {@link LockLease} with an owner id of its own
 * (never a thread's), which any thread or scheduler may {@link #unlock}. Built on
 * {@link DistributedLock#acquireAsync(Duration, Duration)} and {@link LockLease#closeAsync()}, so no
 * thread is parked.
 *
 * <pre>{@code
 * RxLock lock = RxLock.of(locks.getLock("orders:42"));
 * Single<Receipt> paid = lock.withLock(Duration.ofSeconds(5), lease -> payments.pay(order));
 * }</pre>
 *
 * <p>Disposal: disposing before the grant cancels the engine's wait (it leaves the channel, never
 * takes the lock afterwards, gives back an acquisition whose reply lands later); a lease granted as
 * the dispose comes is released here. Once emitted, the lease is the subscriber's: prefer
 * {@link #withLock}, which always releases. Signals arrive on the thread that completed the engine's
 * future (a driver's I/O thread or the client's timer): keep work there non-blocking, or
 * {@code observeOn} before it. Every method returns a cold source: nothing is sent before a
 * subscription, and each subscription is its own acquisition. Waits are bounded ({@code >= 0};
 * zero tries once): to wait as long as it takes, pass a long wait and dispose.
 *
 * <p>Thread-safety: immutable; safe for use by several threads, each subscription independent.
 */
public final class RxLock {
    private final DistributedLock lock;

    private RxLock(DistributedLock lock) {
        this.lock = lock;
    }

    /**
     * @param lock any relock lock: reentrant, fair, fenced, spin, read or write, multi or red lock
     * @return its RxJava view; cheap, holds no resource
     * @throws NullPointerException if {@code lock} is null
     */
    public static RxLock of(DistributedLock lock) {
        return new RxLock(Objects.requireNonNull(lock, "lock must not be null"));
    }

    /** @return the lock this view acquires */
    public DistributedLock lock() {
        return lock;
    }

    /**
     * Waits up to {@code waitTime} for the lock; the lease is kept by the watchdog until unlocked.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @return the lease, or {@link LockTimeoutException} if the lock stayed held for the wait
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Single<LockLease> lock(Duration waitTime) {
        return tryLock(waitTime).switchIfEmpty(Single.error(() -> timedOut(waitTime)));
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease; not renewed
     * @return the lease, or {@link LockTimeoutException} if the lock stayed held for the wait
     * @throws NullPointerException if an argument is null
     */
    public Single<LockLease> lock(Duration waitTime, Duration leaseTime) {
        return tryLock(waitTime, leaseTime).switchIfEmpty(Single.error(() -> timedOut(waitTime)));
    }

    private LockTimeoutException timedOut(Duration waitTime) {
        return new LockTimeoutException("lock '" + lock.getName() + "' stayed held for " + waitTime);
    }

    /** @return the lease taken in a single attempt, or empty if the lock was held */
    public Maybe<LockLease> tryLock() {
        return tryLock(Duration.ZERO);
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @return the lease (watchdog), or empty if the lock stayed held for the whole wait
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Maybe<LockLease> tryLock(Duration waitTime) {
        return acquire(Objects.requireNonNull(waitTime, "waitTime must not be null"), null);
    }

    /**
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease; not renewed
     * @return the lease, or empty if the lock stayed held for the whole wait
     * @throws NullPointerException if an argument is null
     */
    public Maybe<LockLease> tryLock(Duration waitTime, Duration leaseTime) {
        return acquire(Objects.requireNonNull(waitTime, "waitTime must not be null"),
                Objects.requireNonNull(leaseTime, "leaseTime must not be null (use tryLock(waitTime) for the watchdog)"));
    }

    private Maybe<LockLease> acquire(Duration waitTime, Duration leaseTime) {
        // The engine's own future, so that a dispose cancels its wait; a timeout is an empty Maybe.
        return RxGrants.granted(() -> lock.acquireAsync(waitTime, leaseTime), lease -> true, this::giveBack)
                .onErrorResumeNext(e -> e instanceof LockTimeoutException ? Maybe.empty() : Maybe.error(e));
    }

    private void giveBack(LockLease lease) {
        RxGrants.logged(lease.closeAsync(), "lock '" + lock.getName() + "'");
    }

    /**
     * Releases a lease of this lock without blocking ({@link LockLease#closeAsync()}); idempotent once
     * it succeeded. Disposing the returned {@code Completable} does not stop a release already sent.
     *
     * @param lease a lease of this lock
     * @return completes once Redis released the lock; {@link LockLostException} if the release found
     *     the lease lost and no loss had been reported before
     * @throws NullPointerException if {@code lease} is null
     * @throws IllegalArgumentException if {@code lease} is for another lock name
     */
    public Completable unlock(LockLease lease) {
        Objects.requireNonNull(lease, "lease must not be null");
        if (!lease.lockName().equals(lock.getName())) {
            throw new IllegalArgumentException("lease of lock '" + lease.lockName() + "' cannot release lock '"
                    + lock.getName() + "'");
        }
        return RxGrants.run(lease::closeAsync);
    }

    /** @return whether the lock was held and is now deleted, whoever held it */
    public Single<Boolean> forceUnlock() {
        return RxGrants.call(lock::forceUnlockAsync);
    }

    /** @return whether anyone holds the lock now */
    public Single<Boolean> isLocked() {
        return RxGrants.call(lock::isLockedAsync);
    }

    /** @return the lock's remaining time to live in ms, as {@link DistributedLock#remainTimeToLive()} */
    public Single<Long> remainTimeToLive() {
        return RxGrants.call(lock::remainTimeToLiveAsync);
    }

    /**
     * Takes the lock (watchdog lease), runs {@code work} and releases the lock when the work
     * succeeds, fails or is disposed. Completion waits for the release; an error of the work is
     * passed on after the release, with a failed release's error added as suppressed; a dispose
     * sends the release and does not wait for it.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param work the work under the lock, given the lease
     * @param <T> what the work emits
     * @return the work's value; {@link LockTimeoutException} if the lock stayed held for the wait
     * @throws NullPointerException if an argument is null
     */
    public <T> Single<T> withLock(Duration waitTime, Function<? super LockLease, ? extends SingleSource<? extends T>> work) {
        Objects.requireNonNull(work, "work must not be null");
        return RxGrants.using(lock(waitTime), LockLease::closeAsync, work);
    }

    @Override
    public String toString() {
        return "RxLock[" + lock.getName() + "]";
    }
}
