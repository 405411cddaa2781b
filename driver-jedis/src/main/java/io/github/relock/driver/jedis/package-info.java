/**
 * <b>Driver</b> (an SPI implementation; use it through {@code RedisLocks}, not directly): relock
 * on Jedis 6.0 to 8.x: {@code UnifiedJedis} clients and classic {@code JedisPool}s. Only {@code JedisDriverProvider} is public, for the
 * module's {@code provides} clause; the executor, the pub/sub multiplexer (one dedicated
 * subscriber thread), its transports (classic, or sharded on one cluster node), the sharded
 * pub/sub router (one multiplexer per cluster master), the reply/error translation and
 * {@code JedisVersions} (all that differs between Jedis 6, 7 and 8) are package-private.
 */
package io.github.relock.driver.jedis;
