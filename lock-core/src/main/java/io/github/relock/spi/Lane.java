package io.github.relock.spi;

/**
 * Which lane an async script call travels on ({@link CommandExecutor#evalAsync}): the
 * application's, or the renewal lane of core's lock watchdog, which never waits behind the
 * application's async calls (see "The renewal lane" on {@link CommandExecutor}). A driver with no
 * queue of its own that shares no connection between concurrent calls may treat both the same.
 *
 * <p>Thread-safety: immutable.
 */
public enum Lane {
    /** The application's async calls: lock, unlock, semaphore and every other operation. */
    APPLICATION,
    /**
     * The watchdog's lock renewals: never queued behind {@link #APPLICATION} calls, neither in a
     * queue of the driver's threads nor behind a pipeline on one connection.
     */
    RENEWAL
}
