/**
 * <b>Driver</b> (an SPI implementation; use it through {@code RedisLocks}, not directly): relock
 * on a Spring Data Redis {@code RedisConnectionFactory}. Only {@code SpringDataDriverProvider} is
 * public, for the module's {@code provides} clause; the executor, the script calls per backing
 * client, the pub/sub session and the error translation are package-private.
 */
package io.github.relock.driver.springdata;
