package io.github.relock.driver.springdata;

/**
 * A factory the driver cannot serve as it is configured (a static master/replica Lettuce client
 * has no endpoint to subscribe on; a Jedis factory lends no Jedis connection): the one
 * {@link IllegalStateException} {@link SpringErrors} lets through besides the executor's own
 * "closed". Any other {@code IllegalStateException} a client or a factory throws (a factory that
 * is stopped, a client shut down under it) is Redis being unavailable, since the SPI keeps
 * {@code IllegalStateException} for "the executor is closed", at which core gives up.
 *
 * <p>Thread-safety: immutable once thrown.
 */
final class Misconfigured extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Misconfigured(String message, Throwable cause) {
        super(message, cause);
    }

    Misconfigured(String message) {
        super(message);
    }
}
