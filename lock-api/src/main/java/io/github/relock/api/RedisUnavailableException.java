package io.github.relock.api;

/**
 * Redis could not be reached, the connection broke, or it did not answer within the command
 * timeout. Whether the command took effect is unknown.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class RedisUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    /** @param message what was attempted and against which server */
    public RedisUnavailableException(String message) {
        super(message);
    }

    /**
     * @param message what was attempted and against which server
     * @param cause the client library's exception
     */
    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
