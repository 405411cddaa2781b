package io.github.relock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What core tells a driver when creating it.
 *
 * <p>Thread-safety: immutable.
 *
 * @param commandTimeout the longest a command may take; a driver that opens its own connection
 *     uses it as the client's timeout; on a handed-in client the client's own timeout applies (see
 *     {@link CommandExecutor}); a timeout is reported as
 *     {@link io.github.relock.api.RedisUnavailableException}
 * @param clientName a name for {@code CLIENT SETNAME} on connections the driver opens itself, e.g.
 *     {@code relock:<clientId>}; drivers must not rename connections they were given
 */
public record DriverOptions(Duration commandTimeout, String clientName) {

    /** Validates the components. */
    public DriverOptions {
        Objects.requireNonNull(commandTimeout, "commandTimeout");
        Objects.requireNonNull(clientName, "clientName");
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("commandTimeout must be positive, was " + commandTimeout);
        }
    }
}
