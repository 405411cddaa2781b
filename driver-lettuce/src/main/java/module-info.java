/**
 * relock's driver on Lettuce 6.6 to 7.x: runs relock's scripts and pub/sub on an application's
 * {@code io.lettuce.core.RedisClient} or {@code io.lettuce.core.cluster.RedisClusterClient}.
 * Exports nothing; core finds {@link io.github.relock.driver.lettuce.LettuceDriverProvider} through
 * {@link java.util.ServiceLoader}.
 */
module io.github.relock.driver.lettuce {
    requires io.github.relock.core;
    requires lettuce.core;
    requires io.netty.common; // the client's timer (ClientResources.timer()) for async timeouts
    provides io.github.relock.spi.RedisDriverProvider with io.github.relock.driver.lettuce.LettuceDriverProvider;
}
