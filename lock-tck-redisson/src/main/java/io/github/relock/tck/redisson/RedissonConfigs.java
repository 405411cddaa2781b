package io.github.relock.tck.redisson;

import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RedisTopology;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;

/**
 * Points a Redisson {@link Config} at a kit topology, with small pools (the kit makes many
 * clients). Only calls that exist with the same signatures in Redisson 3.17.7 and 4.x, so the
 * chapter runs against both.
 *
 * <p>Thread-safety: stateless.
 */
final class RedissonConfigs {
    private RedissonConfigs() {
    }

    static void connect(Config config, RedisTopology topology) {
        if (topology instanceof RedisCluster cluster) {
            ClusterServersConfig cc = config.useClusterServers();
            cluster.uris().forEach(u -> cc.addNodeAddress(u.toString()));
            cc.setMasterConnectionMinimumIdleSize(2);
            cc.setMasterConnectionPoolSize(8);
            cc.setSlaveConnectionMinimumIdleSize(1);
            cc.setSlaveConnectionPoolSize(2);
            cc.setSubscriptionConnectionMinimumIdleSize(1);
            cc.setSubscriptionConnectionPoolSize(4);
        } else if (topology instanceof RedisSentinelGroup group) {
            SentinelServersConfig sc = config.useSentinelServers();
            sc.setMasterName(RedisSentinelGroup.MASTER_NAME);
            group.sentinels().forEach(s -> sc.addSentinelAddress("redis://" + s.host() + ":" + s.port()));
            sc.setMasterConnectionMinimumIdleSize(2);
            sc.setMasterConnectionPoolSize(8);
            sc.setSlaveConnectionMinimumIdleSize(1);
            sc.setSlaveConnectionPoolSize(2);
            sc.setSubscriptionConnectionMinimumIdleSize(1);
            sc.setSubscriptionConnectionPoolSize(4);
        } else {
            RedisServer server = (RedisServer) topology;
            config.useSingleServer().setAddress("redis://" + server.host() + ":" + server.port())
                    .setConnectionMinimumIdleSize(2).setConnectionPoolSize(8)
                    .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(4);
        }
    }
}
