package io.github.relock.interop;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;

/** {@link Redisson3LettuceInteropTest} on a 3-master, 3-replica cluster. */
class Redisson3LettuceClusterInteropTest extends Redisson3LettuceInteropTest {

    @Override
    public RedisTopology topology() {
        return RedisCluster.shared();
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        RedisClusterClient c = RedisClusterClient.create(((RedisCluster) topology).uris().stream()
                .map(u -> RedisURI.create(u.toString())).toList());
        c.setOptions(ClusterClientOptions.builder().topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers().build()).build());
        return c;
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((AbstractRedisClient) nativeClient).shutdown();
    }
}
