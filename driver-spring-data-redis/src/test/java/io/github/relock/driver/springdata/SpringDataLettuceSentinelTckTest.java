package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisTopology;

/**
 * Runs the whole relock kit against the driver over a {@code LettuceConnectionFactory}
 * on a Sentinel-managed primary with two replicas
 * (a factory from {@code RedisSentinelConfiguration}).
 *
 * <p>Only in the {@code spring-data-kit} profile: the 8 Sentinel and cluster runs take about 8
 * minutes together, more than the default build's budget; the default build checks this topology with
 * {@link SpringDataTopologiesTest} and runs the kit on a standalone server.
 */
class SpringDataLettuceSentinelTckTest extends SpringDataLettuceTckTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.lettuce(topology);
    }
}
