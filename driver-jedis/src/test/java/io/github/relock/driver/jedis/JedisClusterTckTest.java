package io.github.relock.driver.jedis;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;

/** Runs the whole relock kit against the reference driver (Jedis) on a 3-master, 3-replica Redis Cluster. */
class JedisClusterTckTest extends JedisTckTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return JedisTopologies.client(topology);
    }
}
