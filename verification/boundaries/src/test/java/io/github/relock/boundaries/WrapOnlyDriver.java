package io.github.relock.boundaries;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import java.net.URI;

/**
 * A test-only third-party driver that only wraps clients of a type these tests never make, and
 * opens no connection from a URI: it must never be a candidate for {@code RedisLocks.connect}.
 * Registered in this module's test {@code META-INF/services}.
 *
 * <p>Thread-safety: stateless.
 */
public final class WrapOnlyDriver implements RedisDriverProvider {

    /** Creates the provider ({@link java.util.ServiceLoader} does this). */
    public WrapOnlyDriver() {
    }

    @Override
    public String name() {
        return "wrap-only";
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean supports(Object nativeClient) {
        return false;
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        throw new IllegalArgumentException("wrap-only supports no client these tests make");
    }

    @Override
    public boolean supportsUri(URI uri) {
        return false;
    }

    @Override
    public CommandExecutor connect(URI uri, DriverOptions options) {
        throw new AssertionError("connect was called on a driver that opens no connection from a URI");
    }
}
