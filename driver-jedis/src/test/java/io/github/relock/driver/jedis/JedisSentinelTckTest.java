package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverTck;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;

/**
 * Runs the driver contract kit against the Jedis driver on a Sentinel-managed primary with two
 * replicas; {@link JedisSentinelEngineSpecTest} runs the engine spec there, so the reference
 * driver covers every chapter on Sentinel too, in two classes the test forks can share.
 */
class JedisSentinelTckTest extends DriverTck {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return JedisTopologies.pooled(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return JedisTopologies.client(topology);
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        JedisTopologies.close(nativeClient);
    }
}
