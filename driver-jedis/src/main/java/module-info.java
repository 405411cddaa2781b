/**
 * relock's driver on Jedis 6.0 to 8.x: runs relock's scripts and pub/sub over an application's
 * {@code UnifiedJedis} ({@code RedisClient}, {@code RedisClusterClient}, {@code JedisCluster},
 * {@code RedisSentinelClient}, {@code JedisPooled}, ...) or classic {@code JedisPool} /
 * {@code JedisSentinelPool}. Exports nothing; found through {@link java.util.ServiceLoader}.
 */
module io.github.relock.driver.jedis {
    requires io.github.relock.core;
    requires redis.clients.jedis;
    // Jedis is an automatic module, so it declares none of its own dependencies, and the explicit
    // modules among them (commons-pool2, SLF4J 2) would stay out of a module-path launch
    // (NoClassDefFoundError: GenericObjectPoolConfig, then LoggerFactory). Requiring them here
    // resolves them for the application, with no --add-modules.
    requires org.apache.commons.pool2;
    requires org.slf4j;
    provides io.github.relock.spi.RedisDriverProvider with io.github.relock.driver.jedis.JedisDriverProvider;
}
