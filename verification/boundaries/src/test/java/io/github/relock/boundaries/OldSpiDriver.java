package io.github.relock.boundaries;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import java.net.URI;

/**
 * A test-only driver built for an SPI version this lock-core does not speak: discovery must drop it
 * and name it in its errors. Registered in this module's test {@code META-INF/services}.
 *
 * <p>Thread-safety: stateless.
 */
public final class OldSpiDriver implements RedisDriverProvider {
    /** The SPI version it claims. */
    static final int OLD_SPI = RedisDriverProvider.SPI_VERSION - 1;

    /** Creates the provider ({@link java.util.ServiceLoader} does this). */
    public OldSpiDriver() {
    }

    @Override
    public String name() {
        return "old-spi";
    }

    @Override
    public int spiVersion() {
        return OLD_SPI;
    }

    @Override
    public boolean supports(Object nativeClient) {
        return true;
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        throw new AssertionError("a driver dropped for its SPI version was used");
    }

    @Override
    public CommandExecutor connect(URI uri, DriverOptions options) {
        throw new AssertionError("a driver dropped for its SPI version was used");
    }
}
