package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.RelockTck;

/**
 * Runs the whole relock kit ({@link RelockTck}: the driver contract and the engine spec) against
 * the Jedis driver, relock's reference driver, on the pooled single-node client of the Jedis on
 * the class path ({@link JedisTopologies#pooled}), so the {@code jedis-*} profiles run it too.
 * The engine spec runs once per topology on Jedis: here, on the cluster
 * ({@link JedisClusterTckTest}) and under Sentinel ({@link JedisSentinelEngineSpecTest}).
 */
class JedisTckTest extends RelockTck {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return JedisTopologies.pooled(server);
    }

    /** Closes any Jedis client or pool; the subclasses rely on it. */
    @Override
    protected void closeNativeClient(Object nativeClient) {
        JedisTopologies.close(nativeClient);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        return JedisTopologies.clientAs(topology, user, password);
    }

    @Override
    protected AutoCloseable exhaustPool(Object nativeClient, String key) {
        return JedisTopologies.exhaust(nativeClient, key);
    }
}
