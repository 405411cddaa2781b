package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverTck;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * Runs the driver contract kit ({@link DriverTck}) against the Jedis driver, relock's reference
 * driver, on every topology: the pooled single-node client of the Jedis on the class path
 * ({@link JedisTopologies#pooled}, so the {@code jedis-*} profiles run it too), a
 * {@code RedisClusterClient} and a {@code RedisSentinelClient} ({@link JedisTopologies#client}).
 * {@link JedisTckEngineSpecTest} runs the engine spec on the same clients, and
 * {@link JedisRedissonInteropTest} the Redisson interop chapter; {@link JedisClassicTckTest} runs
 * this kit on Jedis' classic pools.
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class JedisTckTest extends DriverTck {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return JedisTopologies.pooled(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return topology instanceof RedisServer server ? JedisTopologies.pooled(server) : JedisTopologies.client(topology);
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        JedisTopologies.close(nativeClient);
    }

    /** The kits do not log in under Sentinel: {@link JedisTopologies#clientAs} answers null there. */
    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        return JedisTopologies.clientAs(topology, user, password);
    }

    /** A pool of one server or of a cluster's node; none under Sentinel (its rules skip there, as before). */
    @Override
    protected AutoCloseable exhaustPool(Object nativeClient, String key) {
        return topology().kind() == Kind.SENTINEL ? null : JedisTopologies.exhaust(nativeClient, key);
    }
}
