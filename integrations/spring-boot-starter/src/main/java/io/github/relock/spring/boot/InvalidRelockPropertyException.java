package io.github.relock.spring.boot;

/**
 * A {@code relock.*} property bound (it has the right type) but {@code LockOptions} refuses its
 * value: the exception names the property, the value given and relock's reason, which says what is
 * allowed. {@link RelockFailureAnalyzer} turns it into Boot's "APPLICATION FAILED TO START" report.
 * A value that does not even bind (e.g. {@code relock.command-timeout=soon}) is Boot's own
 * binding failure, which its own analyzer reports.
 *
 * <p>Thread-safety: immutable.
 */
final class InvalidRelockPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;
    private final String value;
    private final String reason;

    /**
     * @param property the property, e.g. {@code relock.renewal-batch-size}
     * @param value the value given, as the application wrote it or as bound
     * @param reason why it is refused, saying what is allowed
     * @param cause {@code LockOptions}' own error, or null
     */
    InvalidRelockPropertyException(String property, String value, String reason, Throwable cause) {
        super(property + ": " + reason, cause);
        this.property = property;
        this.value = value;
        this.reason = reason;
    }

    /**
     * @param written the property's value as the application wrote it (e.g. {@code 10ms} for a
     *     {@code Duration}), or null if there is no single such value (a group of properties)
     * @return an exception that shows {@code written} as the value given, or this one
     */
    InvalidRelockPropertyException asWritten(String written) {
        if (written == null || written.equals(value)) {
            return this;
        }
        return new InvalidRelockPropertyException(property, written, reason, getCause());
    }

    /** @return the property */
    String property() {
        return property;
    }

    /** @return the value given */
    String value() {
        return value;
    }

    /** @return why the value is refused, saying what is allowed */
    String reason() {
        return reason;
    }

    /**
     * @return what is allowed: the "must ..." part of a LockOptions message ({@code renewalBatchSize
     *     must be 1..1000, was 0} gives {@code must be 1..1000}), else the whole reason
     */
    String allowed() {
        int must = reason.indexOf(" must ");
        int was = reason.lastIndexOf(", was ");
        return must >= 0 && was > must ? reason.substring(must + 1, was) : reason;
    }
}
