package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.RedisTopology;

/**
 * Runs the whole relock kit against the driver over a {@code LettuceConnectionFactory}
 * on the kit's 3-master, 3-replica Redis Cluster
 * (a factory from {@code RedisClusterConfiguration}).
 *
 * <p>Only in the {@code spring-data-kit} profile: the 8 Sentinel and cluster runs take about 8
 * minutes together, more than the default build's budget; the default build checks this topology with
 * {@link SpringDataTopologiesTest} and runs the kit on a standalone server.
 */
class SpringDataLettuceClusterTckTest extends SpringDataLettuceTckTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.lettuce(topology);
    }
}
