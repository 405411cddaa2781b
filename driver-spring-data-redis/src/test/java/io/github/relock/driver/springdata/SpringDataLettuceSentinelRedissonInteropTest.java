package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisTopology;

/** The Redisson interop chapter over a {@code LettuceConnectionFactory} on a Sentinel-managed primary with two replicas. */
class SpringDataLettuceSentinelRedissonInteropTest extends SpringDataLettuceRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
