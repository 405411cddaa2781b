package io.github.relock.spring.boot.locked;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockTimeoutException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

/**
 * Applies {@link Locked}: evaluates the key, takes a lease of the lock, runs the method, and
 * releases the lease when the method ends (returns or throws, its stage completes, its publisher
 * terminates or is cancelled). A Kotlin suspend function is locked as a {@code Mono}: Spring AOP
 * (6.1+) invokes its join point as a {@code Publisher} and suspends the caller until the
 * publisher this advice returns completes, so the lease follows the coroutine, not a thread.
 *
 * <p>Design: every call owns its own {@link LockLease}, never a thread, so the release may run
 * on any thread. The one thread-scoped thing is nesting: a blocking call made from inside a
 * blocking call on the same lock joins its hold (see {@link #HELD}). A lease lost before the end (expired, deleted, taken over) does not change the
 * method's outcome: the work has happened; the loss is published as a {@link LockedLockLostEvent}
 * and logged. A release that cannot reach Redis is logged too (the lock then expires on its own,
 * as the client stops renewing it). The attributes of each method are parsed once, when its bean
 * is created ({@link #check}); calls only evaluate the key.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LockedMethodInterceptor implements MethodInterceptor {
    private static final System.Logger LOG = System.getLogger(LockedMethodInterceptor.class.getName());

    private final Supplier<LockClient> client;
    private final BeanFactory beans;
    private final StringValueResolver placeholders;
    private final ApplicationEventPublisher events;
    private final Supplier<Executor> stageExecutor;
    private final Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();

    /**
     * The locks the blocking {@code @Locked} calls running on this thread hold, by name: a nested
     * blocking call on the same name and kind (or a read inside a write) joins the outer hold
     * instead of waiting for itself. Only for the duration of the outer call, which occupies the
     * thread, so no unrelated work can run on it meanwhile (virtual threads included).
     */
    private static final ThreadLocal<Map<String, Locked.Kind>> HELD = new ThreadLocal<>();

    LockedMethodInterceptor(Supplier<LockClient> client, BeanFactory beans, StringValueResolver placeholders,
                            ApplicationEventPublisher events, Supplier<Executor> stageExecutor) {
        this.client = client;
        this.beans = beans;
        this.placeholders = placeholders;
        this.events = events;
        this.stageExecutor = stageExecutor;
    }

    /**
     * Parses and checks the {@link Locked} methods of a bean's class.
     *
     * @throws IllegalStateException naming the method and the attribute, if one is unusable
     */
    void check(Class<?> targetClass) {
        org.springframework.util.ReflectionUtils.doWithMethods(targetClass, m -> {
            Locked locked = AnnotatedElementUtils.findMergedAnnotation(m, Locked.class);
            if (locked != null) {
                methods.computeIfAbsent(m, k -> LockedMethod.of(m, targetClass, locked, placeholders));
            }
        }, m -> !m.isBridge() && !m.isSynthetic());
    }

    private LockedMethod resolve(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        return methods.computeIfAbsent(specific, m -> LockedMethod.of(m, targetClass,
                AnnotatedElementUtils.findMergedAnnotation(m, Locked.class), placeholders));
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        LockedMethod spec = resolve(invocation.getMethod(), targetClass);
        String name = lockName(spec, target, invocation.getArguments());
        DistributedLock lock = lock(spec.kind, name);
        return switch (spec.shape) {
            case BLOCKING -> blocking(spec, name, lock, invocation);
            case STAGE -> stage(spec, name, lock, invocation);
            case MONO, FLUX, SUSPEND -> ReactiveLocking.locked(this, spec, name, lock, invocation);
        };
    }

    private String lockName(LockedMethod spec, Object target, Object[] arguments) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, spec.method, arguments,
                LockedMethod.PARAMETER_NAMES);
        context.setBeanResolver(new BeanFactoryResolver(beans));
        Object value = spec.key.getValue(context);
        if (value == null || value.toString().isEmpty()) {
            throw new IllegalArgumentException("@Locked on " + spec.description + ": key \"" + spec.keySource
                    + "\" evaluated to " + (value == null ? "null" : "an empty name") + " for this call");
        }
        return value.toString();
    }

    private DistributedLock lock(Locked.Kind kind, String name) {
        LockClient locks = client.get();
        return switch (kind) {
            case REENTRANT -> locks.getLock(name);
            case FAIR -> locks.getFairLock(name);
            case READ -> locks.getReadWriteLock(name).readLock();
            case WRITE -> locks.getReadWriteLock(name).writeLock();
        };
    }

    private Object blocking(LockedMethod spec, String name, DistributedLock lock, MethodInvocation invocation)
            throws Throwable {
        Map<String, Locked.Kind> held = HELD.get();
        Locked.Kind outer = held == null ? null : held.get(name);
        if (outer != null && (outer == spec.kind || (outer == Locked.Kind.WRITE && spec.kind == Locked.Kind.READ))) {
            return invocation.proceed(); // a nested call on the same thread: the outer call's hold covers it
        }
        LockLease lease;
        try {
            lease = spec.lease == null ? lock.acquire(spec.wait) : lock.acquire(spec.wait, spec.lease);
        } catch (LockTimeoutException e) {
            return timedOut(spec, name, invocation, e);
        }
        AtomicReference<String> lost = watch(lease);
        if (held == null) {
            held = new HashMap<>();
            HELD.set(held);
        }
        Locked.Kind enclosing = held.put(name, spec.kind);
        try {
            return invocation.proceed();
        } finally {
            if (enclosing != null) {
                held.put(name, enclosing);
            } else {
                held.remove(name);
            }
            if (held.isEmpty()) {
                HELD.remove();
            }
            try {
                released(spec, name, lost.get(), lease.releaseIfHeld());
            } catch (RuntimeException e) {
                releaseFailed(spec, name, e);
            }
        }
    }

    private Object timedOut(LockedMethod spec, String name, MethodInvocation invocation, LockTimeoutException cause)
            throws Throwable {
        return switch (spec.onTimeout) {
            case THROW -> throw timeout(spec, name, cause);
            case SKIP -> spec.skipped();
            case FALLBACK -> callFallback(spec, invocation);
        };
    }

    LockedTimeoutException timeout(LockedMethod spec, String name, Throwable cause) {
        LockedTimeoutException e = new LockedTimeoutException("@Locked " + spec.description + " could not get "
                + spec.kind.name().toLowerCase(java.util.Locale.ROOT) + " lock '" + name + "' within " + spec.wait,
                name);
        e.initCause(cause);
        return e;
    }

    Object callFallback(LockedMethod spec, MethodInvocation invocation) throws Throwable {
        if (spec.shape == LockedMethod.Shape.SUSPEND) {
            // As Spring calls a suspend join point: a Publisher of the fallback's result, in the caller's context.
            return AopUtils.invokeJoinpointUsingReflection(invocation.getThis(), spec.fallback, invocation.getArguments());
        }
        try {
            return spec.fallback.invoke(invocation.getThis(), invocation.getArguments());
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private Object stage(LockedMethod spec, String name, DistributedLock lock, MethodInvocation invocation) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        CompletableFuture<LockLease> granted = lock.acquireAsync(spec.wait, spec.lease);
        // A caller that cancels before the grant stops the wait; a grant that lands after is given back below.
        result.whenComplete((v, e) -> {
            if (result.isCancelled()) {
                granted.cancel(false);
            }
        });
        granted.whenComplete((lease, error) -> {
            if (error != null) {
                Throwable cause = unwrap(error);
                if (cause instanceof LockTimeoutException timeout) {
                    stageTimedOut(spec, name, invocation, timeout, result);
                } else if (!result.isDone()) {
                    result.completeExceptionally(cause);
                }
                return;
            }
            if (result.isDone()) {
                lease.closeAsync();
                return;
            }
            AtomicReference<String> lost = watch(lease);
            // Not on the thread that granted the lease: that may be a driver's I/O thread.
            stageExecutor.get().execute(() -> {
                CompletionStage<?> stage;
                try {
                    stage = (CompletionStage<?>) invocation.proceed();
                } catch (Throwable t) {
                    release(spec, name, lease, lost).whenComplete((v, e) -> result.completeExceptionally(t));
                    return;
                }
                if (stage == null) {
                    release(spec, name, lease, lost).whenComplete((v, e) -> result.complete(null));
                    return;
                }
                stage.whenComplete((value, failure) -> release(spec, name, lease, lost).whenComplete((v, e) -> {
                    if (failure != null) {
                        result.completeExceptionally(unwrap(failure));
                    } else {
                        result.complete(value);
                    }
                }));
            });
        });
        return result;
    }

    private void stageTimedOut(LockedMethod spec, String name, MethodInvocation invocation,
                               LockTimeoutException cause, CompletableFuture<Object> result) {
        switch (spec.onTimeout) {
            case THROW -> result.completeExceptionally(timeout(spec, name, cause));
            case SKIP -> result.complete(null);
            case FALLBACK -> stageExecutor.get().execute(() -> {
                try {
                    CompletionStage<?> stage = (CompletionStage<?>) callFallback(spec, invocation);
                    if (stage == null) {
                        result.complete(null);
                    } else {
                        stage.whenComplete((v, e) -> {
                            if (e != null) {
                                result.completeExceptionally(unwrap(e));
                            } else {
                                result.complete(v);
                            }
                        });
                    }
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
        }
    }

    /** Releases without blocking; never fails: a loss or an unreachable Redis is reported instead. */
    private CompletableFuture<Void> release(LockedMethod spec, String name, LockLease lease, AtomicReference<String> lost) {
        return lease.releaseIfHeldAsync().handle((outcome, e) -> {
            if (e == null) {
                released(spec, name, lost.get(), outcome);
            } else {
                releaseFailed(spec, name, unwrap(e));
            }
            return null;
        });
    }

    /** What a reactive release found: nothing wrong, a loss (it failed as lost), or a failure to reach Redis. */
    void released(LockedMethod spec, String name, String lostDetail, Throwable releaseError) {
        if (releaseError == null) {
            reportIfLost(spec, name, lostDetail);
        } else if (releaseError instanceof IllegalMonitorStateException) {
            reportLost(spec, name, lostDetail != null ? lostDetail : releaseError.getMessage());
        } else {
            releaseFailed(spec, name, releaseError);
        }
    }

    /**
     * What a release found: the lease still held the lock (a loss the client reported meanwhile is
     * still reported), or it had expired or passed to another owner before the method ended (a
     * lease time shorter than the method, or a loss), which is reported.
     */
    void released(LockedMethod spec, String name, String lostDetail, io.github.relock.api.ReleaseOutcome outcome) {
        if (outcome == io.github.relock.api.ReleaseOutcome.RELEASED) {
            reportIfLost(spec, name, lostDetail);
        } else {
            reportLost(spec, name, lostDetail != null ? lostDetail : "the release found the lock "
                    + (outcome == io.github.relock.api.ReleaseOutcome.ALREADY_EXPIRED ? "expired" : "held by another owner"));
        }
    }

    /** @return holds the client's report of the lease's loss, once it came */
    static AtomicReference<String> watch(LockLease lease) {
        AtomicReference<String> lost = new AtomicReference<>();
        lease.onLost(event -> lost.compareAndSet(null, String.valueOf(event)));
        return lost;
    }

    private void reportIfLost(LockedMethod spec, String name, String detail) {
        if (detail != null) {
            reportLost(spec, name, detail);
        }
    }

    private void reportLost(LockedMethod spec, String name, String detail) {
        LOG.log(System.Logger.Level.WARNING, "@Locked " + spec.description + " lost lock '" + name
                + "' before it ended, so its work may not have been exclusive; its result is returned (" + detail + ")");
        events.publishEvent(new LockedLockLostEvent(spec.method, name, detail));
    }

    private static void releaseFailed(LockedMethod spec, String name, Throwable e) {
        LOG.log(System.Logger.Level.WARNING, "@Locked " + spec.description + " could not release lock '" + name
                + "'; it expires on its own; the method's result is returned", e);
    }

    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
