package io.github.relock.driver.jedis;

import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.RedisTopology;

/** Runs the whole relock TCK against the Jedis driver on a 3-master, 3-replica Redis Cluster. */
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
