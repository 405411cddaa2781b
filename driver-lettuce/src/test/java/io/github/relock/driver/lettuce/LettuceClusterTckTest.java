package io.github.relock.driver.lettuce;

import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.RedisTopology;

/** {@link LettuceTckTest} on a 3-master, 3-replica Redis Cluster. */
class LettuceClusterTckTest extends LettuceTckTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
