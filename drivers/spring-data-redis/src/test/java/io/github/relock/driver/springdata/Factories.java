package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.Closing;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import java.time.Duration;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Builds and disposes the application-side factories the tests hand to the driver. */
final class Factories {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private Factories() {
    }

    /**
     * @return a started {@link LettuceConnectionFactory} on the server: Spring's defaults but the
     *     command timeout, 5 s as an application would set it (with Spring's 60 s the RedLock rule
     *     that stops a server waits a minute)
     */
    static LettuceConnectionFactory lettuce(RedisServer server) {
        LettuceConnectionFactory f = new LettuceConnectionFactory(standalone(server),
                LettuceClientConfiguration.builder().commandTimeout(TIMEOUT).build());
        f.afterPropertiesSet();
        return f;
    }

    /**
     * @return a started {@link LettuceConnectionFactory} for a kit topology: standalone, Sentinel
     *     ({@link RedisSentinelConfiguration} on the group's Sentinels) or cluster
     *     ({@link RedisClusterConfiguration} on every node, with the topology refresh Lettuce
     *     recommends for failover)
     */
    static LettuceConnectionFactory lettuce(RedisTopology topology) {
        if (topology instanceof RedisServer server) {
            return lettuce(server);
        }
        LettuceClientConfiguration.LettuceClientConfigurationBuilder b = LettuceClientConfiguration.builder();
        if (topology instanceof RedisCluster) {
            b.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                    .enableAllAdaptiveRefreshTriggers().adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                    .enablePeriodicRefresh(Duration.ofSeconds(5)).build()).build());
        }
        LettuceConnectionFactory f = new LettuceConnectionFactory(configuration(topology), b.build());
        f.afterPropertiesSet();
        f.start();
        return f;
    }

    /** @return a started, pooled {@link JedisConnectionFactory} on the server (Spring's defaults) */
    static JedisConnectionFactory jedis(RedisServer server) {
        return jedis((RedisTopology) server);
    }

    /** @return a started, pooled {@link JedisConnectionFactory} for a kit topology (see {@link #lettuce(RedisTopology)}) */
    static JedisConnectionFactory jedis(RedisTopology topology) {
        // timeouts as an application would set them (with Spring's 60 s the stopped-server chapters
        // wait a minute each)
        JedisClientConfiguration cfg = JedisClientConfiguration.builder()
                .connectTimeout(CONNECT_TIMEOUT).readTimeout(TIMEOUT).usePooling().build();
        RedisConfiguration where = configuration(topology);
        JedisConnectionFactory f;
        if (where instanceof RedisClusterConfiguration cluster) {
            f = new JedisConnectionFactory(cluster, cfg);
        } else if (where instanceof RedisSentinelConfiguration sentinel) {
            f = new JedisConnectionFactory(sentinel, cfg);
        } else {
            f = new JedisConnectionFactory((RedisStandaloneConfiguration) where, cfg);
        }
        f.afterPropertiesSet();
        f.start();
        return f;
    }

    /**
     * @return {@link #jedis(RedisTopology)} or {@link #lettuce(RedisTopology)} logging in as an ACL
     *     user; null for a Sentinel deployment (the kits do not log in there)
     */
    static Object loggedIn(boolean jedis, RedisTopology topology, String user, String password) {
        if (topology instanceof RedisSentinelGroup) {
            return null;
        }
        RedisConfiguration where = configuration(topology);
        ((RedisConfiguration.WithAuthentication) where).setUsername(user);
        ((RedisConfiguration.WithAuthentication) where).setPassword(RedisPassword.of(password));
        if (!jedis) {
            LettuceConnectionFactory f = where instanceof RedisClusterConfiguration c
                    ? new LettuceConnectionFactory(c, LettuceClientConfiguration.builder().commandTimeout(TIMEOUT).build())
                    : new LettuceConnectionFactory((RedisStandaloneConfiguration) where,
                            LettuceClientConfiguration.builder().commandTimeout(TIMEOUT).build());
            f.afterPropertiesSet();
            f.start();
            return f;
        }
        JedisClientConfiguration cfg = JedisClientConfiguration.builder()
                .connectTimeout(CONNECT_TIMEOUT).readTimeout(TIMEOUT).usePooling().build();
        JedisConnectionFactory f = where instanceof RedisClusterConfiguration c ? new JedisConnectionFactory(c, cfg)
                : new JedisConnectionFactory((RedisStandaloneConfiguration) where, cfg);
        f.afterPropertiesSet();
        f.start();
        return f;
    }

    /**
     * Takes every free connection of a {@link JedisConnectionFactory}'s pool, as an application's
     * threads would, without waiting: its {@code RedisClient}'s pool, its {@code RedisClusterClient}'s
     * pool for the key's master, or a classic pool (the factory's private {@code pool} field: Spring
     * lends its connections one at a time and would wait for the last).
     *
     * @param topology where the factory connects (on a cluster, to find the key's master)
     * @return gives them back when closed; null for any other factory
     */
    static AutoCloseable exhaust(Object factory, String key, RedisTopology topology) {
        if (!(factory instanceof JedisConnectionFactory f)) {
            return null;
        }
        Object client;
        try (org.springframework.data.redis.connection.RedisConnection c = f.getConnection()) {
            client = c.getNativeConnection();
        }
        if (client instanceof redis.clients.jedis.RedisClient single) {
            return borrowAll(single.getPool());
        }
        if (client instanceof redis.clients.jedis.RedisClusterClient cluster) {
            int port = ((RedisCluster) topology).masterFor(key).port();
            return cluster.getClusterNodes().entrySet().stream().filter(e -> e.getKey().endsWith(":" + port))
                    .findFirst().map(e -> borrowAll(e.getValue())).orElse(null);
        }
        Object pool = new org.springframework.beans.DirectFieldAccessor(f).getPropertyValue("pool");
        return pool instanceof redis.clients.jedis.util.Pool<?> p ? borrowAll(p) : null;
    }

    private static <T> AutoCloseable borrowAll(redis.clients.jedis.util.Pool<T> pool) {
        java.util.List<T> held = new java.util.ArrayList<>();
        try {
            while (pool.getNumActive() < pool.getMaxTotal()) {
                held.add(pool.borrowObject(Duration.ofMillis(200)));
            }
        } catch (java.util.NoSuchElementException exhausted) {
            // another borrower took the last one meanwhile: exhausted all the same
        } catch (Exception e) {
            held.forEach(pool::returnObject);
            throw new IllegalStateException("could not borrow from " + pool, e);
        }
        return () -> held.forEach(pool::returnObject);
    }

    /**
     * Stops a factory and starts it again, as a context restart, a Spring Cloud refresh or a CRaC
     * checkpoint does ({@code SmartLifecycle.stop()}, then {@code start()}): a
     * {@code LettuceConnectionFactory} shuts its Lettuce client down and builds a new one, a
     * {@code JedisConnectionFactory} closes its pool and opens a new one.
     */
    static void restart(Object factory) {
        org.springframework.context.SmartLifecycle f = (org.springframework.context.SmartLifecycle) factory;
        f.stop();
        f.start();
    }

    /** Stops a factory the way the application context would. */
    static void dispose(Object factory) {
        // bounded: a LettuceConnectionFactory's Lettuce shutdown may never end on a cluster (Closing)
        Closing.within(String.valueOf(factory), () -> {
            try {
                ((DisposableBean) factory).destroy();
            } catch (Exception e) {
                throw new IllegalStateException("could not dispose " + factory, e);
            }
        });
    }

    private static RedisStandaloneConfiguration standalone(RedisServer server) {
        return new RedisStandaloneConfiguration(server.host(), server.port());
    }

    /** @return how an application would describe the topology to Spring */
    private static RedisConfiguration configuration(RedisTopology topology) {
        if (topology instanceof RedisCluster cluster) {
            RedisClusterConfiguration c = new RedisClusterConfiguration();
            cluster.uris().forEach(u -> c.clusterNode(u.getHost(), u.getPort()));
            return c;
        }
        if (topology instanceof RedisSentinelGroup group) {
            RedisSentinelConfiguration c = new RedisSentinelConfiguration().master(RedisSentinelGroup.MASTER_NAME);
            group.sentinels().forEach(s -> c.sentinel(s.host(), s.port()));
            return c;
        }
        return standalone((RedisServer) topology);
    }
}
