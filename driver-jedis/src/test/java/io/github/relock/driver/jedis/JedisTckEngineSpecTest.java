package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.EngineSpec;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * Runs the engine spec ({@link EngineSpec}) on every topology with the reference driver (Jedis),
 * on the clients {@link JedisTckTest} uses: the engine's chapters run once per topology, here,
 * and on no other driver in the default build ({@code -Pfull} runs them on every driver). Named
 * to sort beside {@code JedisTckTest}: surefire's reverse-alphabetical order then starts the two
 * long kit classes first, in two forks.
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class JedisTckEngineSpecTest extends EngineSpec {

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
}
