package io.github.relock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.relock.tck.fixtures.RedisCluster;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario (i)'s clients work against a real 3-master cluster: every waiting contender's cluster
 * client takes and releases locks whose names fall on every master, each lock's hash on the master
 * that serves its slot. No timings.
 */
class ClusterContendersSmokeTest {
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(BenchmarkReport.CLUSTER_MASTERS, 0, 2000);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @ParameterizedTest
    @EnumSource(value = Contender.class, names = {"RELOCK_JEDIS", "RELOCK_LETTUCE", "REDISSON"})
    void clusterClient_locksOnEveryMaster_writeAndDeleteTheHashOnItsMaster(Contender contender) {
        List<InetSocketAddress> seeds = cluster.uris().stream()
                .map(u -> InetSocketAddress.createUnresolved(u.getHost(), u.getPort())).toList();
        try (LockSource source = contender.openCluster(seeds)) {
            for (int i = 0; i < 12; i++) {
                String name = "smoke:cluster:" + contender.id() + ":" + i;
                Lock lock = source.lock(name);
                lock.lock();
                assertEquals(1L, cluster.masterFor(name).call("EXISTS", name), name + " held: its hash is on its master");
                lock.unlock();
                assertEquals(0L, cluster.masterFor(name).call("EXISTS", name), name + " released: its hash is gone");
            }
        }
        assertEquals(3, cluster.countByMaster(java.util.stream.IntStream.range(0, 12)
                .mapToObj(i -> "smoke:cluster:" + contender.id() + ":" + i).toList()).size(),
                "the names used fall on all three masters");
    }

    @Test
    void clusterClient_floor_isRefusedWithAReason() {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> Contender.FLOOR.openCluster(List.of(InetSocketAddress.createUnresolved("127.0.0.1", 1))));
        assertEquals("the floor is a single-node EVALSHA: no cluster", e.getMessage());
    }
}
