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

    /**
     * @return the client {@link #client} makes for one server or a cluster, logged in as an ACL
     *     user; null for a Sentinel deployment (the kits do not log in there)
     */
    static AbstractRedisClient clientAs(RedisTopology topology, String user, String password) {
        if (topology instanceof RedisCluster cluster) {
            return RedisClusterClient.create(cluster.uris().stream().map(u -> RedisURI.builder()
                    .withHost(u.getHost()).withPort(u.getPort()).withAuthentication(user, password).build()).toList());
        }
        if (topology instanceof RedisServer server) {
            return RedisClient.create(RedisURI.builder().withHost(server.host()).withPort(server.port())
                    .withAuthentication(user, password).build());
        }
        return null;
    }
}
