package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.RedisTopology;

/** {@link SpringDataJedisTckTest} over a {@code JedisConnectionFactory} on the kit's 3-master, 3-replica Redis Cluster. */
class SpringDataJedisClusterTckTest extends SpringDataJedisTckTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
