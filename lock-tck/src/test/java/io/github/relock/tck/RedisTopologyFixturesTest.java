package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The cluster and Sentinel fixtures start real deployments from the embedded binary and route
 * commands where a cluster-aware client would. (Their faults, kill -9 and failover, are exercised
 * by the failover chapter, run by each driver.)
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
    void sentinel_primaryTwoReplicasThreeSentinels_everySentinelAgrees_writesReachReplicas() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            assertEquals(3, group.dataNodes().size());
            assertEquals(3, group.sentinels().size());
            assertEquals("OK", group.call("SET", "k", "v"));
            RedisServer primary = group.primary();
            assertEquals(2L, group.call("WAIT", "2", "5000"), "both replicas acknowledge");
            for (RedisServer n : group.dataNodes()) {
                assertEquals("v", n.call("GET", "k"), "node " + n.port() + (n == primary ? " (primary)" : ""));
            }
            assertEquals(List.of(), group.call("PUBSUB", "CHANNELS"), "the Sentinels' hello channel is not listed");
        }
    }
}
