package com.example.resp;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import java.net.URI;

/**
 * relock's reference driver, written from scratch against the SPI: RESP2 over plain sockets to
 * one Redis server, no Redis client library. The application's "client" is a
 * {@link RespEndpoint} (an address and a log-in); every connection is the driver's own.
 *
 * <p>Registered in {@code META-INF/services/io.github.relock.spi.RedisDriverProvider}, so
 * {@code RedisLocks.create(endpoint)} and {@code RedisLocks.connect("redis://...")} find it.
 *
 * <p>Thread-safety: stateless.
 */
public final class RespDriverProvider implements RedisDriverProvider {

    /** Created by {@link java.util.ServiceLoader}. */
    public RespDriverProvider() {
    }

    @Override
    public String name() {
        return "resp";
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean supports(Object nativeClient) {
        return nativeClient instanceof RespEndpoint;
    }

    /** Rule 1.6.1: the executor opens and closes its own connections; the endpoint holds none. */
    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        if (!(nativeClient instanceof RespEndpoint endpoint)) {
            throw new IllegalArgumentException("the resp driver takes a RespEndpoint, not " + nativeClient);
        }
        return new RespExecutor(endpoint, options);
    }

    /** No TLS: {@code rediss://} is another driver's. */
    @Override
    public boolean supportsUri(URI uri) {
        return "redis".equalsIgnoreCase(uri.getScheme());
    }

    /** Opens one connection at once, so an unreachable server fails here, as the SPI asks. */
    @Override
    public CommandExecutor connect(URI uri, DriverOptions options) {
        RespExecutor executor = new RespExecutor(RespEndpoint.of(uri), options);
        try {
            executor.connectNow();
            return executor;
        } catch (RuntimeException e) {
            executor.close();
            throw e;
        }
    }
}
