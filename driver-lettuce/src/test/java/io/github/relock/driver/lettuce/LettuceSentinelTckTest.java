package io.github.relock.driver.lettuce;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link LettuceTckTest} on a Sentinel-managed primary with two replicas. */
class LettuceSentinelTckTest extends LettuceTckTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
