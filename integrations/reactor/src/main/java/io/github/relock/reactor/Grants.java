package io.github.relock.reactor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Design: the one way a synchronizer's grant (permits, a permit id, a permit lease) becomes a
 * {@code Mono} here, with the cancellation rule of {@link ReactiveLock}: a cancel before the grant
 * cancels the engine's future, which ends the wait and gives back what lands after it; a cancel
 * that finds the future already completed (the grant on its way, or not yet requested) gives the
 * grant back through {@code giveBack}. {@code MonoSink} settles a cancel racing a value, so exactly
 * one of the delivery and the give-back happens.
 *
 * <p>Thread-safety: stateless.
 */
final class Grants {
    private static final System.Logger LOG = System.getLogger(Grants.class.getName());

    private Grants() {
    }

    /**
     * @param start sends the engine's call, once per subscription
     * @param granted whether a value is a grant to give back (a {@code false} tryAcquire is not)
     * @param giveBack gives back a grant nobody will receive
     */
    static <T> Mono<T> granted(Supplier<CompletableFuture<T>> start, java.util.function.Predicate<T> granted,
                               Consumer<T> giveBack) {
        return Mono.create(sink -> {
            CompletableFuture<T> future = start.get();
            sink.onCancel(() -> {
                if (!future.cancel(false)) {
                    future.thenAccept(v -> {
                        if (granted.test(v)) {
                            giveBack.accept(v);
                        }
                    });
                }
            });
            future.whenComplete((value, error) -> {
                if (error != null) {
                    sink.error(unwrap(error));
                } else {
                    sink.success(value); // null: completes empty
                }
            });
        });
    }

    /** Logs a give-back that failed: what it held stays taken until it expires, if ever. */
    static void logged(CompletableFuture<?> sent, String what) {
        sent.whenComplete((ok, error) -> {
            if (error != null) {
                LOG.log(System.Logger.Level.WARNING, "could not give back " + what
                        + ", granted after its subscriber cancelled", unwrap(error));
            }
        });
    }

    static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
