package io.github.relock.interop;

import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.redisson.MixedFleetClusterKit;
import io.lettuce.core.RedisURI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/** The mixed fleet on a cluster: relock on Jedis and on Lettuce beside Redisson 3.17.7 (4.7.0 in examples). */
class Redisson3MixedFleetClusterTest extends MixedFleetClusterKit {
    private RedisClusterClient jedis;
    private io.lettuce.core.cluster.RedisClusterClient lettuce;

    @Override
    protected Map<String, LockClient> relockClients(RedisCluster cluster) {
        jedis = RedisClusterClient.create(cluster.uris().stream().map(u -> new HostAndPort(u.getHost(), u.getPort()))
                .collect(Collectors.toSet()));
        lettuce = io.lettuce.core.cluster.RedisClusterClient.create(cluster.uris().stream()
                .map(u -> RedisURI.create(u.toString())).toList());
        Map<String, LockClient> m = new LinkedHashMap<>();
        m.put("relock-jedis", RedisLocks.create(jedis));
        m.put("relock-lettuce", RedisLocks.create(lettuce));
        return m;
    }

    @Override
    protected void closeClients() {
        jedis.close();
        lettuce.shutdown();
    }
}
