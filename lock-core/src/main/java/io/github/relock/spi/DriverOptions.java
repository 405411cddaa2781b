package io.github.relock.spi;

import io.github.relock.api.LockOptions;
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
 * @param pubSubProbeInterval how often the driver probes each pub/sub connection with a
 *     {@code PING} ({@link LockOptions#pubSubProbeInterval()}); one not answered within
 *     {@code commandTimeout} is broken and reopened. The SPI's pub/sub helpers
 *     ({@link io.github.relock.spi.pubsub.SessionPubSub}, {@link io.github.relock.spi.pubsub.ConnectionPubSub})
 *     do it for a transport that can ping. Zero: never
 */
public record DriverOptions(Duration commandTimeout, String clientName, Duration pubSubProbeInterval) {

    /** Validates the components. */
    public DriverOptions {
        Objects.requireNonNull(commandTimeout, "commandTimeout");
        Objects.requireNonNull(clientName, "clientName");
        Objects.requireNonNull(pubSubProbeInterval, "pubSubProbeInterval");
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("commandTimeout must be positive, was " + commandTimeout);
        }
        if (pubSubProbeInterval.isNegative()) {
            throw new IllegalArgumentException("pubSubProbeInterval must not be negative, was " + pubSubProbeInterval);
        }
    }

    /**
     * Options that probe pub/sub connections every {@link LockOptions#DEFAULT_PUB_SUB_PROBE_INTERVAL}.
     *
     * @param commandTimeout see the record
     * @param clientName see the record
     */
    public DriverOptions(Duration commandTimeout, String clientName) {
        this(commandTimeout, clientName, LockOptions.DEFAULT_PUB_SUB_PROBE_INTERVAL);
    }
}
