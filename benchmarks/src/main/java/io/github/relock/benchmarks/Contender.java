package io.github.relock.benchmarks;

import io.github.relock.api.LockOptions;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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

    /** Connections in the Jedis pools (relock-jedis and the floor); per node on a cluster. */
    static final int JEDIS_POOL_SIZE = 32;

    /**
     * System property choosing relock's local hand-off setting for every relock contender in every
     * scenario: {@code default} (whatever {@link LockOptions} defaults to: on, 16 hand-offs or
     * 20 ms per run) or {@code off} ({@link LockOptions.Builder#noLocalHandoff()}).
     * {@link BenchmarkReport} passes it on to every JVM it starts.
     */
    static final String LOCAL_HANDOFF = "relock.localHandoff";

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
        LockOptions options = relockOptions(watchdog);
        return switch (this) {
            case RELOCK_JEDIS -> RelockSource.onJedis(host, port, options);
            case RELOCK_LETTUCE -> RelockSource.onLettuce(host, port, options);
            case REDISSON -> RedissonSource.open(host, port, watchdog);
            case FLOOR -> FloorSource.open(host, port, watchdog);
        };
    }

    /**
     * Opens this contender's cluster client (the default watchdog, 30 s).
     *
     * @param seeds the cluster's nodes (any of them; the client discovers the rest)
     * @return the client; close it after use
     * @throws UnsupportedOperationException for the floor (raw single-node {@code EVALSHA})
     */
    LockSource openCluster(List<InetSocketAddress> seeds) {
        Duration watchdog = LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT;
        return switch (this) {
            case RELOCK_JEDIS -> RelockSource.onJedisCluster(seeds, relockOptions(watchdog));
            case RELOCK_LETTUCE -> RelockSource.onLettuceCluster(seeds, relockOptions(watchdog));
            case REDISSON -> RedissonSource.openCluster(seeds, watchdog);
            case FLOOR -> throw new UnsupportedOperationException("the floor is a single-node EVALSHA: no cluster");
        };
    }

    /**
     * The options of every relock client the benchmarks make.
     *
     * @param watchdog the lock watchdog timeout
     * @return the options, with the local hand-off setting of {@code -Drelock.localHandoff}
     */
    static LockOptions relockOptions(Duration watchdog) {
        LockOptions.Builder options = LockOptions.builder().lockWatchdogTimeout(watchdog);
        String handOff = localHandOff();
        switch (handOff) {
            case "default" -> {
                // LockOptions' own default
            }
            case "off" -> options.noLocalHandoff();
            default -> throw new IllegalArgumentException("-D" + LOCAL_HANDOFF + " must be 'default' or 'off', was '"
                    + handOff + "'");
        }
        return options.build();
    }

    /** @return the value of {@code -Drelock.localHandoff}, {@code default} when unset */
    static String localHandOff() {
        return System.getProperty(LOCAL_HANDOFF, "default").trim().toLowerCase(Locale.ROOT);
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
