package io.github.relock.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.RedisCluster;
import io.github.relock.tck.redisson.MixedFleet;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/**
 * The mixed fleet on a 3-master, 3-replica cluster: two threads each of relock on Jedis, relock on
 * Lettuce and Redisson (3.17.7 here; 4.7.0 in {@code examples}) on one lock, counting
 * under it. Redisson 3.17 publishes classic messages and relock publishes both kinds, so neither side
 * may sleep until a TTL: every client must get its share.
 */
@Tag("redisson-interop")
class Redisson3MixedFleetClusterTest {
    private static final System.Logger LOG = System.getLogger(Redisson3MixedFleetClusterTest.class.getName());
    private static final Duration RUN = Duration.ofSeconds(5);

    private static RedisCluster cluster;
    private static RedisClusterClient jedis;
    private static io.lettuce.core.cluster.RedisClusterClient lettuce;
    private static LockClient relockJedis;
    private static LockClient relockLettuce;
    private static RedissonClient redisson;

    @BeforeAll
    static void fleet() {
        cluster = RedisCluster.shared();
        jedis = RedisClusterClient.create(cluster.uris().stream().map(u -> new HostAndPort(u.getHost(), u.getPort()))
                .collect(Collectors.toSet()));
        lettuce = io.lettuce.core.cluster.RedisClusterClient.create(cluster.uris().stream()
                .map(u -> RedisURI.create(u.toString())).toList());
        relockJedis = RedisLocks.create(jedis);
        relockLettuce = RedisLocks.create(lettuce);
        redisson = MixedFleet.redisson(cluster);
    }

    @AfterAll
    static void close() {
        relockJedis.close();
        relockLettuce.close();
        jedis.close();
        lettuce.shutdown();
        redisson.shutdown(0, 5, TimeUnit.SECONDS);
    }

    private static Map<String, Function<String, Lock>> clients(boolean fair) {
        Map<String, Function<String, Lock>> m = new LinkedHashMap<>();
        m.put("relock-jedis", n -> fair ? relockJedis.getFairLock(n) : relockJedis.getLock(n));
        m.put("relock-lettuce", n -> fair ? relockLettuce.getFairLock(n) : relockLettuce.getLock(n));
        m.put("redisson", n -> fair ? redisson.getFairLock(n) : redisson.getLock(n));
        return m;
    }

    /** Reentrant lock: no update lost, and each relock client gets at least 10% of the acquisitions. */
    @Test
    void reentrantLock_mixedFleetOnCluster_relockClientsEachGetTenPercent_noLostUpdate() throws Exception {
        MixedFleet.Result r = MixedFleet.run(cluster, clients(false), "fleet:reentrant", 2, RUN);
        LOG.log(System.Logger.Level.INFO, "mixed fleet, reentrant lock, cluster: {0}", r);
        assertEquals(r.total(), r.counter(), "lost updates: " + r);
        assertTrue(r.share("relock-jedis") >= 0.10, "relock-jedis starved: " + r);
        assertTrue(r.share("relock-lettuce") >= 0.10, "relock-lettuce starved: " + r);
        assertTrue(r.acquisitions().get("redisson") > 0, "redisson starved: " + r);
    }

    /** Fair lock: no update lost, and every client's acquisitions are within 3× of every other's. */
    @Test
    void fairLock_mixedFleetOnCluster_sharesWithinThreeTimes_noLostUpdate() throws Exception {
        MixedFleet.Result r = MixedFleet.run(cluster, clients(true), "fleet:fair", 2, RUN);
        LOG.log(System.Logger.Level.INFO, "mixed fleet, fair lock, cluster: {0}", r);
        assertEquals(r.total(), r.counter(), "lost updates: " + r);
        long min = r.acquisitions().values().stream().mapToLong(Long::longValue).min().orElse(0);
        long max = r.acquisitions().values().stream().mapToLong(Long::longValue).max().orElse(0);
        assertTrue(min > 0 && max <= 3 * min, "unfair shares: " + r);
    }
}
