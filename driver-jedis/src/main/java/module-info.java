/**
 * relock's driver on Jedis: runs relock's scripts and pub/sub over an application's
 * {@code UnifiedJedis} ({@code RedisClient}, {@code RedisClusterClient}, {@code JedisCluster},
 * {@code RedisSentinelClient}, ...). Exports nothing; found through {@link java.util.ServiceLoader}.
 */
module io.github.relock.driver.jedis {
    requires io.github.relock.core;
    requires redis.clients.jedis;
    provides io.github.relock.spi.RedisDriverProvider with io.github.relock.driver.jedis.JedisDriverProvider;
}
