package io.github.relock.spring.boot.locked;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockTimeoutException;
import io.github.relock.reactor.ReactiveLock;
import java.util.concurrent.atomic.AtomicReference;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link Locked} on methods returning {@code Mono} or {@code Flux}, and on Kotlin suspend
 * functions (which Spring AOP invokes as a {@code Publisher} of their result, and whose caller it
 * suspends until the {@code Mono} returned here completes), through relock-reactor: each
 * subscription acquires its own lease (a cancel before the grant leaves nothing held), runs the
 * method under it, and releases it when the method's publisher terminates or is cancelled; a
 * {@code Mono}'s value is emitted once the lock is released. Loaded only when relock-reactor is
 * on the class path ({@link LockedMethod} checks).
 *
 * <p>Thread-safety: stateless.
 */
final class ReactiveLocking {

    private ReactiveLocking() {
    }

    /** The acquisition's timeout, kept apart from a {@link LockTimeoutException} the method itself may raise. */
    private static final class TimedOut extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TimedOut(LockTimeoutException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /** One held lease and what its release found. */
    private record Held(LockLease lease, AtomicReference<String> lost) {
    }

    static Object locked(LockedMethodInterceptor interceptor, LockedMethod spec, String name, DistributedLock lock,
                         MethodInvocation invocation) {
        ReactiveLock reactive = ReactiveLock.of(lock);
        Mono<Held> acquire = (spec.lease == null ? reactive.acquire(spec.wait) : reactive.acquire(spec.wait, spec.lease))
                .onErrorMap(LockTimeoutException.class, TimedOut::new)
                .map(lease -> new Held(lease, LockedMethodInterceptor.watch(lease)));
        Flux<Object> locked = Flux.usingWhen(acquire,
                held -> body(invocation),
                held -> release(interceptor, spec, name, reactive, held),
                (held, error) -> release(interceptor, spec, name, reactive, held),
                held -> release(interceptor, spec, name, reactive, held));
        Flux<Object> result = locked.onErrorResume(TimedOut.class, e -> switch (spec.onTimeout) {
            case THROW -> Flux.error(interceptor.timeout(spec, name, e.getCause()));
            case SKIP -> Flux.empty();
            case FALLBACK -> Flux.defer(() -> {
                try {
                    return asPublisher(interceptor.callFallback(spec, invocation));
                } catch (Throwable t) {
                    return Flux.error(t);
                }
            });
        });
        // A suspend function's caller awaits one value (or none: null) from the Mono.
        return spec.shape == LockedMethod.Shape.FLUX ? result : result.singleOrEmpty();
    }

    /** Each subscription invokes the method anew (the rest of the interceptor chain included). */
    private static Flux<Object> body(MethodInvocation invocation) {
        return Flux.defer(() -> {
            try {
                MethodInvocation call = invocation instanceof ProxyMethodInvocation proxied
                        ? proxied.invocableClone() : invocation;
                return asPublisher(call.proceed());
            } catch (Throwable t) {
                return Flux.error(t);
            }
        });
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> asPublisher(Object value) {
        return value == null ? Flux.empty() : (Publisher<Object>) value;
    }

    /** Never fails: a loss or an unreachable Redis is reported by the interceptor instead. */
    private static Mono<Void> release(LockedMethodInterceptor interceptor, LockedMethod spec, String name,
                                      ReactiveLock reactive, Held held) {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        return reactive.release(held.lease())
                .onErrorResume(e -> {
                    failed.set(e);
                    return Mono.empty();
                })
                .then(Mono.fromRunnable(() -> interceptor.released(spec, name, held.lost().get(), failed.get())));
    }
}
