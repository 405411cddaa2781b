package io.github.relock.driver.lettuce;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link LettuceTckTest} on a 3-master, 3-replica Redis Cluster. */
class LettuceClusterTckTest extends LettuceTckTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
