package io.github.relock.api;

/**
 * Redis answered a command with an error reply (for example {@code WRONGTYPE} when the lock's
 * key holds another data type, or {@code ERR} from a script).
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class RedisErrorException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String errorCode;

    /**
     * @param errorMessage the error reply as Redis sent it, e.g. {@code "NOSCRIPT No matching script"}
     */
    public RedisErrorException(String errorMessage) {
        this(errorMessage, null);
    }

    /**
     * @param errorMessage the error reply as Redis sent it
     * @param cause the client library's exception, or {@code null}
     */
    public RedisErrorException(String errorMessage, Throwable cause) {
        super(errorMessage == null ? "Redis error" : errorMessage, cause);
        this.errorCode = codeOf(errorMessage);
    }

    /**
     * @return the first word of the error reply ({@code ERR}, {@code WRONGTYPE}, {@code NOSCRIPT},
     *     {@code BUSY}, ...), or {@code ERR} when the reply had none
     */
    public String errorCode() {
        return errorCode;
    }

    private static String codeOf(String message) {
        if (message == null || message.isBlank()) {
            return "ERR";
        }
        String trimmed = message.strip();
        int space = trimmed.indexOf(' ');
        String first = space < 0 ? trimmed : trimmed.substring(0, space);
        return first.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || c == '_') ? first : "ERR";
    }
}
