package io.github.relock.driver.lettuce;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;

/** The Lettuce client an application would make for each kit topology. */
final class LettuceTopologies {
    private LettuceTopologies() {
    }

    static AbstractRedisClient client(RedisTopology topology) {
        if (topology instanceof RedisCluster cluster) {
            List<RedisURI> seeds = cluster.uris().stream().map(u -> RedisURI.create(u.toString())).toList();
            RedisClusterClient c = RedisClusterClient.create(seeds);
            // What Lettuce's documentation recommends for failover: follow MOVED and lost nodes at once.
            c.setOptions(ClusterClientOptions.builder().topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                    .enableAllAdaptiveRefreshTriggers().adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                    .enablePeriodicRefresh(Duration.ofSeconds(5)).build()).build());
            return c;
        }
        if (topology instanceof RedisSentinelGroup group) {
            RedisURI.Builder b = null;
            for (RedisServer s : group.sentinels()) {
                b = b == null ? RedisURI.Builder.sentinel(s.host(), s.port(), RedisSentinelGroup.MASTER_NAME)
                        : b.withSentinel(s.host(), s.port());
            }
            return RedisClient.create(b.build());
        }
        return RedisClient.create(((RedisServer) topology).uri().toString());
    }
}
