package io.github.relock.api;

import java.time.Duration;

/**
 * Observes what a {@link LockClient} does with its locks, for metrics and tracing; registered with
 * {@link LockOptions.Builder#eventListener(LockEventListener)}. Every method is a no-op by default,
 * so an implementation overrides only what it needs.
 *
 * <p>Calls happen synchronously on the thread that did the work: the acquiring or releasing thread
 * (for async acquires, the thread completing the future), the client's timer thread for
 * {@link #renewalBatch}, and the thread delivering lock-lost listeners for {@link #lost}
 * ({@link LockOptions#lockLostExecutor()}, by default the timer thread). Keep them short and
 * non-blocking. An exception thrown by a listener never breaks locking; it is caught and
 * logged once per listener through {@link System.Logger}.
 *
 * <p>Thread-safety: implementations must be thread-safe; they are called from many threads at once.
 */
public interface LockEventListener {

    /** A listener that ignores every event; what a client uses when none is configured. */
    LockEventListener NOOP = new LockEventListener() {
        @Override
        public String toString() {
            return "LockEventListener.NOOP";
        }
    };

    /**
     * A lock was acquired.
     *
     * @param lockName the lock's name as given to {@link LockClient#getLock(String)}
     * @param waited how long the caller waited, from the first attempt to the grant
     */
    default void acquired(String lockName, Duration waited) {
    }

    /**
     * A bounded acquire gave up without the lock.
     *
     * @param lockName the lock's name
     * @param waited how long the caller waited before giving up
     */
    default void acquireTimedOut(String lockName, Duration waited) {
    }

    /**
     * A hold was released (the last reentrant unlock).
     *
     * @param lockName the lock's name
     * @param held how long the lock was held, from the grant to the release
     */
    default void released(String lockName, Duration held) {
    }

    /**
     * A hold was lost (see {@link LockClient#addLockLostListener}).
     *
     * @param lockName the lock's name
     * @param reason why it was lost
     */
    default void lost(String lockName, LockLostEvent.Reason reason) {
    }

    /**
     * The watchdog finished one renewal batch.
     *
     * @param renewed holds whose renewal Redis confirmed
     * @param failed holds whose renewal failed (gone, or no reply)
     * @param duration how long the batch took
     */
    default void renewalBatch(int renewed, int failed, Duration duration) {
    }

    /**
     * A lock script ran, or may have run, but its reply never came back (a command timeout, a
     * reset connection, an interrupted connection factory). The engine does not try again blind:
     * it resolves what happened from Redis (a waiter whose hand-off may have landed asks with an
     * attempt that cannot count twice; a release that may have run stops renewing). Reported once
     * per lost reply.
     *
     * @param lockName the lock's name
     * @param operation what was lost: {@code "acquire"}, {@code "release"} or {@code "hand-off release"}
     * @since 0.1.0
     */
    default void replyLost(String lockName, String operation) {
    }

    /**
     * The server lacks a feature the engine would use, and the client does without it from now on
     * (see {@link ServerFallback} for what each costs). Reported once per client and fallback, on
     * the thread that met the refusal (or that created the client, for what the driver declares at
     * once), and logged once at {@code INFO}.
     *
     * @param fallback what the client does instead
     * @param cause the server's refusal as it worded it (e.g. {@code ERR unknown command 'SSUBSCRIBE'})
     * @since 0.1.0
     */
    default void serverFallback(ServerFallback fallback, String cause) {
    }
}
