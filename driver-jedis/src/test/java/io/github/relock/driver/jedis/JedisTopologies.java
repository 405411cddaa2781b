package io.github.relock.driver.jedis;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/** The Jedis client an application would make for each kit topology. */
final class JedisTopologies {
    private JedisTopologies() {
    }

    static UnifiedJedis client(RedisTopology topology) {
        if (topology instanceof RedisCluster cluster) {
            Set<HostAndPort> seeds = cluster.uris().stream().map(u -> new HostAndPort(u.getHost(), u.getPort()))
                    .collect(Collectors.toSet());
            return RedisClusterClient.create(seeds);
        }
        if (topology instanceof RedisSentinelGroup group) {
            Set<HostAndPort> sentinels = group.sentinels().stream().map(s -> new HostAndPort(s.host(), s.port()))
                    .collect(Collectors.toSet());
            return RedisSentinelClient.builder().masterName(RedisSentinelGroup.MASTER_NAME).sentinels(sentinels).build();
        }
        return RedisClient.create(((RedisServer) topology).uri());
    }

    /**
     * @param server one server
     * @return the pooled single-node client of the Jedis on the class path: a {@code RedisClient}
     *     on Jedis 7+, a {@code JedisPooled} on Jedis 6 (made the way the driver's own
     *     {@code connect} makes it), so the {@code jedis-*} profiles can run the kits using it
     */
    static UnifiedJedis pooled(RedisServer server) {
        return JedisVersions.openPooled(new HostAndPort(server.host(), server.port()),
                DefaultJedisClientConfig.builder().build());
    }

    /** Closes any Jedis client or pool (all are {@link AutoCloseable}). */
    static void close(Object nativeClient) {
        try {
            ((AutoCloseable) nativeClient).close();
        } catch (Exception e) {
            throw new IllegalStateException("closing " + nativeClient + " failed", e);
        }
    }
}
