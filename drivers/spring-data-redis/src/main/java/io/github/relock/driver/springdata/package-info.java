/**
 * <b>Driver</b> (an SPI implementation; use it through {@code RedisLocks}): relock on a Spring Data
 * Redis {@code RedisConnectionFactory}. Only {@code SpringDataDriverProvider} is public; the script
 * calls and raw pub/sub per backing client (run by core's {@code io.github.relock.spi.pubsub}) are not.
 */
package io.github.relock.driver.springdata;
