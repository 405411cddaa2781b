package io.github.relock.tck;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Nested;

/**
 * The failover chapter ({@link FailoverChapter}) on a Redis Cluster and under Sentinel, for one
 * driver. The cluster is started once per test JVM, apart from the kit's shared one (the chapter
 * breaks it, then heals it), and stopped when the JVM exits; a Sentinel group is started per rule.
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

    /** Creates the kit (JUnit does this). */
    protected FailoverKit() {
    }

    /**
     * A rule this driver is known to fail, with why: the rule is skipped with that reason (shown in
     * the test report) instead of failing the build. Every entry is a defect to fix; the default
     * has none.
     *
     * @param rule the rule number, e.g. {@code "16.2"}
     * @param topology where it runs
     * @return the reason, or null to run the rule
     */
    protected String knownIssue(String rule, RedisTopology.Kind topology) {
        return null;
    }

    /**
     * Where a rule runs instead of here, for a build that runs this chapter with two drivers and
     * shares it out between them so that each rule still runs on each topology once: the rule is
     * skipped here with that answer in its reason. {@value RuleSlice#ALL_RULES} ({@code -Pfull})
     * runs every rule here anyway. The default runs every rule here.
     *
     * @param rule the rule number, e.g. {@code "16.3"}
     * @param topology where it would run
     * @return where it runs instead (a class of the same build), or null to run it here
     */
    protected String elsewhere(String rule, RedisTopology.Kind topology) {
        return null;
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

    /**
     * Chapter 16 under Sentinel (1 primary, 2 replicas, 3 Sentinels): kill -9 of the primary, and
     * SENTINEL FAILOVER. A fresh group per rule (a few seconds): a primary killed and restarted
     * without persistence comes back empty, and Sentinels that saw it go may hand it a role for a
     * while after the rule healed the group, so no rule inherits another's history.
     */
    @Nested
    class OnSentinel extends FailoverChapter {
        private RedisSentinelGroup group;

        OnSentinel() {
            super(FailoverKit.this);
        }

        @Override
        protected RedisTopology.Kind kind() {
            return RedisTopology.Kind.SENTINEL;
        }

        @Override
        protected RedisTopology deployment() {
            if (group == null) {
                group = closeAfterTest(RedisSentinelGroup.start());
            }
            return group;
        }
    }
}
