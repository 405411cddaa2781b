package io.github.relock.tck.redisson;

import io.github.relock.tck.DriverKit;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.spi.Capability;
import org.junit.jupiter.api.Assumptions;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
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
        connectAndGet(config, topology);
    }

    /**
     * Skips the rule where relock's waiters cannot hear a Redisson unlock: on a cluster Redisson 4
     * publishes its unlocks with {@code SPUBLISH} (since 3.22, spec 3.4), which a relock waiter hears
     * only through a driver that declares {@link Capability#SHARDED_PUBSUB}. Without it the waiter
     * sleeps until the lock's TTL, which the rules that time a wake-up by a Redisson unlock refuse.
     */
    static void assumeRelockHearsRedissonUnlocks(DriverKit kit) {
        Assumptions.assumeFalse(relockDeafToRedissonUnlocks(kit), "the driver does not declare SHARDED_PUBSUB, so on a"
                + " cluster its waiters cannot hear Redisson 4's sharded unlock messages (they wait out the TTL)");
    }

    /**
     * @return whether relock's waiters on this kit cannot hear a Redisson unlock (see
     *     {@link #assumeRelockHearsRedissonUnlocks}): they retry only when the TTL they saw runs out
     */
    static boolean relockDeafToRedissonUnlocks(DriverKit kit) {
        return kit.topology().kind() == RedisTopology.Kind.CLUSTER && redissonPublishesShardedOnCluster()
                && !kit.newExecutor().capabilities().contains(Capability.SHARDED_PUBSUB);
    }

    /**
     * @return whether the Redisson on the class path publishes its unlocks sharded on a cluster:
     *     its cluster config has had a sharded-subscription setting since 3.29, which tells the
     *     versions the kit runs (3.17.7 and 4.x) apart
     */
    static boolean redissonPublishesShardedOnCluster() {
        return java.util.Arrays.stream(ClusterServersConfig.class.getMethods())
                .anyMatch(m -> m.getName().equals("getShardedSubscriptionMode"));
    }

    /**
     * @param kit the kit whose topology the client connects to; it shuts the client down after the test
     * @param watchdog Redisson's lockWatchdogTimeout
     * @return a Redisson client
     */
    static RedissonClient clientFor(DriverKit kit, java.time.Duration watchdog) {
        Config config = new Config();
        config.setLockWatchdogTimeout(watchdog.toMillis());
        connect(config, kit.topology());
        RedissonClient client = Redisson.create(config);
        kit.closeAfterTest(() -> client.shutdown(0, 5, java.util.concurrent.TimeUnit.SECONDS));
        return client;
    }

    /**
     * Sets a Redisson name mapper that puts {@code prefix} before every name (and removes it in
     * {@code unmap}). The interface is {@code org.redisson.api.NameMapper} in 3.x and
     * {@code org.redisson.config.NameMapper} in 4.x, so it is found and implemented by reflection.
     */
    static void connectWithPrefix(Config config, RedisTopology topology, String prefix) {
        Object servers = connectAndGet(config, topology);
        java.lang.reflect.Method setter = java.util.Arrays.stream(servers.getClass().getMethods())
                .filter(m -> m.getName().equals("setNameMapper") && m.getParameterCount() == 1).findFirst()
                .orElseThrow(() -> new IllegalStateException("this Redisson has no setNameMapper"));
        Class<?> type = setter.getParameterTypes()[0];
        Object mapper = java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> switch (method.getName()) {
                    case "map" -> prefix + args[0];
                    case "unmap" -> ((String) args[0]).startsWith(prefix)
                            ? ((String) args[0]).substring(prefix.length()) : args[0];
                    case "toString" -> "prefix " + prefix;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.toString());
                });
        try {
            setter.invoke(servers, mapper);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not set Redisson's name mapper", e);
        }
    }

    /** @return the servers config it made (single, cluster or sentinel) */
    private static Object connectAndGet(Config config, RedisTopology topology) {
        if (topology instanceof RedisCluster cluster) {
            ClusterServersConfig cc = config.useClusterServers();
            cluster.uris().forEach(u -> cc.addNodeAddress(u.toString()));
            cc.setMasterConnectionMinimumIdleSize(2);
            cc.setMasterConnectionPoolSize(8);
            cc.setSlaveConnectionMinimumIdleSize(1);
            cc.setSlaveConnectionPoolSize(2);
            cc.setSubscriptionConnectionMinimumIdleSize(1);
            cc.setSubscriptionConnectionPoolSize(4);
            return cc;
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
            return sc;
        } else {
            RedisServer server = (RedisServer) topology;
            return config.useSingleServer().setAddress("redis://" + server.host() + ":" + server.port())
                    .setConnectionMinimumIdleSize(2).setConnectionPoolSize(8)
                    .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(4);
        }
    }
}
