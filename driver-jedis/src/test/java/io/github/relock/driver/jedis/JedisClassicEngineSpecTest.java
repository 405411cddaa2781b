package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.EngineSpec;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * The engine spec on Jedis' classic clients ({@link JedisTopologies#classic}): a
 * {@code JedisPool} and a {@code JedisCluster}. Only in {@code -Pfull} (the pool) and the
 * {@code jedis-*} version profiles (both): the engine does not depend on how the client holds its
 * connections, and the default build runs it on {@link JedisTckTest}.
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER})
class JedisClassicEngineSpecTest extends EngineSpec {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return JedisTopologies.classic(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return JedisTopologies.classic(topology);
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        JedisTopologies.close(nativeClient);
    }
}
