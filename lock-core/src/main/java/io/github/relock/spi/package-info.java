/**
 * <b>SPI</b> (stable, for driver authors): what a Redis client adapter implements so that relock's
 * engine can run on it.
 *
 * <p>Core builds every Redis call; a driver only carries it. A driver implements
 * {@link io.github.relock.spi.RedisDriverProvider} (found through {@link java.util.ServiceLoader})
 * and {@link io.github.relock.spi.CommandExecutor}. Nothing here names a Jedis, Lettuce or Netty
 * type. The pub/sub bookkeeping {@code CommandExecutor.subscribe} asks for is written once, in
 * {@link io.github.relock.spi.pubsub}. Run {@code lock-tck}'s conformance kit against a new driver
 * to certify it.
 */
package io.github.relock.spi;
