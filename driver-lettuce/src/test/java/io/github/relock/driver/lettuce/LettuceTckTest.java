package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.Closing;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.redisson.RedissonDriverTck;
import io.lettuce.core.AbstractRedisClient;

/**
 * Runs the driver contract kit and the Redisson interop rules where the driver matters
 * ({@link RedissonDriverTck}) against the Lettuce driver on one server and under Sentinel, with
 * the {@code RedisClient} an application would make for each ({@link LettuceTopologies#client});
 * {@link LettuceTckSentinelTest} runs it under Sentinel and {@link LettuceClusterTckTest} on the
 * cluster, each in a class of its own so that the test forks share the work (one class ran one
 * server and Sentinel in one fork for about 160 s, while the others ran out of classes). The engine spec and the whole interop chapter run once per topology on the reference
 * driver (Jedis); {@code -Pfull} runs them here too ({@link LettuceEngineSpecTest}).
 */
@Topologies(Kind.SINGLE)
class LettuceTckTest extends RedissonDriverTck {

    @Override
    protected RedisDriverProvider provider() {
        return new LettuceDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return LettuceTopologies.client(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return LettuceTopologies.client(topology);
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        // bounded: Lettuce's shutdown may never end on a cluster (Closing)
        Closing.within(String.valueOf(nativeClient), ((AbstractRedisClient) nativeClient)::shutdown);
    }

    /** Lettuce multiplexes one connection: there is no pool to exhaust, and {@code exhaustPool} stays null. */
    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        return LettuceTopologies.clientAs(topology, user, password);
    }
}
