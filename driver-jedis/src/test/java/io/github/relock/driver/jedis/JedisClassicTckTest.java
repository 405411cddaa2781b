package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverTck;
import io.github.relock.tck.RuleSlice;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPool;

/**
 * Runs the driver contract kit against the Jedis driver on Jedis' classic clients
 * ({@link JedisTopologies#classic}), API every Jedis from 6.0 to 8.x has: a {@link JedisPool} (what
 * Spring Data Redis' {@code JedisConnectionFactory} holds: every call borrows a {@code Jedis},
 * pub/sub holds one while anything is subscribed), a {@code JedisCluster} and a
 * {@code JedisSentinelPool}. How the client holds its connections matters to exactly these
 * chapters; the engine spec does not depend on it ({@link JedisClassicEngineSpecTest} runs it
 * here in {@code -Pfull}). The default build runs the pool only
 * ({@code relock.tck.topologies.JedisClassicTckTest=single}; {@link JedisTckTest} and
 * {@link JedisTckClusterTest} cover Sentinel and cluster); the {@code jedis-*} version profiles run all three.
 * The fault-injection, cohort and leader-election chapters, which wrap or drive the engine rather
 * than the pool, are left to {@link JedisTckTest} and {@link JedisTckClusterTest}
 * ({@link RuleSlice}; {@code -Pfull} runs them here too).
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
@RuleSlice(except = {"faults", "cohort", "leader-election"},
        elsewhere = "they wrap or drive the engine, not the pool:"
                + " JedisTckTest and JedisTckClusterTest run them")
class JedisClassicTckTest extends DriverTck {

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

    /** A pool logged in as the user; on a cluster the client {@link JedisTopologies#clientAs} makes; none under Sentinel. */
    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        if (topology instanceof RedisServer server) {
            return new JedisPool(new HostAndPort(server.host(), server.port()),
                    DefaultJedisClientConfig.builder().user(user).password(password).build());
        }
        return JedisTopologies.clientAs(topology, user, password);
    }

    /** The pool, or the pool of a cluster's node; none under Sentinel (its rules skip there). */
    @Override
    protected AutoCloseable exhaustPool(Object nativeClient, String key) {
        return topology().kind() == Kind.SENTINEL ? null : JedisTopologies.exhaust(nativeClient, key);
    }
}
