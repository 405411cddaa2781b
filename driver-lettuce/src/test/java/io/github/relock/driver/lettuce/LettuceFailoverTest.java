package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.FailoverKit;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.AbstractRedisClient;

/**
 * Runs the kit's failover chapter against the Lettuce driver on a cluster and under Sentinel. Rules
 * 16.3 and 16.4 (what the promoted node has: they check the engine's renewal and replica
 * acknowledgement, not how the client reconnects) run on the cluster in {@code JedisFailoverTest}
 * only; {@code -Pfull} runs them here too.
 */
class LettuceFailoverTest extends FailoverKit {

    @Override
    protected String elsewhere(String rule, RedisTopology.Kind topology) {
        boolean engineRule = rule.equals("16.3") || rule.equals("16.4");
        return engineRule && topology == RedisTopology.Kind.CLUSTER ? "JedisFailoverTest runs it on the cluster" : null;
    }

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
        ((AbstractRedisClient) nativeClient).shutdown();
    }
}
