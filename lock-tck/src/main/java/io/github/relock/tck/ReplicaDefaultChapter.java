package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Capability;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 15: replica acknowledgement by default ({@code LockOptions.replicaSync(Duration)}, as
 * Redisson's {@code checkLockSyncedSlaves = true} with {@code slavesSyncTimeout = 1000}). A lock
 * write waits for the replicas the serving node has connected, fails only when none acknowledged,
 * and costs nothing on a node without replicas: no {@code WAIT} is sent there at all. The rules run
 * on the kit's own fixtures (the Sentinel group's primary and each cluster master have replicas;
 * the single server has none) and skip where the topology or the driver cannot show them. What the
 * server did is read from its {@code INFO commandstats}.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("replica-default")
public abstract class ReplicaDefaultChapter extends TckChapter {
    private static final Pattern CALLS = Pattern.compile("cmdstat_(\\w+):calls=(\\d+)");

    /** @param kit the enclosing kit */
    protected ReplicaDefaultChapter(DriverKit kit) {
        super(kit);
    }

    /** @return the running replicas of the node serving {@code key} (none on one server) */
    private List<RedisServer> replicasOf(String key) {
        if (kit.topology() instanceof RedisCluster cluster) {
            return cluster.replicasOf(cluster.masterFor(key)).stream().filter(RedisServer::isRunning).toList();
        }
        if (kit.topology() instanceof RedisSentinelGroup group) {
            int primary = group.primary().port();
            return group.dataNodes().stream().filter(n -> n.port() != primary).toList();
        }
        return List.of();
    }

    /**
     * @return calls per command the node serving {@code key} has counted since its last stats
     *     reset (read with one {@code INFO commandstats}, itself counted in the next read)
     */
    private java.util.Map<String, Long> calls(String key) {
        try (RespClient node = kit.topology().adminFor(key)) {
            Matcher m = CALLS.matcher((String) node.call("INFO", "commandstats"));
            java.util.Map<String, Long> calls = new java.util.HashMap<>();
            while (m.find()) {
                calls.put(m.group(1), Long.parseLong(m.group(2)));
            }
            return calls;
        }
    }

    private long calls(String key, String command) {
        return calls(key).getOrDefault(command, 0L);
    }

    /** Runs {@code args} on {@code replica}, reading a cluster replica's data ({@code READONLY}). */
    private Object onReplica(RedisServer replica, String... args) {
        if (!(kit.topology() instanceof RedisCluster)) {
            return replica.call(args);
        }
        try (RespClient c = replica.admin()) {
            c.call("READONLY");
            return c.call(args);
        }
    }

    private boolean driverWaits() {
        return kit.newExecutor().capabilities().contains(Capability.REPLICA_WAIT);
    }

    private static String field(LockClient c) {
        return c.clientId() + ":" + Thread.currentThread().getId();
    }

    /**
     * Rule 15.7: on a server without replicas, the default sends no WAIT at all (lock, unlock,
     * tryLock, lockAsync, unlockAsync, ten times each) and learns that with at most one
     * {@code INFO} for all of them, not one per call.
     * When it fails: a node whose {@code connected_slaves} is 0 must get the plain script: look at
     * how core caches the count per node ({@code ReplicaAcks}) and at the driver's
     * {@code replicationInfo}, which must not run per lock call.
     */
    @Test
    void rule15_7_default_serverWithoutReplicas_sendsNoWaitAndOneInfo() throws Exception {
        String key = "tck:replica-default-none";
        assumeTrue(kit.topology().kind() != io.github.relock.tck.fixtures.RedisTopology.Kind.CLUSTER
                && replicasOf(key).isEmpty(), "needs a server without replicas (the single-server topology)");
        java.util.Map<String, Long> before = calls(key);
        DistributedLock lock = client().getLock(key);
        for (int i = 0; i < 10; i++) {
            lock.lock();
            lock.unlock();
            assertTrue(lock.tryLock(), "tryLock on a free lock");
            lock.unlock();
            lock.lockAsync(7L).get();
            lock.unlockAsync(7L).get();
        }
        java.util.Map<String, Long> after = calls(key);
        assertEquals(before.getOrDefault("wait", 0L), after.getOrDefault("wait", 0L),
                "the default sent WAIT to a server without replicas");
        long extraInfos = after.getOrDefault("info", 0L) - before.getOrDefault("info", 0L) - 1; // minus the rule's own
        assertTrue(extraInfos <= 1, "learning the replica count took " + extraInfos + " INFO calls for 120 lock writes");
    }

    /**
     * Rule 15.8: on a node with replicas (the Sentinel primary, a cluster master), the default
     * lock() and lockAsync() return only once every connected replica holds the lock's hash (read
     * at once), unlock() only once none has it, and the node counted the WAITs; the watchdog's
     * renewals of a held lock are followed by WAIT as well (as Redisson's).
     * When it fails: a lock write must be pipelined with {@code WAIT <connected replicas> 1000}:
     * look at {@code ReplicaAcks.expected} and the driver's {@code evalShaWithWait} (blocking) and
     * {@code evalWithWaitAsync} (async calls and renewal, on the renewal lane).
     */
    @Test
    void rule15_8_default_nodeWithReplicas_writeReachesThemBeforeTheCallReturns() throws Exception {
        String key = "tck:replica-default-sync";
        List<RedisServer> replicas = replicasOf(key);
        assumeTrue(!replicas.isEmpty(), "needs a node with replicas (Sentinel or cluster)");
        assumeTrue(driverWaits(), "the driver does not declare REPLICA_WAIT");
        long waits = calls(key, "wait");
        LockClient c = client();
        DistributedLock lock = c.getLock(key);
        lock.lock();
        for (RedisServer replica : replicas) {
            assertEquals(List.of(field(c), "1"), onReplica(replica, "HGETALL", key),
                    "replica " + replica + " lacks the lock hash right after lock() returned");
        }
        lock.unlock();
        for (RedisServer replica : replicas) {
            assertEquals(0L, onReplica(replica, "EXISTS", key), "replica " + replica + " still has the lock after unlock()");
        }
        lock.lockAsync(7L).get();
        for (RedisServer replica : replicas) {
            assertEquals(List.of(c.clientId() + ":7", "1"), onReplica(replica, "HGETALL", key),
                    "replica " + replica + " lacks the lock hash right after lockAsync completed");
        }
        lock.unlockAsync(7L).get();
        assertTrue(calls(key, "wait") >= waits + 4, "the node counted fewer WAITs than lock writes");
        // Renewal waits too, as Redisson 4.7.0's (LockTask renews through syncedEval).
        DistributedLock renewed = client(Duration.ofMillis(600)).getLock(key);
        renewed.lock();
        try {
            long afterLock = calls(key, "wait");
            Await.until(Duration.ofSeconds(5), () -> calls(key, "wait") > afterLock,
                    () -> "no WAIT followed the watchdog's renewal of a held lock");
        } finally {
            renewed.unlock();
        }
    }

    /**
     * Rule 15.9: with noReplicaSync(), no WAIT is sent, even to a node with replicas.
     * When it fails: {@code LockOptions.Builder.noReplicaSync()} must turn replica acknowledgement
     * off: every lock write a plain script.
     */
    @Test
    void rule15_9_noReplicaSync_sendsNoWaitEvenWithReplicas() throws Exception {
        String key = "tck:replica-default-off";
        long waits = calls(key, "wait");
        DistributedLock lock = kit.newLockClient(LockOptions.builder().noReplicaSync().build()).getLock(key);
        lock.lock();
        lock.unlock();
        lock.lockAsync(7L).get();
        lock.unlockAsync(7L).get();
        assertEquals(waits, calls(key, "wait"), "noReplicaSync() still sent WAIT");
    }

    /**
     * Rule 15.10: when every replica of the node is frozen (SIGSTOP), the default mode (here with a
     * 200 ms timeout) fails lock() with RedisUnavailableException saying none of the connected
     * replicas acknowledged, as Redisson fails with NoSyncedSlavesException, and leaves no lock on
     * the master; tryLockAsync fails alike.
     * When it fails: a WAIT that counts 0 of the connected replicas must give the acquisition back
     * and fail the call ({@code ReplicaShortfall.noneOfConnected}).
     */
    @Test
    void rule15_10_default_noReplicaAcknowledges_lockFailsAndLeavesNoLock() throws Exception {
        String key = "tck:replica-default-short";
        List<RedisServer> replicas = replicasOf(key);
        assumeTrue(!replicas.isEmpty() && replicas.stream().allMatch(RedisServer::isEmbedded),
                "needs a node with replicas this JVM can freeze");
        assumeTrue(driverWaits(), "the driver does not declare REPLICA_WAIT");
        DistributedLock lock = kit.newLockClient(LockOptions.builder().replicaSync(Duration.ofMillis(200)).build())
                .getLock(key);
        lock.lock(); // learns the node's replicas while they answer
        lock.unlock();
        replicas.forEach(RedisServer::pause);
        try {
            RedisUnavailableException e = assertThrows(RedisUnavailableException.class, lock::lock);
            assertTrue(e.getMessage().contains("none of the " + replicas.size() + " connected replica"), e.getMessage());
            assertEquals(0L, redis("EXISTS", key), "the unacknowledged acquisition was not given back");
            ExecutionException async = assertThrows(ExecutionException.class, () -> lock.tryLockAsync(7L).get());
            assertInstanceOf(RedisUnavailableException.class, async.getCause());
            assertEquals(0L, redis("EXISTS", key), "the unacknowledged async acquisition was not given back");
        } finally {
            replicas.forEach(RedisServer::resume);
        }
        try (RespClient node = kit.topology().adminFor(key)) {
            String n = Integer.toString(replicas.size());
            Await.until(Duration.ofSeconds(10), () -> ((Long) node.call("WAIT", n, "100")) == replicas.size(),
                    () -> "the replicas did not catch up after being thawed");
        }
    }
}
