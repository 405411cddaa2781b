package io.github.relock.api;

/**
 * Base class of the unchecked exceptions relock throws for distributed-lock failures.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong, naming the lock or value concerned */
    public LockException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the lock or value concerned
     * @param cause the underlying failure
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
