package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.FailoverKit;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.AbstractRedisClient;

/** Runs the kit's failover chapter against the Lettuce driver on a cluster and under Sentinel. */
class LettuceFailoverTest extends FailoverKit {

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

    /**
     * Open defect: under Sentinel, after SENTINEL FAILOVER the Lettuce client's renewals reach a
     * master without the six locks (EVAL after NOSCRIPT answers 0s; DBSIZE 0 there), so they are
     * reported lost — the safe direction, but wrong. The same rule passes with Jedis. See the
     * README's known limitations.
     */
    @Override
    protected String knownIssue(String rule, RedisTopology.Kind topology) {
        return rule.equals("16.2") && topology == RedisTopology.Kind.SENTINEL
                ? "Lettuce under Sentinel reports held locks NOT_HELD after a coordinated failover (open defect)"
                : null;
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((AbstractRedisClient) nativeClient).shutdown();
    }
}
