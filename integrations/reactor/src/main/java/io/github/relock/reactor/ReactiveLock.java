package io.github.relock.reactor;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockLostException;
import io.github.relock.api.LockTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * A {@link DistributedLock} for Project Reactor: leases as {@code Mono}s, work under the lock as a
 * {@code usingWhen}. Built on {@link DistributedLock#acquireAsync(Duration, Duration)} and
 * {@link DistributedLock#unlockAsync(long)}, so no thread is parked while waiting or releasing.
 *
 * <pre>{@code
 * ReactiveLock lock = ReactiveLock.of(locks.getLock("orders:42"));
 * Mono<Receipt> paid = lock.withLockMono(Duration.ofSeconds(5), lease -> payments.pay(order));
 * }</pre>
 *
 * <p>What a subscriber can rely on:
 * <ul>
 *   <li><b>Ownership.</b> Each acquisition is a {@link LockLease} with an owner id of its own, never
 *       a thread's: any thread, scheduler or callback may release it, and a recycled thread can
 *       never re-enter it. Two subscriptions exclude each other even on one thread.</li>
 *   <li><b>Cancellation.</b> Cancelling a subscription (a {@code dispose()}, a {@code timeout}, a
 *       {@code take}, a client gone) before the grant cancels the engine's wait: it leaves the
 *       channel (and a fair queue) at once, never takes the lock afterwards, gives back an
 *       acquisition whose reply lands after the cancel, and passes its wake-up on to the next
 *       waiter. A lease granted but not yet delivered when the cancel comes (no request yet, or
 *       a cancel racing the grant) is released here.</li>
 *   <li><b>Once delivered</b>, the lease is the subscriber's: an operator downstream that drops it
 *       (a {@code timeout} or {@code publishOn} cancelled after the grant) drops a held lock,
 *       which the watchdog then keeps. Prefer {@link #withLock}, which always releases; with
 *       {@link #acquire} use {@code doOnDiscard(LockLease.class, ...)} or release in a
 *       {@code usingWhen} of your own.</li>
 *   <li><b>Threads.</b> Signals arrive on the thread that completed the engine's future: a
 *       driver's I/O thread (a Lettuce event loop) or the client's timer. Keep work there
 *       non-blocking, or create the view with {@link #of(DistributedLock, Scheduler)}: blocking
 *       that thread stalls every Redis command of its client.</li>
 *   <li><b>Context.</b> Nothing here reads or writes a {@code ThreadLocal}, and the lease is not
 *       bound to a thread: the subscriber's Reactor {@code Context} flows into the work of
 *       {@link #withLock} like into any operator, and values that Micrometer's
 *       context-propagation restores into {@code ThreadLocal}s around operators are restored as
 *       usual.</li>
 *   <li><b>Laziness.</b> Every method returns a cold publisher: nothing is sent to Redis before a
 *       subscription, and each subscription is its own acquisition.</li>
 * </ul>
 *
 * <p>The wait is always bounded ({@code waitTime >= 0}; zero tries once): to wait "as long as it
 * takes", pass a long wait and cancel. Arguments the engine refuses (a negative wait, a lease
 * under 1 ms) are signalled as {@link IllegalArgumentException} on subscription; null arguments
 * throw at once.
 *
 * <p>Thread-safety: immutable; safe for use by several threads. One instance per lock may be
 * shared, and each subscription is independent.
 */
public final class ReactiveLock {
    private static final System.Logger LOG = System.getLogger(ReactiveLock.class.getName());

    private final DistributedLock lock;
    private final Scheduler deliverOn; // null: on the thread that completed the engine's future

    private ReactiveLock(DistributedLock lock, Scheduler deliverOn) {
        this.lock = lock;
        this.deliverOn = deliverOn;
    }

    /**
     * @param lock any relock lock: reentrant, fair, fenced, spin, a read or write lock, a
     *     multi-lock or a red lock
     * @return the lock's Reactor view; cheap, holds no resource
     * @throws NullPointerException if {@code lock} is null
     */
    public static ReactiveLock of(DistributedLock lock) {
        return new ReactiveLock(Objects.requireNonNull(lock, "lock must not be null"), null);
    }

    /**
     * A view that delivers each granted lease on {@code deliverOn} instead of the driver's I/O
     * thread, so the work of {@link #withLock} starts there. Use it when that work may block, even
     * once: Spring Data Redis' reactive template, for one, opens its shared connection with a
     * blocking call on first use, which on a Lettuce event-loop thread stalls every command of that
     * client until it times out. Unlike a {@code publishOn} after {@link #acquire}, a cancel that
     * comes while the lease is on its way to {@code deliverOn} still gives it back.
     *
     * @param lock any relock lock
     * @param deliverOn where leases are delivered, e.g. {@code Schedulers.boundedElastic()}
     * @return the lock's Reactor view
     * @throws NullPointerException if an argument is null
     */
    public static ReactiveLock of(DistributedLock lock, Scheduler deliverOn) {
        return new ReactiveLock(Objects.requireNonNull(lock, "lock must not be null"),
                Objects.requireNonNull(deliverOn, "deliverOn must not be null"));
    }

    /** @return the lock this view acquires */
    public DistributedLock lock() {
        return lock;
    }

    /**
     * Waits up to {@code waitTime} for the lock and emits a lease the watchdog keeps until it is
     * released.
     *
     * @param waitTime longest wait, {@code >= 0}; zero tries once
     * @return emits the lease, or fails with {@link LockTimeoutException} if the lock stayed held
     *     for the whole wait
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Mono<LockLease> acquire(Duration waitTime) {
        return acquireLease(Objects.requireNonNull(waitTime, "waitTime must not be null"), null);
    }

    /**
     * Waits up to {@code waitTime} for the lock and emits a lease that expires after
     * {@code leaseTime} unless released before.
     *
     * @param waitTime longest wait, {@code >= 0}; zero tries once
     * @param leaseTime positive lease; not renewed
     * @return emits the lease, or fails with {@link LockTimeoutException} if the lock stayed held
     *     for the whole wait
     * @throws NullPointerException if an argument is null
     */
    public Mono<LockLease> acquire(Duration waitTime, Duration leaseTime) {
        return acquireLease(Objects.requireNonNull(waitTime, "waitTime must not be null"),
                Objects.requireNonNull(leaseTime, "leaseTime must not be null (use acquire(waitTime) for the watchdog)"));
    }

    private Mono<LockLease> acquireLease(Duration waitTime, Duration leaseTime) {
        return Mono.create(sink -> {
            CompletableFuture<LockLease> granted = lock.acquireAsync(waitTime, leaseTime);
            // Exactly one of these runs per subscription (MonoSink settles a cancel racing a value):
            // the cancel, which stops the engine's wait or gives back a grant nobody will see, or the
            // delivery of the lease.
            sink.onCancel(() -> {
                if (!granted.cancel(false)) {
                    granted.thenAccept(this::giveBack);
                }
            });
            granted.whenComplete((lease, error) -> {
                if (error != null) {
                    sink.error(TrackedLease.unwrap(error));
                } else if (deliverOn == null) {
                    sink.success(new TrackedLease(lock, lease));
                } else {
                    // Still through the sink: a cancel meanwhile makes success() drop it, and onCancel,
                    // which finds the future done, gives it back.
                    deliverOn.schedule(() -> sink.success(new TrackedLease(lock, lease)));
                }
            });
        });
    }

    private void giveBack(LockLease lease) {
        lock.unlockAsync(lease.ownerId()).whenComplete((ok, error) -> {
            if (error != null) {
                LOG.log(System.Logger.Level.WARNING, "could not give back lock ''" + lock.getName()
                        + "'', granted after its subscriber cancelled; it expires on its own", TrackedLease.unwrap(error));
            }
        });
    }

    /**
     * Releases a lease of this lock without blocking. Idempotent for a lease this view emitted: a
     * second release completes at once, and the lease is no longer
     * {@linkplain LockLease#isValid() valid} afterwards. A lease taken elsewhere (with
     * {@link DistributedLock#acquire}) is released by its owner id, but its own {@code isValid()}
     * does not learn of it: close such leases with {@link LockLease#close()} instead.
     *
     * <p>Cancelling the returned {@code Mono} does not stop a release already sent.
     *
     * @param lease a lease of this lock
     * @return completes once Redis released the lock; fails with {@link LockLostException} if
     *     the release found the lease lost (expired, force-unlocked) and no loss had been reported
     *     before (a lease taken elsewhere: {@link IllegalMonitorStateException}); a loss already
     *     reported to {@link LockLease#onLost} completes quietly,
     *     or with {@link io.github.relock.api.RedisUnavailableException} if Redis could not be
     *     reached (the lease is then no longer renewed, and releasing again retries)
     * @throws NullPointerException if {@code lease} is null
     * @throws IllegalArgumentException if {@code lease} is for another lock name
     */
    public Mono<Void> release(LockLease lease) {
        Objects.requireNonNull(lease, "lease must not be null");
        if (lease instanceof TrackedLease tracked && tracked.lock() == lock) {
            return Mono.fromFuture(tracked::sendRelease, true);
        }
        if (!lease.lockName().equals(lock.getName())) {
            throw new IllegalArgumentException("lease of lock '" + lease.lockName() + "' cannot release lock '"
                    + lock.getName() + "'");
        }
        return Mono.fromFuture(() -> lock.unlockAsync(lease.ownerId()), true);
    }

    /**
     * Takes the lock (watchdog lease), runs {@code work} and releases the lock when the work
     * completes, fails or is cancelled; see {@link #withLock(Duration, Duration, Function)}.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param work the work under the lock, given the lease
     * @param <T> what the work emits
     * @return the work's signals
     */
    public <T> Flux<T> withLock(Duration waitTime, Function<? super LockLease, ? extends Publisher<? extends T>> work) {
        return usingLease(acquire(waitTime), work);
    }

    /**
     * Takes the lock, runs {@code work} and releases the lock when the work completes, fails or is
     * cancelled ({@link Flux#usingWhen}). A cancel before the grant leaves nothing held.
     *
     * <ul>
     *   <li>A lease lost while working (deleted, force-unlocked, taken by another owner, not
     *       renewable, or its lease time run out) cancels the work the moment the loss is reported
     *       (when renewal finds it, before the key can expire), and the result fails with
     *       {@link LockLostException}: the caller learns the work may not have been exclusive. A loss
     *       reported after the work completed, or found only by the release, fails it the same
     *       way.</li>
     *   <li>Completion waits for the release.</li>
     *   <li>An error of the work is passed on after the release; an error of that release is
     *       added to it as suppressed.</li>
     *   <li>A {@code work} function that throws is an error of the work.</li>
     *   <li>A cancel sends the release and does not wait for it.</li>
     * </ul>
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease; not renewed
     * @param work the work under the lock, given the lease; subscribed once the lock is held
     * @param <T> what the work emits
     * @return the work's signals; {@link LockTimeoutException} if the lock stayed held for the wait
     */
    public <T> Flux<T> withLock(Duration waitTime, Duration leaseTime,
                                Function<? super LockLease, ? extends Publisher<? extends T>> work) {
        return usingLease(acquire(waitTime, leaseTime), work);
    }

    /**
     * {@link #withLock(Duration, Function)} for work that emits at most one value; the value is
     * emitted once the lock is released.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param work the work under the lock, given the lease
     * @param <T> what the work emits
     * @return the work's value
     */
    public <T> Mono<T> withLockMono(Duration waitTime, Function<? super LockLease, ? extends Mono<? extends T>> work) {
        return usingLease(acquire(waitTime), work).singleOrEmpty();
    }

    /**
     * {@link #withLock(Duration, Duration, Function)} for work that emits at most one value; the
     * value is emitted once the lock is released.
     *
     * @param waitTime longest wait, {@code >= 0}
     * @param leaseTime positive lease; not renewed
     * @param work the work under the lock, given the lease
     * @param <T> what the work emits
     * @return the work's value
     */
    public <T> Mono<T> withLockMono(Duration waitTime, Duration leaseTime,
                                    Function<? super LockLease, ? extends Mono<? extends T>> work) {
        return usingLease(acquire(waitTime, leaseTime), work).singleOrEmpty();
    }

    private <T> Flux<T> usingLease(Mono<LockLease> lease, Function<? super LockLease, ? extends Publisher<? extends T>> work) {
        Objects.requireNonNull(work, "work must not be null");
        return Flux.defer(() -> {
            // usingWhen would wrap a failed release in "Async resource cleanup failed": keep the
            // release's own error for the caller, and keep the work's error first when both fail.
            AtomicReference<Throwable> releaseFailed = new AtomicReference<>();
            Flux<T> used = Flux.usingWhen(lease, l -> cancelledOnLoss(l, work),
                    l -> release(l).onErrorResume(e -> {
                        releaseFailed.set(e);
                        return Mono.empty();
                    }),
                    (l, error) -> release(l).onErrorResume(e -> {
                        if (e != error) {
                            error.addSuppressed(e);
                        }
                        return Mono.empty();
                    }),
                    this::release);
            return used.concatWith(Mono.defer(() -> {
                Throwable e = releaseFailed.get();
                return e == null ? Mono.empty() : Mono.error(e);
            }));
        });
    }

    /**
     * The work, cancelled the moment its lease is lost: it then fails with
     * {@link LockLostException} instead of completing. A loss reported after the work completed,
     * before the release, fails it too (the work may not have been exclusive).
     */
    private static <T> Flux<T> cancelledOnLoss(LockLease lease,
                                               Function<? super LockLease, ? extends Publisher<? extends T>> work) {
        AtomicReference<LockLostEvent> lostEvent = new AtomicReference<>();
        Sinks.Empty<Void> lost = Sinks.empty();
        lease.onLost(e -> {
            lostEvent.compareAndSet(null, e);
            lost.tryEmitEmpty();
        });
        Flux<T> running = Flux.from(work.apply(lease));
        // takeUntilOther stops at a value: the loss's completion is turned into one
        return running.takeUntilOther(lost.asMono().then(Mono.just(Boolean.TRUE))).concatWith(Mono.defer(() -> {
            LockLostEvent e = lostEvent.get();
            return e == null ? Mono.empty() : Mono.error(new LockLostException(e, "lock '" + e.lockName()
                    + "' was lost while its work ran (" + e.reason() + "); the work was cancelled"));
        }));
    }

    @Override
    public String toString() {
        return "ReactiveLock[" + lock.getName() + (deliverOn == null ? "]" : ", delivered on " + deliverOn + "]");
    }
}
