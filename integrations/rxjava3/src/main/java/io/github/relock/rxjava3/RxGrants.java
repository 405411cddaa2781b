package io.github.relock.rxjava3;

import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.core.SingleSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Design: the one way a grant of the engine (a lease, permits, a permit id) becomes an RxJava
 * source here, so that a dispose never leaks it. RxJava has no request before delivery (unlike
 * Reactor's {@code MonoSink}) and runs an emitter's {@code Cancellable} after a delivery too, so
 * each subscription keeps its own state:
 * <ul>
 *   <li>PENDING → CANCELLED (the dispose came first): the engine's future is cancelled, which ends
 *       its wait and gives back what lands later; a future already completed (the grant landed
 *       just before) has its grant given back here;</li>
 *   <li>PENDING → DELIVERING (the grant came first): it is emitted; if a dispose slipped in
 *       between, the emitter drops it, and since no operator downstream saw it ({@code delivered}
 *       stays false) it is given back here.</li>
 * </ul>
 *
 * <p>Thread-safety: stateless; each subscription's state is its own.
 */
final class RxGrants {
    private static final System.Logger LOG = System.getLogger(RxGrants.class.getName());
    private static final int PENDING = 0;
    private static final int DELIVERING = 1;
    private static final int CANCELLED = 2;

    private RxGrants() {
    }

    /**
     * @param start sends the engine's call, once per subscription
     * @param isGrant whether a value is something to give back (a {@code false} tryAcquire is not)
     * @param giveBack gives back a grant nobody received
     * @return emits the value, or completes empty for {@code null}
     */
    static <T> Maybe<T> granted(Supplier<CompletableFuture<T>> start, Predicate<T> isGrant, Consumer<T> giveBack) {
        return Maybe.defer(() -> {
            AtomicInteger state = new AtomicInteger(PENDING);
            AtomicBoolean delivered = new AtomicBoolean();
            return Maybe.<T>create(emitter -> {
                CompletableFuture<T> future = start.get();
                emitter.setCancellable(() -> {
                    if (state.compareAndSet(PENDING, CANCELLED) && !future.cancel(false)) {
                        future.thenAccept(v -> {
                            if (isGrant.test(v)) {
                                giveBack.accept(v);
                            }
                        });
                    }
                });
                future.whenComplete((value, error) -> {
                    if (!state.compareAndSet(PENDING, DELIVERING)) {
                        return; // disposed first: the cancellable cancelled the wait or gives this back
                    }
                    if (error != null) {
                        emitter.tryOnError(unwrap(error));
                        return;
                    }
                    if (value == null) {
                        emitter.onComplete();
                    } else {
                        emitter.onSuccess(value);
                    }
                    if (!delivered.get() && isGrant.test(value)) {
                        giveBack.accept(value); // disposed between: the emitter dropped it
                    }
                });
            }).doOnEvent((v, error) -> {
                // doOnEvent, not doOnSuccess: Maybe's doOnSuccess/doOnComplete drop a value that
                // arrives disposed, after this flag would say it was delivered. No operator used
                // downstream of this in the package drops one (toSingle, ignoreElement,
                // switchIfEmpty, onErrorResumeNext, Single's map and doOnSuccess).
                if (error == null) {
                    delivered.set(true);
                }
            });
        });
    }

    /**
     * Acquires, runs {@code work} with the grant and releases it once when the work succeeds,
     * fails or is disposed; completion waits for the release. A grant that reached this operator
     * but not the work (a dispose between the two: {@code flatMap} drops a value that arrives
     * disposed) is released too: the grant is held in {@code held}, and whichever of the release
     * paths takes it out of there releases it.
     *
     * @param acquire emits the grant; must not check for disposal between its grant and its
     *     {@code onSuccess} (use {@code map}, not {@code flatMap}, to adapt it)
     */
    static <G, T> Single<T> using(Single<G> acquire, Function<? super G, CompletableFuture<?>> release,
                                  Function<? super G, ? extends SingleSource<? extends T>> work) {
        return Single.defer(() -> {
            AtomicReference<G> held = new AtomicReference<>();
            AtomicBoolean disposed = new AtomicBoolean();
            Completable releaseHeld = Completable.defer(() -> {
                G g = held.getAndSet(null);
                return g == null ? Completable.complete() : run(() -> release.apply(g));
            });
            return acquire
                    .doOnSuccess(g -> {
                        held.set(g);
                        if (disposed.get()) { // disposed as the grant came: flatMap will drop it
                            releaseHeld.onErrorComplete().subscribe();
                        }
                    })
                    .flatMap(g -> Single.<T>defer(() -> Single.wrap(work.apply(g)).<T>map(v -> v))
                            .flatMap(v -> releaseHeld.andThen(Single.just(v)))
                            .onErrorResumeNext(e -> releaseHeld.onErrorResumeNext(releaseError -> {
                                if (releaseError != e) {
                                    e.addSuppressed(releaseError);
                                }
                                return Completable.complete();
                            }).andThen(Single.error(e))))
                    .doOnDispose(() -> {
                        disposed.set(true);
                        releaseHeld.onErrorComplete().subscribe();
                    });
        });
    }

    /** @return a {@code Single} of the engine's call, sent once per subscription; a dispose does not stop it */
    static <T> Single<T> call(Supplier<CompletableFuture<T>> call) {
        return Single.defer(() -> Single.fromCompletionStage(call.get())).onErrorResumeNext(e -> Single.error(unwrap(e)));
    }

    /** @return a {@code Completable} of the engine's call, sent once per subscription */
    static Completable run(Supplier<? extends CompletableFuture<?>> call) {
        return Completable.defer(() -> Completable.fromCompletionStage(call.get()))
                .onErrorResumeNext(e -> Completable.error(unwrap(e)));
    }

    /** Logs a give-back that failed: what it held stays taken until it expires, if ever. */
    static void logged(CompletableFuture<?> sent, String what) {
        sent.whenComplete((ok, error) -> {
            if (error != null) {
                LOG.log(System.Logger.Level.WARNING, "could not give back " + what
                        + ", granted after its subscriber disposed", unwrap(error));
            }
        });
    }

    static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
