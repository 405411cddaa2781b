/**
 * <b>Driver</b> (an SPI implementation; use it through {@code RedisLocks}, not directly): relock
 * on Jedis 6.0 to 8.x: {@code UnifiedJedis} clients and classic {@code JedisPool}s. Only {@code JedisDriverProvider} is public, for the
 * module's {@code provides} clause; the executor, the Jedis pub/sub links that core's
 * {@code io.github.relock.spi.pubsub} helpers run (classic, or sharded on one cluster node, plus the
 * cluster's slot owners), the reply/error translation and {@code JedisVersions} (all that differs
 * between Jedis 6, 7 and 8) are package-private.
 */
package io.github.relock.driver.jedis;
