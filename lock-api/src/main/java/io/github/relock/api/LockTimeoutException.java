package io.github.relock.api;

import java.time.Duration;

/**
 * {@link DistributedLock#acquire(Duration)} gave up: the lock stayed held by another owner for
 * the whole wait.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    /** @param message which lock and how long was waited */
    public LockTimeoutException(String message) {
        super(message);
    }
}
