package io.github.relock.driver.springdata;

import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.fixtures.RedisTopology;

/**
 * Runs the Redisson interop chapter against the driver over a standalone
 * {@code LettuceConnectionFactory}, on every topology.
 *
 * <p>Only in {@code -Pfull}: the default build runs the whole chapter on the reference driver
 * (Jedis) and the rules where the driver matters in the {@code SpringData*TckTest} classes.
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class SpringDataLettuceRedissonInteropTest extends SpringDataRedissonInteropKit {

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.lettuce(topology);
    }
}
