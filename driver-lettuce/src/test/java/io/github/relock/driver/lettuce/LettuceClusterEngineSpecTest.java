package io.github.relock.driver.lettuce;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link LettuceEngineSpecTest} on a 3-master, 3-replica Redis Cluster ({@code -Pfull}). */
class LettuceClusterEngineSpecTest extends LettuceEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
