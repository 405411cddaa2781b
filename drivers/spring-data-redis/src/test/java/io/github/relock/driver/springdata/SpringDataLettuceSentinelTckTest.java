package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link SpringDataLettuceTckTest} over a {@code LettuceConnectionFactory} on a Sentinel-managed primary with two replicas. */
class SpringDataLettuceSentinelTckTest extends SpringDataLettuceTckTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
