package io.github.relock.driver.springdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The default build's check of the Sentinel and cluster factories (the whole kit on them runs in
 * the {@code spring-data-kit} profile): on each, with each backing client, a lock lands where the
 * topology keeps its key, and a waiter is woken by the holder's unlock. The holder locks with the
 * watchdog (its lock never expires while held), so only the unlock message can hand it over within
 * the waiter's 10 s.
 */
class SpringDataTopologiesTest {
    private static final DriverOptions OPTIONS = new DriverOptions(Duration.ofSeconds(5), "relock:sdr-topology");

    @Test
    void sentinelFactory_lettuce_locksOnPrimary_wakesWaiter() throws Exception {
        lockAndHandOver(RedisSentinelGroup.shared(), Factories::lettuce, Set.of());
    }

    @Test
    void sentinelFactory_jedis_locksOnPrimary_wakesWaiter() throws Exception {
        lockAndHandOver(RedisSentinelGroup.shared(), Factories::jedis, Set.of());
    }

    @Test
    void clusterFactory_lettuce_routesByKeySlot_declaresClusterAndSharded_wakesWaiter() throws Exception {
        lockAndHandOver(RedisCluster.shared(), Factories::lettuce, Set.of(Capability.CLUSTER, Capability.SHARDED_PUBSUB));
    }

    @Test
    void clusterFactory_jedis_routesByKeySlot_declaresCluster_wakesWaiter() throws Exception {
        lockAndHandOver(RedisCluster.shared(), Factories::jedis, Set.of(Capability.CLUSTER));
    }

    private static void lockAndHandOver(RedisTopology topology, Function<RedisTopology, RedisConnectionFactory> make,
                                        Set<Capability> expected) throws Exception {
        RedisConnectionFactory holderFactory = make.apply(topology);
        RedisConnectionFactory waiterFactory = make.apply(topology);
        String name = "sdr:topology:" + topology.kind() + ":" + holderFactory.getClass().getSimpleName();
        try (CommandExecutor e = new SpringDataDriverProvider().create(holderFactory, OPTIONS);
             LockClient holder = RedisLocks.create(holderFactory);
             LockClient waiter = RedisLocks.create(waiterFactory)) {
            assertEquals(expected, e.capabilities());
            DistributedLock held = holder.getLock(name);
            held.lock();
            assertEquals(1L, topology.call("EXISTS", name), "the lock's hash is where the topology keeps " + name);
            CompletableFuture<Boolean> got = CompletableFuture.supplyAsync(() -> {
                DistributedLock l = waiter.getLock(name);
                try {
                    boolean ok = l.tryLock(10, TimeUnit.SECONDS);
                    if (ok) {
                        l.unlock();
                    }
                    return ok;
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
            // the waiter subscribes after its first failed attempt: wait for its channel
            String channel = "redisson_lock__channel:{" + name + "}";
            Await.until(Duration.ofSeconds(10),
                    () -> ((List<?>) topology.call("PUBSUB", "CHANNELS", channel)).size() > 0,
                    () -> "the waiter never subscribed " + channel);
            held.unlock();
            assertTrue(got.get(20, TimeUnit.SECONDS), "the waiter was not woken by the unlock within 10 s");
            assertEquals(0L, topology.call("EXISTS", name));
        } finally {
            Factories.dispose(waiterFactory);
            Factories.dispose(holderFactory);
        }
    }
}
