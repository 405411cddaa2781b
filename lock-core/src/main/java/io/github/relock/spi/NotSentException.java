package io.github.relock.spi;

import io.github.relock.api.RedisUnavailableException;

/**
 * The <i>not sent</i> signal: the driver never sent this async call and never will, because it
 * refused it (for example too many calls were already waiting) or the call waited in the driver's
 * queue past its deadline (see "Calls not sent" on {@link CommandExecutor}). The script did not
 * run, so core may send it again. Any other {@link RedisUnavailableException} means the reply was
 * lost and whether the script ran is unknown.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class NotSentException extends RedisUnavailableException {
    private static final long serialVersionUID = 1L;

    /** @param message which script was not sent, and why */
    public NotSentException(String message) {
        super(message);
    }

    /**
     * @param message which script was not sent, and why
     * @param cause what refused it (for example the driver's executor), or {@code null}
     */
    public NotSentException(String message, Throwable cause) {
        super(message, cause);
    }
}
