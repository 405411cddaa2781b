package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.RedisTopology;

/**
 * The Redisson interop chapter over a {@code LettuceConnectionFactory} on the kit's 3-master, 3-replica Redis Cluster.
 *
 * <p>Only in the {@code spring-data-kit} profile: the 8 Sentinel and cluster runs take about 8
 * minutes together, more than the default build's budget; the default build checks this topology with
 * {@link SpringDataTopologiesTest} and runs the interop chapter on a standalone server.
 */
class SpringDataLettuceClusterRedissonInteropTest extends SpringDataLettuceRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
