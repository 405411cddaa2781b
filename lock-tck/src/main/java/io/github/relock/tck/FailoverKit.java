package io.github.relock.tck;

import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Nested;

/**
 * The failover chapter ({@link FailoverChapter}) on a Redis Cluster and under Sentinel, for one
 * driver. Each deployment is started once per test JVM, apart from the kit's shared ones (the
 * chapter breaks it, then heals it), and stopped when the JVM exits.
 *
 * <pre>{@code
 * class MyDriverFailoverTest extends FailoverKit {
 *     protected RedisDriverProvider provider() { return new MyDriverProvider(); }
 *     protected Object newNativeClient(RedisServer server) { return new MyClient(server.uri()); }
 *     protected Object newNativeClient(RedisTopology t) { ... a cluster or Sentinel client ... }
 *     protected void closeNativeClient(Object client) { ((MyClient) client).close(); }
 * }
 * }</pre>
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class FailoverKit extends DriverKit {
    private static final ReentrantLock START = new ReentrantLock();
    private static RedisCluster cluster; // guarded by START
    private static RedisSentinelGroup sentinel; // guarded by START

    /** Creates the kit (JUnit does this). */
    protected FailoverKit() {
    }

    static RedisCluster cluster() {
        START.lock();
        try {
            if (cluster == null) {
                RedisCluster c = RedisCluster.start();
                Runtime.getRuntime().addShutdownHook(new Thread(c::close, "relock-redis-failover-cluster-stop"));
                cluster = c;
            }
            return cluster;
        } finally {
            START.unlock();
        }
    }

    static RedisSentinelGroup sentinel() {
        START.lock();
        try {
            if (sentinel == null) {
                RedisSentinelGroup g = RedisSentinelGroup.start();
                Runtime.getRuntime().addShutdownHook(new Thread(g::close, "relock-redis-failover-sentinel-stop"));
                sentinel = g;
            }
            return sentinel;
        } finally {
            START.unlock();
        }
    }

    /** Chapter 16 on a 3-master, 3-replica cluster: kill -9 of a master, and CLUSTER FAILOVER. */
    @Nested
    class OnCluster extends FailoverChapter {
        OnCluster() {
            super(FailoverKit.this);
        }

        @Override
        protected RedisTopology deployment() {
            return cluster();
        }
    }

    /** Chapter 16 under Sentinel (1 primary, 2 replicas, 3 Sentinels): kill -9 of the primary, and SENTINEL FAILOVER. */
    @Nested
    class OnSentinel extends FailoverChapter {
        OnSentinel() {
            super(FailoverKit.this);
        }

        @Override
        protected RedisTopology deployment() {
            return sentinel();
        }
    }
}
