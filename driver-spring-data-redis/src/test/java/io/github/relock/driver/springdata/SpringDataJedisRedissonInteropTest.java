package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisTopology;

/**
 * Runs the Redisson interop chapter against the driver over a standalone
 * {@code JedisConnectionFactory}; the Sentinel and cluster subclasses change only the topology.
 *
 * <p>In the default build (about 25 s): Redisson sharing locks with the driver is what the
 * driver is for; the Sentinel and cluster subclasses run in the {@code spring-data-kit} profile.
 */
class SpringDataJedisRedissonInteropTest extends SpringDataRedissonInteropKit {

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.jedis(topology);
    }
}
