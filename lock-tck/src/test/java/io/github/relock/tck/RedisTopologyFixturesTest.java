package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The cluster and Sentinel fixtures start real deployments from the embedded binary, route
 * commands where a cluster-aware client would, and survive the faults the failover chapter injects.
 * Each test owns its deployment (the faults break it).
 */
class RedisTopologyFixturesTest {

    @Test
    void cluster_threeMastersThreeReplicas_everySlotServed_commandsRoutedBySlot() {
        try (RedisCluster cluster = RedisCluster.start()) {
            assertEquals(3, cluster.masters().size());
            assertEquals(3, cluster.replicas().size());
            Set<Integer> owners = new HashSet<>();
            for (String key : List.of("a", "b", "c", "d", "e", "f", "g", "h")) {
                assertEquals("OK", cluster.call("SET", key, key));
                assertEquals(key, cluster.call("GET", key));
                owners.add(cluster.masterFor(key).port());
            }
            assertTrue(owners.size() > 1, "eight keys all on one master: " + owners);
            assertEquals(8, ((List<?>) cluster.call("KEYS", "*")).size(), "KEYS must cover every master, once");
            assertEquals(8L, cluster.call("DBSIZE"));
            for (String key : List.of("somekey", "{user1000}.following", "a{}b", "{}{x}", "redisson_lock__channel:{tck:a}")) {
                assertEquals((long) RedisCluster.slot(key), cluster.call("CLUSTER", "KEYSLOT", key), key);
            }
            assertEquals(RedisCluster.slot("foo"), RedisCluster.slot("{foo}:anything"));
            for (RedisServer m : cluster.masters()) {
                assertEquals(1, cluster.replicasOf(m).size(), "each master has one replica");
            }
        }
    }

    @Test
    void cluster_manualFailoverAndKilledMaster_replicaTakesOver_keyKept() {
        try (RedisCluster cluster = RedisCluster.start()) {
            cluster.call("SET", "k", "v");
            RedisServer master = cluster.masterFor("k");
            RedisServer replica = cluster.replicasOf(master).get(0);
            cluster.call("WAIT", "1", "1000");
            cluster.failover(replica);
            assertEquals(replica.port(), cluster.masterFor("k").port());
            assertEquals("v", cluster.call("GET", "k"));

            RedisServer killed = cluster.killMasterOf("k");
            assertEquals(replica.port(), killed.port());
            assertNotEquals(killed.port(), cluster.masterFor("k").port());
            killed.start();
            cluster.awaitHealthy(Duration.ofSeconds(60));
            assertEquals(6, cluster.dataNodes().size());
        }
    }

    @Test
    void sentinel_primaryTwoReplicasThreeSentinels_failoverPromotesReplica() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            assertEquals(3, group.dataNodes().size());
            assertEquals(3, group.sentinels().size());
            group.call("SET", "k", "v");
            RedisServer before = group.primary();
            RedisServer after = group.failover();
            assertNotEquals(before.port(), after.port());
            assertEquals("v", group.call("GET", "k"));
            RedisServer killed = group.killPrimary();
            assertEquals(after.port(), killed.port());
            assertEquals("v", group.call("GET", "k"));
        }
    }
}
