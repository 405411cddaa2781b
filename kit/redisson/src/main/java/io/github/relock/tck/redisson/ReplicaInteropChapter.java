package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.TckChapter;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;

/**
 * Chapter 15, with Redisson: relock's default replica acknowledgement and Redisson 4.7.0's
 * ({@code checkLockSyncedSlaves = true}, both with their defaults) treat one deployment alike: on a
 * node with replicas both follow each lock write with {@code WAIT}. Counted with the node's
 * {@code INFO commandstats}.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("redisson-interop")
@Tag("replica-default")
public abstract class ReplicaInteropChapter extends TckChapter {
    private static final Pattern WAIT_CALLS = Pattern.compile("cmdstat_wait:calls=(\\d+)");
    private static final Pattern CONNECTED = Pattern.compile("(?m)^connected_slaves:(\\d+)");

    /** @param kit the enclosing kit */
    protected ReplicaInteropChapter(DriverKit kit) {
        super(kit);
    }

    private long waits(String key) {
        try (RespClient node = kit.topology().adminFor(key)) {
            Matcher m = WAIT_CALLS.matcher((String) node.call("INFO", "commandstats"));
            return m.find() ? Long.parseLong(m.group(1)) : 0;
        }
    }

    private boolean hasReplicas(String key) {
        try (RespClient node = kit.topology().adminFor(key)) {
            Matcher m = CONNECTED.matcher((String) node.call("INFO", "replication"));
            return m.find() && Integer.parseInt(m.group(1)) > 0;
        }
    }

    /**
     * Rule 15.11: Redisson and relock, each with its defaults, lock and unlock one lock in turn on
     * the Sentinel group's primary (two replicas): each sends WAIT with its writes. Run under
     * Sentinel only: starting a Redisson client costs seconds on the replicated topologies, and one
     * of them shows the default alike; on a server without replicas rule 15.7 shows relock sends
     * none, as Redisson's single-server mode never does.
     * When it fails: relock's default must follow Redisson's {@code checkLockSyncedSlaves}: WAIT for
     * the node's connected replicas, none where it has none (look at {@code ReplicaAcks}).
     */
    @Test
    void rule15_11_redissonAndRelockDefaults_waitForReplicasAlike() {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                kit.topology().kind() == io.github.relock.tck.fixtures.RedisTopology.Kind.SENTINEL,
                "run under Sentinel only (a Redisson client costs seconds to start on each replicated topology)");
        org.junit.jupiter.api.Assumptions.assumeTrue(kit.newExecutor().capabilities().contains(
                io.github.relock.spi.Capability.REPLICA_WAIT), "the driver does not declare REPLICA_WAIT (Spring Data's: "
                + "its default sends no WAIT, a listed difference from Redisson)");
        String key = "tck:replica-interop";
        assertTrue(hasReplicas(key), "the Sentinel group's primary has replicas");
        RLock theirs = RedissonConfigs.clientFor(kit, Duration.ofSeconds(30)).getLock(key);
        DistributedLock ours = client().getLock(key);
        long before = waits(key);
        theirs.lock();
        theirs.unlock();
        long afterRedisson = waits(key);
        ours.lock();
        ours.unlock();
        long afterRelock = waits(key);
        assertTrue(afterRedisson - before >= 2, "Redisson sent " + (afterRedisson - before) + " WAIT(s)");
        assertTrue(afterRelock - afterRedisson >= 2, "relock sent " + (afterRelock - afterRedisson)
                + " WAIT(s) where Redisson sent " + (afterRedisson - before));
    }
}
