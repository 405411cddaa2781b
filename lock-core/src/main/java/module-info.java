/**
 * relock's engine: Lua scripts, pub/sub waiting, renewal, and driver discovery. Exports the entry
 * point {@code io.github.relock.core.RedisLocks}, the driver SPI and its pub/sub helpers; everything
 * else is internal.
 */
module io.github.relock.core {
    requires transitive io.github.relock.api;
    requires jdk.jfr;
    exports io.github.relock.core;
    exports io.github.relock.spi;
    exports io.github.relock.spi.pubsub;
    uses io.github.relock.spi.RedisDriverProvider;
}
