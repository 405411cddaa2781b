package io.github.relock.benchmarks;

import io.github.relock.api.LockOptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The libraries that run side by side, each on its own client to the same Redis.
 *
 * <ul>
 *   <li>{@code relock-jedis}: relock on a Jedis {@code RedisClient} (pooled); blocking calls run on
 *       the caller's thread.</li>
 *   <li>{@code relock-lettuce}: relock on a Lettuce {@code RedisClient} (one multiplexed connection).</li>
 *   <li>{@code redisson}: Redisson 4.7.0 with its default single-server configuration.</li>
 *   <li>{@code floor}: raw Jedis {@code EVALSHA} of relock's acquire and release scripts, no library
 *       logic; what any Redis lock of this wire format must at least cost.</li>
 * </ul>
 * The two Jedis-based contenders use the same pool of at most {@value #JEDIS_POOL_SIZE} connections,
 * more than the most threads a scenario runs (16) plus relock's pub/sub connection, so no thread
 * ever waits for a connection; Redisson's default pool is 64 connections.
 *
 * <p>Thread-safety: immutable.
 */
enum Contender {
    RELOCK_JEDIS("relock-jedis"),
    RELOCK_LETTUCE("relock-lettuce"),
    REDISSON("redisson"),
    FLOOR("floor");

    /** Connections in the Jedis pools (relock-jedis and the floor). */
    static final int JEDIS_POOL_SIZE = 32;

    // relock logs each client it creates at INFO; keep the benchmark output to results. Held
    // strongly: java.util.logging keeps loggers weakly.
    private static final Logger RELOCK_LOG = Logger.getLogger("io.github.relock");

    static {
        RELOCK_LOG.setLevel(Level.WARNING);
    }

    private final String id;

    Contender(String id) {
        this.id = id;
    }

    /** @return the name used in {@code @Param} values and in the report */
    String id() {
        return id;
    }

    boolean isRelock() {
        return this == RELOCK_JEDIS || this == RELOCK_LETTUCE;
    }

    static Contender of(String id) {
        for (Contender c : values()) {
            if (c.id.equals(id)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown contender '" + id + "'; expected one of "
                + Arrays.stream(values()).map(Contender::id).toList());
    }

    /**
     * Opens this contender's client.
     *
     * @param host Redis host
     * @param port Redis port
     * @param watchdog the lock watchdog timeout (renewal runs every third of it)
     * @return the client; close it after use
     */
    LockSource open(String host, int port, Duration watchdog) {
        LockOptions options = LockOptions.builder().lockWatchdogTimeout(watchdog).build();
        return switch (this) {
            case RELOCK_JEDIS -> RelockSource.onJedis(host, port, options);
            case RELOCK_LETTUCE -> RelockSource.onLettuce(host, port, options);
            case REDISSON -> RedissonSource.open(host, port, watchdog);
            case FLOOR -> FloorSource.open(host, port, watchdog);
        };
    }

    /** @return a client with the default watchdog (30 s) */
    LockSource open(String host, int port) {
        return open(host, port, LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT);
    }

    @Override
    public String toString() {
        return id;
    }
}
