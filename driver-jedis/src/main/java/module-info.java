/**
 * relock's driver on Jedis 6.0 to 8.x: runs relock's scripts and pub/sub over an application's
 * {@code UnifiedJedis} ({@code RedisClient}, {@code RedisClusterClient}, {@code JedisCluster},
 * {@code RedisSentinelClient}, {@code JedisPooled}, ...) or classic {@code JedisPool} /
 * {@code JedisSentinelPool}. Exports nothing; found through {@link java.util.ServiceLoader}.
 */
module io.github.relock.driver.jedis {
    requires io.github.relock.core;
    requires redis.clients.jedis;
    provides io.github.relock.spi.RedisDriverProvider with io.github.relock.driver.jedis.JedisDriverProvider;
}
