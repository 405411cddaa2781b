/**
 * <b>Driver</b> (an SPI implementation; use it through {@code RedisLocks}, not directly): relock
 * on Lettuce's {@code RedisClient} and {@code RedisClusterClient}. Only
 * {@code LettuceDriverProvider} is public, for the module's {@code provides} clause; the executor
 * (native async, one pub/sub connection) and the reply/error translation are package-private.
 */
package io.github.relock.driver.lettuce;
