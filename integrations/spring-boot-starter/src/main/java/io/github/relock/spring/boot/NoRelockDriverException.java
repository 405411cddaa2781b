package io.github.relock.spring.boot;

/**
 * No relock driver on the class path can run on the application's Redis connection factory, and the
 * application has no Redis client bean one can: the message names the artifact to add.
 * {@link RelockFailureAnalyzer} turns it into Boot's "APPLICATION FAILED TO START" report.
 *
 * <p>Thread-safety: immutable.
 */
final class NoRelockDriverException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * @param description what relock was given and what it found
     * @param action what to add or declare
     * @param cause relock's own discovery error
     */
    NoRelockDriverException(String description, String action, Throwable cause) {
        super(description + ": " + action, cause);
        this.action = action;
    }

    /** @return what to add or declare */
    String action() {
        return action;
    }
}
