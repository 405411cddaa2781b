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
    // Lettuce is an automatic module, so it declares none of its own dependencies, and the explicit
    // modules among them (Netty 4.2, SLF4J 2) would stay out of a module-path launch
    // (NoClassDefFoundError: io/netty/channel/group/ChannelGroup, then LoggerFactory). Requiring
    // the ones Lettuce loads resolves them, and what they require, for the application, with no
    // --add-modules.
    requires io.netty.transport;
    requires io.netty.handler;
    requires io.netty.resolver.dns;
    requires org.slf4j;
    provides io.github.relock.spi.RedisDriverProvider with io.github.relock.driver.lettuce.LettuceDriverProvider;
}
