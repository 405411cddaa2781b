package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.FailoverKit;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import redis.clients.jedis.UnifiedJedis;

/**
 * Runs the kit's failover chapter against the Jedis driver on a cluster and under Sentinel. Rules
 * 16.3 and 16.4 (what the promoted node has: they check the engine's renewal and replica
 * acknowledgement, not how the client reconnects) run under Sentinel in {@code LettuceFailoverTest}
 * only; {@code -Pfull} runs them here too.
 */
class JedisFailoverTest extends FailoverKit {

    @Override
    protected String elsewhere(String rule, RedisTopology.Kind topology) {
        boolean engineRule = rule.equals("16.3") || rule.equals("16.4");
        return engineRule && topology == RedisTopology.Kind.SENTINEL ? "LettuceFailoverTest runs it under Sentinel" : null;
    }

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return JedisTopologies.client(server);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return JedisTopologies.client(topology);
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((UnifiedJedis) nativeClient).close();
    }
}
