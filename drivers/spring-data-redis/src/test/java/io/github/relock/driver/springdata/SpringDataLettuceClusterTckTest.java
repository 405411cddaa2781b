package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link SpringDataLettuceTckTest} over a {@code LettuceConnectionFactory} on the kit's 3-master, 3-replica Redis Cluster. */
class SpringDataLettuceClusterTckTest extends SpringDataLettuceTckTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }
}
