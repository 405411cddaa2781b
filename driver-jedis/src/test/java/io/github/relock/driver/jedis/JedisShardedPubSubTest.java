package io.github.relock.driver.jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.RedisErrorException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.RelockTck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/**
 * Sharded pub/sub ({@code SSUBSCRIBE}) of the Jedis driver on a real Redis 7 cluster of the
 * class's own (3 masters, 3 replicas), including a failover of a channel's master.
 */
class JedisShardedPubSubTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final DriverOptions OPTIONS = new DriverOptions(Duration.ofSeconds(2), "relock:sharded-test");
    private static RedisCluster cluster;
    private static RedisClusterClient client;

    @BeforeAll
    static void startCluster() {
        assumeTrue(RedisFixture.canControlServers(), "REDIS_URL is set: these tests start a cluster of their own");
        cluster = RedisCluster.start();
        Set<HostAndPort> seeds = cluster.uris().stream().map(u -> new HostAndPort(u.getHost(), u.getPort()))
                .collect(Collectors.toSet());
        client = RedisClusterClient.builder().nodes(seeds)
                .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(2000).build()).build();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void noShardedChannelAndNoThreadLeft() {
        Await.until(DEADLINE, () -> RelockTck.relockThreads().stream().noneMatch(t -> t.startsWith("relock-jedis")),
                () -> "relock-jedis threads left after close: " + RelockTck.relockThreads());
        Await.until(DEADLINE, () -> shardChannels().isEmpty(), () -> "sharded channels left: " + shardChannels());
    }

    @Test
    void clusterClient_declaresShardedPubSub_andSpublishReachesTheListener() throws Exception {
        try (CommandExecutor ex = new JedisDriverProvider().create(client, OPTIONS)) {
            assertTrue(ex.capabilities().contains(Capability.CLUSTER));
            assertTrue(ex.capabilities().contains(Capability.SHARDED_PUBSUB), "Redis 7 cluster: " + ex.capabilities());
            LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
            String ch = "relock:sharded:{reach}";
            Subscription sub = get(ex.subscribe(ch, true, (c, m) -> got.add(c + "=" + m)));
            assertEquals(1L, cluster.masterFor(ch).call("SPUBLISH", ch, "hello"));
            assertEquals(ch + "=hello", got.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            get(sub.unsubscribe());
        }
    }

    @Test
    void hundredChannelsOnThreeMasters_useOneShardedConnectionPerMaster() throws Exception {
        try (CommandExecutor ex = new JedisDriverProvider().create(client, OPTIONS)) {
            List<String> channels = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                channels.add("relock:sharded:{spread-" + i + "}");
            }
            Map<Integer, Long> perMaster = new HashMap<>();
            for (String ch : channels) {
                perMaster.merge(cluster.masterFor(ch).port(), 1L, Long::sum);
            }
            assertEquals(3, perMaster.size(), "the channels must span all 3 masters: " + perMaster);
            AtomicInteger received = new AtomicInteger();
            List<Subscription> subs = new ArrayList<>();
            for (String ch : channels) {
                subs.add(get(ex.subscribe(ch, true, (c, m) -> received.incrementAndGet())));
            }
            for (RedisServer master : cluster.masters()) {
                long expected = perMaster.get(master.port());
                Await.until(DEADLINE, () -> shardedClients(master).equals(List.of(expected)),
                        () -> "master " + master.port() + " should have one sharded pub/sub connection with " + expected
                                + " channels, has " + shardedClients(master));
            }
            long spubsubThreads = RelockTck.relockThreads().stream()
                    .filter(t -> t.startsWith(PubSubTransport.SHARDED_THREAD_PREFIX) && !t.equals(PubSubTransport.ROUTER_THREAD)).count();
            assertTrue(spubsubThreads <= 3, "one reader per master at most: " + RelockTck.relockThreads());
            for (String ch : channels) {
                assertEquals(1L, cluster.masterFor(ch).call("SPUBLISH", ch, "m"));
            }
            Await.until(DEADLINE, () -> received.get() == channels.size(), () -> "received " + received.get());
            for (Subscription s : subs) {
                get(s.unsubscribe());
            }
            assertEquals(List.of(), shardChannels(), "unsubscribed: no sharded channel may remain");
        }
    }

    @Test
    void unsubscribe_leavesNoShardedChannelOnAnyNode_andNoMessageAfter() throws Exception {
        try (CommandExecutor ex = new JedisDriverProvider().create(client, OPTIONS)) {
            LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
            List<Subscription> subs = new ArrayList<>();
            for (String ch : List.of("relock:sharded:{u1}", "relock:sharded:{u2}", "relock:sharded:{u3}")) {
                subs.add(get(ex.subscribe(ch, true, (c, m) -> got.add(m))));
            }
            assertEquals(3, shardChannels().size(), "subscribed: " + shardChannels());
            for (Subscription s : subs) {
                get(s.unsubscribe());
                assertEquals(0L, cluster.masterFor(s.channel()).call("SPUBLISH", s.channel(), "late"));
            }
            assertEquals(List.of(), shardChannels());
            assertTrue(got.isEmpty(), "no message after unsubscribe: " + got);
        }
    }

    @Test
    void failoverOfTheChannelsMaster_resubscribesOnTheNewMaster_andCallsOnReconnect() throws Exception {
        try (CommandExecutor ex = new JedisDriverProvider().create(client, OPTIONS)) {
            AtomicInteger reconnects = new AtomicInteger();
            ex.setConnectionListener(reconnects::incrementAndGet);
            LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
            String ch = "relock:sharded:{failover}";
            Subscription sub = get(ex.subscribe(ch, true, (c, m) -> got.add(m)));
            RedisServer oldMaster = cluster.masterFor(ch);
            String elsewhere = "relock:sharded:{failover-other}";
            for (int i = 0; cluster.masterFor(elsewhere).port() == oldMaster.port(); i++) {
                elsewhere = "relock:sharded:{failover-other-" + i + "}";
            }
            Subscription untouched = get(ex.subscribe(elsewhere, true, (c, m) -> got.add(m))); // on another master
            RedisServer replica = cluster.replicasOf(oldMaster).get(0);

            cluster.failover(replica);

            assertNotEquals(oldMaster.port(), cluster.masterFor(ch).port());
            Await.until(DEADLINE, () -> reconnects.get() >= 1, () -> "onReconnect() was not called");
            assertEquals(1L, replica.call("SPUBLISH", ch, "after-failover"),
                    "the new master has our subscription: " + shardChannels());
            assertEquals("after-failover", got.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(1, reconnects.get(), "one onReconnect() per outage");
            assertEquals(1L, cluster.masterFor(elsewhere).call("SPUBLISH", elsewhere, "untouched"));
            assertEquals("untouched", got.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            get(sub.unsubscribe());
            get(untouched.unsubscribe());
            assertEquals(List.of(), shardChannels());
        }
    }

    @Test
    void masterOfTheChannelKilled_subscriptionMovesToThePromotedReplica_andCallsOnReconnect() throws Exception {
        String ch = "relock:sharded:{killed}";
        RedisServer killed = null;
        try (CommandExecutor ex = new JedisDriverProvider().create(client, OPTIONS)) {
            AtomicInteger reconnects = new AtomicInteger();
            ex.setConnectionListener(reconnects::incrementAndGet);
            LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
            Subscription sub = get(ex.subscribe(ch, true, (c, m) -> got.add(m)));

            killed = cluster.killMasterOf(ch);

            RedisServer promoted = cluster.masterFor(ch);
            Await.until(DEADLINE, () -> reconnects.get() >= 1, () -> "onReconnect() was not called");
            assertEquals(1L, promoted.call("SPUBLISH", ch, "after-kill"),
                    "the promoted replica has our subscription: " + shardChannels());
            assertEquals("after-kill", got.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            get(sub.unsubscribe());
            assertEquals(List.of(), shardChannels());
        } finally {
            if (killed != null) {
                killed.start(); // rejoins as a replica: the other rules keep 3 masters with a replica each
                cluster.awaitHealthy(DEADLINE);
            }
        }
    }

    @Test
    void subscribeRedisRefuses_failsWithRedisError_andOtherChannelsStaySubscribed() throws Exception {
        for (RedisServer n : cluster.dataNodes()) {
            n.call("ACL", "SETUSER", "relock-limited", "on", ">pw", "+@all", "~*", "resetchannels", "&relock:allowed:*");
        }
        Set<HostAndPort> seeds = cluster.uris().stream().map(u -> new HostAndPort(u.getHost(), u.getPort()))
                .collect(Collectors.toSet());
        try (RedisClusterClient limited = RedisClusterClient.builder().nodes(seeds)
                .clientConfig(DefaultJedisClientConfig.builder().user("relock-limited").password("pw").timeoutMillis(2000).build())
                .build();
             CommandExecutor ex = new JedisDriverProvider().create(limited, OPTIONS)) {
            assertTrue(ex.capabilities().contains(Capability.SHARDED_PUBSUB));
            LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
            String allowed = "relock:allowed:{acl}";
            Subscription sub = get(ex.subscribe(allowed, true, (c, m) -> got.add(m)));
            String denied = "relock:denied:{acl}"; // same slot, same node as the allowed one
            ExecutionException failed = assertThrows(ExecutionException.class, () -> get(ex.subscribe(denied, true, (c, m) -> { })));
            assertInstanceOf(RedisErrorException.class, failed.getCause());
            Await.until(DEADLINE, () -> Long.valueOf(1L).equals(cluster.masterFor(allowed).call("SPUBLISH", allowed, "still")),
                    () -> "the allowed channel is not subscribed again: " + shardChannels());
            assertEquals("still", got.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
            get(sub.unsubscribe());
        } finally {
            for (RedisServer n : cluster.dataNodes()) {
                n.call("ACL", "DELUSER", "relock-limited");
            }
        }
    }

    @Test
    void close_endsEveryRelockJedisThread_andLeavesNoChannel() throws Exception {
        CommandExecutor ex = new JedisDriverProvider().create(client, OPTIONS);
        for (int i = 0; i < 9; i++) {
            get(ex.subscribe("relock:sharded:{close-" + i + "}", true, (c, m) -> { }));
        }
        assertTrue(RelockTck.relockThreads().stream().anyMatch(t -> t.startsWith(PubSubTransport.SHARDED_THREAD_PREFIX)),
                "sharded readers run: " + RelockTck.relockThreads());
        ex.close();
        Await.until(DEADLINE, () -> RelockTck.relockThreads().stream().noneMatch(t -> t.startsWith("relock-jedis")),
                () -> "relock-jedis threads left after close: " + RelockTck.relockThreads());
        Await.until(DEADLINE, () -> shardChannels().isEmpty(), () -> "sharded channels left: " + shardChannels());
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Every sharded channel subscribed on any running node. */
    private static List<String> shardChannels() {
        List<String> all = new ArrayList<>();
        for (RedisServer n : cluster.dataNodes()) {
            for (Object c : (List<?>) n.call("PUBSUB", "SHARDCHANNELS")) {
                all.add(n.port() + ":" + c);
            }
        }
        return all;
    }

    /** The {@code ssub} counts of the node's clients in sharded pub/sub mode. */
    private static List<Long> shardedClients(RedisServer node) {
        String list = (String) node.call("CLIENT", "LIST");
        List<Long> out = new ArrayList<>();
        for (String line : list.split("\n")) {
            for (String field : line.trim().split(" ")) {
                if (field.startsWith("ssub=") && !field.equals("ssub=0")) {
                    out.add(Long.parseLong(field.substring(5)));
                }
            }
        }
        return out;
    }
}
