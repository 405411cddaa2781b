package com.example.acme;

import io.github.relock.driver.jedis.JedisDriverProvider;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import java.net.URI;

/**
 * A sample third-party relock driver, for {@link AcmeClient}: how a driver author's code looks
 * beside the kit. It carries relock's traffic over the Jedis pool inside the Acme client by
 * handing that pool to relock's Jedis driver; a driver for a client of its own implements
 * {@link CommandExecutor} itself instead (see its javadoc for the contract, the reference driver
 * in {@code examples/resp-driver} for one written from scratch, and {@link AcmeDriverTckTest} for
 * the one class that checks it).
 *
 * <p>Registered in {@code META-INF/services/io.github.relock.spi.RedisDriverProvider}, so
 * {@code RedisLocks.create(acmeClient)} finds it.
 *
 * <p>Thread-safety: stateless.
 */
public final class AcmeDriverProvider implements RedisDriverProvider {
    private final JedisDriverProvider jedis = new JedisDriverProvider();

    /** Created by {@link java.util.ServiceLoader}. */
    public AcmeDriverProvider() {
    }

    @Override
    public String name() {
        return "acme";
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean supports(Object nativeClient) {
        return nativeClient instanceof AcmeClient;
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        if (!(nativeClient instanceof AcmeClient acme)) {
            throw new IllegalArgumentException("the acme driver takes an AcmeClient, not " + nativeClient);
        }
        return jedis.create(acme.pool(), options); // never closes the pool: the application's client owns it
    }

    @Override
    public boolean supportsUri(URI uri) {
        return false; // it only wraps a client the application made
    }

    @Override
    public CommandExecutor connect(URI uri, DriverOptions options) {
        throw new IllegalArgumentException("the acme driver only wraps an AcmeClient the application made: " + uri);
    }
}
