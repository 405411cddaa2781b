package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisTopology;

/** The Redisson interop chapter over a {@code JedisConnectionFactory} on a Sentinel-managed primary with two replicas. */
class SpringDataJedisSentinelRedissonInteropTest extends SpringDataJedisRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
