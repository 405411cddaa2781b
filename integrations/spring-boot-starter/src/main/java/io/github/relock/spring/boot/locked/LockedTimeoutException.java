package io.github.relock.spring.boot.locked;

import io.github.relock.api.LockTimeoutException;

/**
 * A {@link Locked} method with {@link Locked.OnTimeout#THROW} could not get its lock within its
 * wait: the message names the method, the lock and the wait. A {@link LockTimeoutException}, so a
 * handler for relock's own timeouts catches it too.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class LockedTimeoutException extends LockTimeoutException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    /**
     * @param message which method, lock and wait
     * @param lockName the lock's name, as the key evaluated for this call
     */
    public LockedTimeoutException(String message, String lockName) {
        super(message);
        this.lockName = lockName;
    }

    /** @return the lock's name, as the key evaluated for this call */
    public String lockName() {
        return lockName;
    }
}
