package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;

/**
 * The Redisson interop chapter over a {@code LettuceConnectionFactory} on the kit's 3-master, 3-replica Redis Cluster.
 *
 * <p>Only in {@code -Pfull}: the default build runs the whole chapter on the reference driver
 * (Jedis) and the rules where the driver matters in the {@code SpringData*TckTest} classes.
 */
class SpringDataLettuceClusterRedissonInteropTest extends SpringDataLettuceRedissonInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
