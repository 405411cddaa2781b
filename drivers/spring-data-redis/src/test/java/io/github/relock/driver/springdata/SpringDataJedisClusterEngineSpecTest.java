package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;

/**
 * {@link SpringDataJedisEngineSpecTest} on the kit's Redis Cluster ({@code -Pfull}), with the
 * liveness bound {@link SpringDataJedisClusterTckTest} explains.
 */
class SpringDataJedisClusterEngineSpecTest extends SpringDataJedisEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }

    @Override
    public Duration livenessBound() {
        return new SpringDataJedisClusterTckTest().livenessBound();
    }
}
