/**
 * relock's driver on an application's Spring Data Redis {@code RedisConnectionFactory} (Lettuce- or
 * Jedis-backed). Exports nothing; found through {@link java.util.ServiceLoader}.
 */
module io.github.relock.driver.springdata {
    requires io.github.relock.core;
    requires spring.data.redis;
    requires spring.tx;
    requires static lettuce.core;
    requires static redis.clients.jedis;
    provides io.github.relock.spi.RedisDriverProvider with io.github.relock.driver.springdata.SpringDataDriverProvider;
}
