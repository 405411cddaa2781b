package io.github.relock.core.internal.wait;

import java.util.function.BooleanSupplier;

/**
 * The client's services and settings a wait uses: its channels, its hand-off lines, its timer, and
 * whether it is closed.
 *
 * <p>Thread-safety: immutable; the services it holds are thread-safe.
 *
 * @param waiters the client's channels and active waits
 * @param handoff the client's hand-off lines
 * @param timer the client's timer
 * @param closed answers whether the client is closed
 * @param clientId the client's id, for messages
 * @param subscriptionTimeoutNanos how long a subscription may take to be confirmed; also how long
 *     attempts may fail for want of Redis (a failover) before a wait gives up
 * @param commandTimeoutNanos the command timeout (a claim is settled within twice that)
 * @param watchdogMs the watchdog timeout (a key without expiry is polled a third of it apart)
 */
public record WaitContext(Waiters waiters, Handoff handoff, Timer timer, BooleanSupplier closed, String clientId,
                          long subscriptionTimeoutNanos, long commandTimeoutNanos, long watchdogMs) {

    /** A one-shot timer the async waits park on. */
    public interface Timer {
        /**
         * @param task what to run
         * @param delayNanos when
         * @return a handle that cancels it, or null if the timer no longer runs tasks (closed)
         */
        Cancellable schedule(Runnable task, long delayNanos);
    }

    /** A scheduled task that can be cancelled. */
    @FunctionalInterface
    public interface Cancellable {
        /** Cancels the task if it has not run. */
        void cancel();
    }

    boolean isClosed() {
        return closed.getAsBoolean();
    }

    IllegalStateException closedError(String lockName) {
        return new IllegalStateException("this LockClient (" + clientId + ") was closed while waiting for lock '"
                + lockName + "'");
    }
}
