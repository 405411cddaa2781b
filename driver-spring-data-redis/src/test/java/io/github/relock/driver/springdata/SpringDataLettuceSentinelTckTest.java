package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisTopology;

/** {@link SpringDataLettuceTckTest} over a {@code LettuceConnectionFactory} on a Sentinel-managed primary with two replicas. */
class SpringDataLettuceSentinelTckTest extends SpringDataLettuceTckTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
