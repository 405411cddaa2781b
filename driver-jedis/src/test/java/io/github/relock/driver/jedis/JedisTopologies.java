package io.github.relock.driver.jedis;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.commons.pool2.impl.GenericObjectPool;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisSentinelPool;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/** The Jedis client an application would make for each kit topology. */
final class JedisTopologies {
    private JedisTopologies() {
    }

    /**
     * @param topology one server, a cluster or a Sentinel deployment
     * @return the client of Jedis 7+ for it: a {@code RedisClient}, {@code RedisClusterClient} or
     *     {@code RedisSentinelClient} (made in {@link Jedis7}, so that Jedis 6 loads this class)
     */
    static UnifiedJedis client(RedisTopology topology) {
        return Jedis7.client(topology);
    }

    /**
     * @param topology one server, a cluster or a Sentinel deployment
     * @return Jedis' classic client for it, API every Jedis from 6.0 to 8.x has: a {@link JedisPool}
     *     (what Spring Data Redis' {@code JedisConnectionFactory} holds: every call borrows a
     *     {@code Jedis}), a {@link JedisCluster}, or a {@link JedisSentinelPool}
     */
    static Object classic(RedisTopology topology) {
        if (topology instanceof RedisCluster cluster) {
            Set<HostAndPort> seeds = cluster.uris().stream().map(u -> new HostAndPort(u.getHost(), u.getPort()))
                    .collect(Collectors.toSet());
            return new JedisCluster(seeds);
        }
        if (topology instanceof RedisSentinelGroup group) {
            Set<String> sentinels = group.sentinels().stream().map(s -> s.host() + ":" + s.port())
                    .collect(Collectors.toSet());
            return new JedisSentinelPool(RedisSentinelGroup.MASTER_NAME, sentinels);
        }
        RedisServer server = (RedisServer) topology;
        return new JedisPool(server.host(), server.port());
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

    /**
     * @param topology one server or a cluster
     * @param user an ACL user
     * @param password its password
     * @return the client {@link #client}/{@link #pooled} makes, logged in as {@code user}; null for
     *     a Sentinel deployment (the kits do not log in there)
     */
    static UnifiedJedis clientAs(RedisTopology topology, String user, String password) {
        JedisClientConfig config = DefaultJedisClientConfig.builder().user(user).password(password).build();
        if (topology instanceof RedisCluster cluster) {
            Set<HostAndPort> seeds = cluster.uris().stream().map(u -> new HostAndPort(u.getHost(), u.getPort()))
                    .collect(Collectors.toSet());
            return Jedis7.clusterClient(seeds, config);
        }
        if (topology instanceof RedisServer server) {
            return JedisVersions.openPooled(new HostAndPort(server.host(), server.port()), config);
        }
        return null;
    }

    /**
     * Names Jedis 7's clients and builder API: loaded only when a kit makes one of them, so the
     * jedis-6.0 profile, which runs the kits on one server and the classic clients, never verifies
     * it (the verifier of a class that returns a {@code RedisClusterClient} as a
     * {@code UnifiedJedis} loads {@code RedisClusterClient}, which Jedis 6 lacks).
     */
    private static final class Jedis7 {
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

        static UnifiedJedis clusterClient(Set<HostAndPort> seeds, JedisClientConfig config) {
            return RedisClusterClient.builder().nodes(seeds).clientConfig(config).build();
        }
    }

    /**
     * Takes every free connection of the pool that serves {@code key} in {@code client}, as an
     * application's threads would, without waiting for one: a {@code UnifiedJedis}'s pool (on a
     * cluster, the pool of the key's master) or a classic {@code JedisPool}/{@code JedisSentinelPool}.
     *
     * @return gives them back when closed; null when the client has no pool to exhaust
     */
    static AutoCloseable exhaust(Object client, String key) {
        if (client instanceof UnifiedJedis u) {
            if (JedisVersions.isCluster(u)) {
                java.util.function.IntFunction<HostAndPort> slotNode = JedisVersions.slotNode(u);
                HostAndPort node = slotNode == null ? null : slotNode.apply(JedisClusterCRC16.getSlot(key));
                ConnectionPool pool = node == null ? null : JedisVersions.clusterNodes(u).get().get(node.toString());
                return pool == null ? null : borrowAll(pool); // a Jedis whose slot cache the driver cannot read
            }
            return JedisVersions.provider(u) instanceof PooledConnectionProvider p ? borrowAll(p.getPool()) : null;
        }
        if (client instanceof GenericObjectPool<?> pool) {
            return borrowAll(pool);
        }
        return null;
    }

    private static <T> AutoCloseable borrowAll(GenericObjectPool<T> pool) {
        List<T> held = new ArrayList<>();
        try {
            while (pool.getNumActive() < pool.getMaxTotal()) {
                held.add(pool.borrowObject(200));
            }
        } catch (NoSuchElementException exhausted) {
            // another borrower took the last one meanwhile: it is exhausted all the same
        } catch (Exception e) {
            held.forEach(pool::returnObject);
            throw new IllegalStateException("could not borrow from " + pool, e);
        }
        return () -> held.forEach(pool::returnObject);
    }
}
