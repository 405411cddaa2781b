/**
 * <b>Driver</b> (an SPI implementation; use it through {@code RedisLocks}, not directly): relock
 * on Jedis 8's {@code UnifiedJedis} clients. Only {@code JedisDriverProvider} is public, for the
 * module's {@code provides} clause; the executor, the pub/sub multiplexer (one dedicated
 * subscriber thread), its transports (classic, or sharded on one cluster node), the sharded
 * pub/sub router (one multiplexer per cluster master) and the reply/error translation are
 * package-private.
 */
package io.github.relock.driver.jedis;
