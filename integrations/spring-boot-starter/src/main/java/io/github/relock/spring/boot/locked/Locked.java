package io.github.relock.spring.boot.locked;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Spring bean under a relock lock named by {@link #key()}, and
 * releases the lock when the method ends: when it returns or throws (a blocking method), when its
 * {@code CompletionStage} completes, when its {@code Mono}/{@code Flux} terminates or is
 * cancelled, or when a Kotlin {@code suspend} function returns, throws or is cancelled (with
 * kotlinx-coroutines-reactor, kotlin-reflect and relock-reactor on the class path). There is no flag to keep the lock after the method: use
 * {@link io.github.relock.api.LockLease#releaseAfter} by hand for that.
 *
 * <pre>{@code
 * @Locked(key = "'order:' + #order.id", waitTime = "2s")
 * Receipt pay(Order order) { ... }
 * }</pre>
 *
 * <p>Each call takes a {@link io.github.relock.api.LockLease} with an owner id of its own, not a
 * thread's: it is safe on virtual threads and reactive schedulers. Nesting: a blocking
 * {@code @Locked} call made on the same thread from inside a blocking {@code @Locked} call on the
 * same lock (same name and kind, or a read inside a write) joins the outer call's hold; any other
 * call on a held lock (another thread, a {@code CompletionStage}, reactive or {@code suspend} call) waits
 * for it.
 *
 * <p>Every attribute is checked when the bean is created: an empty or unparsable key, a key
 * naming a variable the method has no parameter for, an unparsable or negative duration, a
 * {@link OnTimeout#FALLBACK} without a matching method, or a return type the lock cannot follow
 * fails the start with a message naming the method and the attribute. See
 * {@code docs/guide/locked-annotation.md}.
 *
 * <p>Thread-safety: an annotation; the interceptor that applies it is thread-safe.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Locked {

    /**
     * @return the lock's name, as a SpEL expression over the method's parameters by name
     *     ({@code #order}, which needs the {@code -parameters} compiler flag that Spring Boot's
     *     build plugins set) or by position ({@code #p0}, {@code #a0}); {@code @bean} references
     *     work. A constant name is a quoted string: {@code "'nightly-report'"}.
     */
    String key();

    /**
     * @return the longest wait for the lock: {@code "0s"} tries once; {@code "500ms"},
     *     {@code "5s"}, {@code "PT5S"}, or a property placeholder such as
     *     {@code "${orders.lock-wait:5s}"}. Not negative.
     */
    String waitTime() default "10s";

    /**
     * @return how long the lock is held at most: empty (the default) lets the client's watchdog
     *     renew it until the method ends; a positive duration makes it expire on its own after
     *     that time even if the method still runs (the method's result is still returned, and the
     *     loss is reported as a {@link LockedLockLostEvent}).
     */
    String leaseTime() default "";

    /** @return which lock of that name to take */
    Kind kind() default Kind.REENTRANT;

    /** @return what a call does when the lock stayed held for the whole {@link #waitTime()} */
    OnTimeout onTimeout() default OnTimeout.THROW;

    /**
     * @return with {@link OnTimeout#FALLBACK}: the name of a method of the same bean, with the
     *     same parameter types and a compatible return type, called with the same arguments
     *     instead. Must be empty otherwise.
     */
    String fallback() default "";

    /** The lock a {@link Locked} method takes. */
    enum Kind {
        /** {@link io.github.relock.api.LockClient#getLock(String)}: one holder at a time. */
        REENTRANT,
        /** {@link io.github.relock.api.LockClient#getFairLock(String)}: granted in the order asked. */
        FAIR,
        /** The read lock of {@link io.github.relock.api.LockClient#getReadWriteLock(String)}: shared by readers. */
        READ,
        /** The write lock of {@link io.github.relock.api.LockClient#getReadWriteLock(String)}: excludes everyone. */
        WRITE
    }

    /** What a call does when it could not get the lock within its wait. */
    enum OnTimeout {
        /** Throw (or signal) a {@link LockedTimeoutException} naming the method, the lock and the wait. */
        THROW,
        /**
         * Do not run the method: return {@code null} ({@code Optional.empty()} for an
         * {@code Optional}), an empty {@code Mono}/{@code Flux}, or a stage completed with
         * {@code null}. Refused at start-up on a method returning a primitive.
         */
        SKIP,
        /** Call the {@link Locked#fallback()} method with the same arguments instead, and return what it returns. */
        FALLBACK
    }
}
