package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Chapter 7: failure signalling. A stopped Redis gives a typed error within the timeout, never a
 * hang; a restarted Redis makes held locks reported lost while new locks work. Each test runs on
 * a private embedded server (skipped, with the reason, when {@code REDIS_URL} is set).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("failure-signalling")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class FailureChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected FailureChapter(DriverKit kit) {
        super(kit);
    }

    private RedisServer privateServer() {
        assumeTrue(RedisFixture.canControlServers(), "REDIS_URL is set: the kit may not stop servers");
        assumeSingleServer("it stops and restarts a private single server (the failover chapter covers clusters and Sentinel)");
        return kit.closeAfterTest(RedisServer.startEmbedded());
    }

    /**
     * Rule 7.1: Redis stopped: lock calls fail with RedisUnavailableException within the timeout.
     * When it fails: with Redis stopped every call must fail with {@code RedisUnavailableException}
     * within the command timeout: the driver must map its client's connection errors and timeouts
     * to it, and must not wait without a bound.
     */
    @Test
    void rule7_1_redisStopped_typedErrorNoHang() {
        RedisServer server = privateServer();
        LockClient c = kit.newLockClient(server, LockOptions.builder().commandTimeout(Duration.ofSeconds(1)).build());
        DistributedLock lock = c.getLock("tck:down");
        assertTrue(lock.tryLock());
        lock.unlock();
        server.stop();
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            assertThrows(RedisUnavailableException.class, lock::tryLock);
            assertThrows(RedisUnavailableException.class, lock::isLocked);
        });
    }

    /**
     * Rule 7.2: Redis restarted (data gone): held locks are reported lost; new locks work.
     * When it fails: after the restart the held lock's renewal must answer "not held" and be
     * reported, and new locks must work: the driver must reconnect by itself, and core must load
     * its scripts again after NOSCRIPT (rule 1.2.2).
     */
    @Test
    void rule7_2_redisRestarted_heldLockReportedLost_newLocksWork() throws Exception {
        RedisServer server = privateServer();
        LockClient c = kit.newLockClient(server, LockOptions.builder()
                .lockWatchdogTimeout(Duration.ofMillis(600)).commandTimeout(Duration.ofSeconds(1)).build());
        List<LockLostEvent> events = new CopyOnWriteArrayList<>();
        c.addLockLostListener(events::add);
        DistributedLock lock = c.getLock("tck:restart");
        lock.lock();
        server.restart();
        Await.until(Duration.ofSeconds(30), () -> !events.isEmpty(), () -> "held lock not reported lost after restart");
        assertEquals("tck:restart", events.get(0).lockName());
        DistributedLock fresh = c.getLock("tck:after-restart");
        Await.until(Duration.ofSeconds(30), () -> {
            try {
                return fresh.tryLock();
            } catch (RedisUnavailableException reconnecting) {
                return false;
            }
        }, () -> "no new lock after the restart");
        fresh.unlock();
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
    }
}
