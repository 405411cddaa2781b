package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RelockTck;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * Runs the whole relock kit ({@link RelockTck}: the driver contract and the engine spec, each
 * chapter once) against the Jedis driver, relock's reference driver, on one server: the pooled
 * single-node client of the Jedis on the class path ({@link JedisTopologies#pooled}, so the
 * {@code jedis-*} profiles run it too). {@link JedisTckSentinelTest} runs it under Sentinel with a
 * {@code RedisSentinelClient} ({@link JedisTopologies#client}) and {@link JedisTckClusterTest} on
 * the cluster, each in a class of its own so that the test forks share the work (one class would
 * run the three topologies, about nine minutes, in one fork); {@link JedisRedissonInteropTest} runs
 * the Redisson interop chapter, and {@link JedisClassicTckTest} the driver contract on Jedis'
 * classic pools.
 */
@Topologies(Kind.SINGLE)
class JedisTckTest extends RelockTck {

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
