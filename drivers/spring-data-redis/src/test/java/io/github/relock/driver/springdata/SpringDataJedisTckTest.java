package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.LivenessChapter;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.redisson.RedissonDriverTck;
import java.time.Duration;

/**
 * Runs the driver contract kit and the Redisson interop rules where the driver matters
 * ({@link RedissonDriverTck}) against the driver over a {@code JedisConnectionFactory}
 * ({@link Factories}) on one server; {@link SpringDataJedisTckSentinelTest} runs it under Sentinel
 * and {@link SpringDataJedisClusterTckTest} on the cluster, each in a class of its own so that the
 * test forks share the work. The engine spec
 * and the whole interop chapter run on the reference driver (Jedis) in the default build, and
 * here in {@code -Pfull} ({@link SpringDataJedisEngineSpecTest}).
 *
 * <p>Liveness bound on the cluster: 1 s, not 500 ms. On this factory the fair-lock soaks of
 * chapter 21 saw a free lock with fair waiters queued for 514-794 ms in about half the runs on 2
 * cores, never longer, where Spring Data over Lettuce and the Jedis driver on the same cluster stay
 * under 500 ms: the waiters were awake and inside script round trips (Spring's Jedis cluster
 * connection runs scripts one blocking call at a time through the node pools, and its one classic
 * pub/sub connection sits on an arbitrary node). The wider bound still fails a waiter asleep for a
 * TTL or a lost wake-up.
 */
@Topologies(Kind.SINGLE)
class SpringDataJedisTckTest extends RedissonDriverTck {

    @Override
    protected RedisDriverProvider provider() {
        return new SpringDataDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return Factories.jedis(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.jedis(topology);
    }

    @Override
    protected void closeNativeClient(Object factory) {
        Factories.dispose(factory);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        return Factories.loggedIn(true, topology, user, password);
    }

    @Override
    public Duration livenessBound() {
        return livenessBound(topology());
    }

    /** @return the liveness bound on this factory: 1 s on a cluster (see the class comment), else the kit's */
    static Duration livenessBound(RedisTopology topology) {
        Duration wider = Duration.ofSeconds(1);
        return topology.kind() != Kind.CLUSTER || LivenessChapter.BOUND.compareTo(wider) > 0 ? LivenessChapter.BOUND
                : wider;
    }

    @Override
    protected AutoCloseable exhaustPool(Object factory, String key) {
        return Factories.exhaust(factory, key, topology());
    }

    @Override
    protected boolean restartNativeClient(Object factory) {
        Factories.restart(factory);
        return true;
    }
}
