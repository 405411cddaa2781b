package io.github.relock.api;

/**
 * Redis answered a command with an error reply (for example {@code WRONGTYPE} when the lock's
 * key holds another data type, or {@code ERR} from a script).
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class RedisErrorException extends LockException {
    private static final long serialVersionUID = 1L;
    /** Where a Redis 6 script error names the line, before the wrapped command's error. */
    private static final String SCRIPT_FRAME = "@user_script:";

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
     *     {@code BUSY}, ...), or {@code ERR} when the reply had none. A Redis 6 script error that
     *     wraps the error of a command the script called ({@code ERR Error running script (call to
     *     f_...): @user_script:2: WRONGTYPE ...}) has the wrapped command's code, as Redis 7 reports it
     */
    public String errorCode() {
        return errorCode;
    }

    private static String codeOf(String message) {
        if (message == null || message.isBlank()) {
            return "ERR";
        }
        String trimmed = message.strip();
        String code = firstWordCode(trimmed);
        int wrapped = trimmed.indexOf(SCRIPT_FRAME);
        if (code.equals("ERR") && trimmed.startsWith("ERR Error running script") && wrapped >= 0) {
            // Redis 6: "... @user_script:<line>: <CODE> <message>"; a Lua error() has no code there
            String rest = trimmed.substring(wrapped + SCRIPT_FRAME.length());
            int colon = rest.indexOf(": ");
            if (colon >= 0 && rest.substring(0, colon).chars().allMatch(Character::isDigit)) {
                return firstWordCode(rest.substring(colon + 2));
            }
        }
        return code;
    }

    private static String firstWordCode(String text) {
        int space = text.indexOf(' ');
        String first = space < 0 ? text : text.substring(0, space);
        return !first.isEmpty() && first.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || c == '_') ? first : "ERR";
    }
}
