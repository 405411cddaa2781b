package com.example.acme;

import java.net.URI;
import redis.clients.jedis.RedisClient;

/**
 * A stand-in for a third-party Redis client, "Acme", that relock has no driver for. It happens to
 * sit on Jedis inside; its driver ({@link AcmeDriverProvider}) treats it as the application's
 * client, which the driver never closes.
 *
 * <p>Thread-safety: safe for use by several threads, as the client inside.
 */
public final class AcmeClient implements AutoCloseable {
    private final RedisClient redis;

    private AcmeClient(RedisClient redis) {
        this.redis = redis;
    }

    /**
     * @param uri a {@code redis://host:port} URI
     * @return a client connected to it
     */
    public static AcmeClient connect(URI uri) {
        return new AcmeClient(RedisClient.create(uri));
    }

    /** @return the connection pool inside, for the driver */
    RedisClient pool() {
        return redis;
    }

    @Override
    public void close() {
        redis.close();
    }
}
