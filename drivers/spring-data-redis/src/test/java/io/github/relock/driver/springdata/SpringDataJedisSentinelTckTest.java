package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link SpringDataJedisTckTest} over a {@code JedisConnectionFactory} on a Sentinel-managed primary with two replicas. */
class SpringDataJedisSentinelTckTest extends SpringDataJedisTckTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
