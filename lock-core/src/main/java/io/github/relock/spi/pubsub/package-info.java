/**
 * <b>SPI helpers</b> (stable, for driver authors): the pub/sub bookkeeping that
 * {@link io.github.relock.spi.CommandExecutor#subscribe} asks of a driver, written once, so a driver
 * only supplies a raw link to Redis.
 *
 * <p>{@link io.github.relock.spi.pubsub.SessionTransport} is what a driver implements for a client
 * whose pub/sub blocks a reader thread and ends when the last channel leaves (Jedis); it is run by
 * {@link io.github.relock.spi.pubsub.SessionPubSub}, and per cluster node, routed by hash slot, by
 * {@link io.github.relock.spi.pubsub.ShardedPubSub} for {@code SSUBSCRIBE}.
 * {@link io.github.relock.spi.pubsub.ConnectionTransport} is what a driver implements for a client
 * whose one pub/sub connection stays open, answers commands with futures and reconnects and
 * resubscribes by itself (Lettuce); it is run by {@link io.github.relock.spi.pubsub.ConnectionPubSub},
 * classic and sharded channels alike (the client routes {@code SSUBSCRIBE} by slot).
 * The helpers own the channel bookkeeping (what is wanted, what the server has, which command a
 * confirmation answers, deadlines), resubscribing with back-off after a break or a slot move, the one
 * {@link io.github.relock.spi.ConnectionListener#onReconnect()} once every channel is back, and the
 * failure of exactly the futures a failure concerns. A transport reports its client's failures as
 * {@link io.github.relock.api.RedisErrorException} (Redis refused) or
 * {@link io.github.relock.api.RedisUnavailableException} (anything else); the helpers never parse a
 * client library's exceptions. Nothing here names a Jedis, Lettuce or Netty type.
 */
package io.github.relock.spi.pubsub;
