package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link SpringDataLettuceEngineSpecTest} on the kit's Redis Cluster ({@code -Pfull}). */
class SpringDataLettuceClusterEngineSpecTest extends SpringDataLettuceEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
