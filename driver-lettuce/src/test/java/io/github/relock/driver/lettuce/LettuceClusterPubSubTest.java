package io.github.relock.driver.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisServer;
import io.lettuce.core.AbstractRedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sharded pub/sub of the Lettuce driver on a real 3-master, 3-replica cluster: SSUBSCRIBE reaches
 * the slot's master over one pub/sub connection per node, survives a failover of that master, and
 * leaves nothing subscribed. The cluster is this class's own (a rule fails a master over).
 */
class LettuceClusterPubSubTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static long shardChannels() {
        return ((List<?>) cluster.call("PUBSUB", "SHARDCHANNELS")).size();
    }

    @Test
    void clusterClient_declaresShardedPubSub_spublishReachesListener_unsubscribeLeavesNothing() throws Exception {
        AbstractRedisClient client = LettuceTopologies.client(cluster);
        try (CommandExecutor ex = new LettuceDriverProvider().create(client, new DriverOptions(Duration.ofSeconds(5), "t"))) {
            assertTrue(ex.capabilities().contains(Capability.SHARDED_PUBSUB), ex.capabilities().toString());
            assertNotNull(ex.nodeOfSlot(RedisCluster.slot("x")), "a Redis 7 cluster's slots have known nodes");
            Map<String, String> got = new ConcurrentHashMap<>();
            List<Subscription> subs = new ArrayList<>();
            List<String> channels = List.of("tck:sh:{a}", "tck:sh:{b}", "tck:sh:{c}", "tck:sh:{d}", "tck:sh:{e}");
            for (String ch : channels) {
                subs.add(ex.subscribe(ch, true, got::put).get(10, TimeUnit.SECONDS));
            }
            assertTrue(channels.stream().map(ch -> cluster.masterFor(ch).port()).distinct().count() > 1,
                    "the channels should spread over masters");
            for (String ch : channels) {
                assertEquals(1L, cluster.masterFor(ch).call("SPUBLISH", ch, "m-" + ch), "subscribers of " + ch);
            }
            Await.until(DEADLINE, () -> got.size() == channels.size(), () -> "received only " + got);
            for (RedisServer n : cluster.dataNodes()) {
                String list = (String) n.call("CLIENT", "LIST");
                long pubsub = list.lines().filter(l -> l.contains(" ssub=") && !l.contains(" ssub=0 ")).count();
                assertTrue(pubsub <= 1, "more than one sharded pub/sub connection on node " + n.port() + ":\n" + list);
            }
            for (Subscription s : subs) {
                s.unsubscribe().get(10, TimeUnit.SECONDS);
            }
            Await.until(DEADLINE, () -> shardChannels() == 0, () -> "still subscribed: " + cluster.call("PUBSUB", "SHARDCHANNELS"));
        } finally {
            client.shutdown();
        }
    }

    @Test
    void failoverOfTheChannelsMaster_resubscribesOnTheNewMaster_andCallsOnReconnect() throws Exception {
        AbstractRedisClient client = LettuceTopologies.client(cluster);
        try (CommandExecutor ex = new LettuceDriverProvider().create(client, new DriverOptions(Duration.ofSeconds(5), "t"))) {
            AtomicInteger reconnects = new AtomicInteger();
            ex.setConnectionListener(reconnects::incrementAndGet);
            String ch = "tck:sh-fo:{x}";
            Map<String, String> got = new ConcurrentHashMap<>();
            Subscription sub = ex.subscribe(ch, true, got::put).get(10, TimeUnit.SECONDS);
            RedisServer master = cluster.masterFor(ch);
            cluster.failover(cluster.replicasOf(master).get(0));
            Await.until(DEADLINE, () -> {
                cluster.masterFor(ch).call("SPUBLISH", ch, "after");
                return "after".equals(got.get(ch));
            }, () -> "no message on " + ch + " after its master failed over");
            Await.until(DEADLINE, () -> reconnects.get() > 0, () -> "onReconnect was never called");
            sub.unsubscribe().get(10, TimeUnit.SECONDS);
            Await.until(DEADLINE, () -> shardChannels() == 0, () -> "still subscribed: " + cluster.call("PUBSUB", "SHARDCHANNELS"));
        } finally {
            client.shutdown();
        }
    }
}
