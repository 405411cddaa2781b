package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;

/**
 * The Redisson interop chapter over a {@code JedisConnectionFactory} on a Sentinel-managed primary with two replicas.
 *
 * <p>Only in {@code -Pfull}: the default build runs the whole chapter on the reference driver
 * (Jedis) and the rules where the driver matters in the {@code SpringData*TckTest} classes.
 */
class SpringDataJedisSentinelRedissonInteropTest extends SpringDataJedisRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
