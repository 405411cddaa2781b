package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.RedisTopology;

/** {@link SpringDataJedisEngineSpecTest} on the kit's Redis Cluster ({@code -Pfull}). */
class SpringDataJedisClusterEngineSpecTest extends SpringDataJedisEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
