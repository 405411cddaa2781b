package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.redisson.RedissonDriverTck;

/**
 * Runs the driver contract kit and the Redisson interop rules where the driver matters
 * ({@link RedissonDriverTck}) against the driver over a {@code LettuceConnectionFactory}
 * ({@link Factories}: its command timeout is 5 s, as an application would set it, so rules with
 * stopped servers do not wait out Spring's default 60 s) on one server;
 * {@link SpringDataLettuceTckSentinelTest} runs it under Sentinel and
 * {@link SpringDataLettuceClusterTckTest} on the cluster, each in a class of its own so that the
 * test forks share the work. The engine spec and the whole interop chapter run on the reference
 * driver (Jedis) in the default build, and here in {@code -Pfull} ({@link SpringDataLettuceEngineSpecTest}).
 */
@Topologies(Kind.SINGLE)
class SpringDataLettuceTckTest extends RedissonDriverTck {

    @Override
    protected RedisDriverProvider provider() {
        return new SpringDataDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return Factories.lettuce(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return Factories.lettuce(topology);
    }

    @Override
    protected void closeNativeClient(Object factory) {
        Factories.dispose(factory);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        return Factories.loggedIn(false, topology, user, password);
    }

    @Override
    protected boolean restartNativeClient(Object factory) {
        Factories.restart(factory);
        return true;
    }
}
