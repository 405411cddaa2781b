package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.RedisLocks;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Chapter 15: replica acknowledgement — here with a pinned count ({@code LockOptions.replicaSync(n,
 * timeout)}; the default, waiting for the connected replicas, is {@link ReplicaDefaultChapter}). Every lock write
 * is pipelined with {@code WAIT n timeout}; a call returns only once {@code n} replicas have the
 * write, an acquisition too few replicas acknowledged is given back and fails with
 * {@link RedisUnavailableException}, renewals short twice in a row lose the hold, and a driver
 * without {@link Capability#REPLICA_WAIT} is refused when the client is created. Each rule starts
 * its own primary with two replicas ({@link RedisSentinelGroup#start()}).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("replica-sync")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL,
        because = "needs Capability.REPLICA_WAIT; in no kit class: a driver that declares it nests the "
        + "chapter in a test of its own, as JedisReplicaSyncTest does")
public abstract class ReplicaSyncChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected ReplicaSyncChapter(DriverKit kit) {
        super(kit);
    }

    private RedisSentinelGroup group() {
        return kit.closeAfterTest(RedisSentinelGroup.start());
    }

    private static List<RedisServer> replicasOf(RedisSentinelGroup group) {
        RedisServer primary = group.primary();
        return group.dataNodes().stream().filter(n -> n.port() != primary.port()).toList();
    }

    private static String field(LockClient c) {
        return c.clientId() + ":" + Thread.currentThread().getId();
    }

    /**
     * Rule 15.1: with replicaSync(2, 1 s), lock() returns only once both replicas hold the lock's
     * hash (read at once, no waiting), and unlock() succeeds and deletes it everywhere it was
     * acknowledged.
     * When it fails: {@code lock()} and {@code unlock()} must return only after WAIT counted both
     * replicas: look at the driver's {@code evalShaWithWait} (the script and WAIT pipelined on one
     * connection) and at how core reads its second element.
     */
    @Test
    void rule15_1_lockAndUnlock_replicasHaveTheHashWhenLockReturns() {
        RedisSentinelGroup group = group();
        RedisServer primary = group.primary();
        LockClient c = kit.newLockClient(primary,
                LockOptions.builder().replicaSync(2, Duration.ofSeconds(1)).build());
        DistributedLock lock = c.getLock("tck:sync");
        lock.lock();
        List<RedisServer> replicas = replicasOf(group);
        assertEquals(2, replicas.size(), "the group has two replicas");
        for (RedisServer replica : replicas) {
            assertEquals(List.of(field(c), "1"), replica.call("HGETALL", "tck:sync"),
                    "replica " + replica + " lacks the lock hash right after lock() returned");
        }
        lock.unlock();
        for (RedisServer replica : replicas) {
            assertEquals(0L, replica.call("EXISTS", "tck:sync"),
                    "replica " + replica + " still has the lock right after unlock() returned");
        }
    }

    /**
     * Rule 15.2: the async API is synced too: lockAsync, then forceUnlockAsync, each acknowledged
     * by both replicas.
     * When it fails: the async paths must be synced too: they must go through {@code
     * evalShaWithWait} as the blocking ones do.
     */
    @Test
    void rule15_2_asyncLockAndForceUnlock_replicasAcknowledge() throws Exception {
        RedisSentinelGroup group = group();
        LockClient c = kit.newLockClient(group.primary(),
                LockOptions.builder().replicaSync(2, Duration.ofSeconds(1)).build());
        DistributedLock lock = c.getLock("tck:sync-async");
        long owner = 7L;
        lock.lockAsync(owner).get();
        for (RedisServer replica : replicasOf(group)) {
            assertEquals(List.of(c.clientId() + ":" + owner, "1"), replica.call("HGETALL", "tck:sync-async"),
                    "replica " + replica + " lacks the lock hash right after lockAsync completed");
        }
        assertTrue(lock.forceUnlockAsync().get(), "forceUnlockAsync found the lock");
        for (RedisServer replica : replicasOf(group)) {
            assertEquals(0L, replica.call("EXISTS", "tck:sync-async"),
                    "replica " + replica + " still has the lock right after forceUnlockAsync completed");
        }
    }

    /**
     * Rule 15.3: with a replica stopped and replicaSync(2, 200 ms), lock() fails with
     * RedisUnavailableException saying how many replicas acknowledged, and leaves no key on the
     * primary (the acquisition was given back); so does tryLockAsync.
     * When it fails: a WAIT that counts fewer replicas than asked must give the acquisition back
     * and fail it with {@code RedisUnavailableException} naming both counts.
     */
    @Test
    void rule15_3_replicaDown_lockFailsAndLeavesNoKey() throws Exception {
        RedisSentinelGroup group = group();
        RedisServer primary = group.primary();
        replicasOf(group).get(0).stop();
        LockClient c = kit.newLockClient(primary,
                LockOptions.builder().replicaSync(2, Duration.ofMillis(200)).build());
        DistributedLock lock = c.getLock("tck:sync-short");
        RedisUnavailableException e = assertThrows(RedisUnavailableException.class, lock::lock);
        assertTrue(e.getMessage().contains("1 of 2"), "the message says how many acknowledged: " + e.getMessage());
        assertEquals(0L, primary.call("EXISTS", "tck:sync-short"), "the short acquisition was not given back");
        ExecutionException async = assertThrows(ExecutionException.class, () -> lock.tryLockAsync().get());
        assertInstanceOf(RedisUnavailableException.class, async.getCause());
        assertEquals(0L, primary.call("EXISTS", "tck:sync-short"), "the short async acquisition was not given back");
        assertFalse(lock.isLocked());
    }

    /**
     * Rule 15.4: a watchdog hold whose renewals too few replicas acknowledge (a replica stopped
     * after the acquisition) is reported lost with RENEWAL_FAILED, after a second short renewal.
     * When it fails: two renewals in a row acknowledged by too few replicas must report the hold
     * lost ({@code RENEWAL_FAILED}).
     */
    @Test
    void rule15_4_renewalShortTwice_holdLostRenewalFailed() {
        RedisSentinelGroup group = group();
        RedisServer primary = group.primary();
        LockClient c = kit.newLockClient(primary, LockOptions.builder()
                .replicaSync(2, Duration.ofMillis(100)).lockWatchdogTimeout(Duration.ofMillis(900)).build());
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        c.addLockLostListener(lost::add);
        DistributedLock lock = c.getLock("tck:sync-renew");
        lock.lock();
        replicasOf(group).get(0).stop();
        Await.until(Duration.ofSeconds(10), () -> !lost.isEmpty(), () -> "no lock-lost event after a replica stopped");
        assertEquals(LockLostEvent.Reason.RENEWAL_FAILED, lost.get(0).reason());
        assertEquals("tck:sync-renew", lost.get(0).lockName());
        primary.call("DEL", "tck:sync-renew");
    }

    /**
     * Rule 15.6: after SCRIPT FLUSH (NOSCRIPT), a synced lock() runs its script exactly once (hold
     * count 1) and still returns only once both replicas have the hash; unlock() likewise.
     * When it fails: after NOSCRIPT the script must be loaded with EVAL once (not run twice: the
     * hold count stays 1) and the WAIT still sent.
     */
    @Test
    void rule15_6_afterScriptFlush_scriptRunsOnceAndReplicasAcknowledge() {
        RedisSentinelGroup group = group();
        RedisServer primary = group.primary();
        LockClient c = kit.newLockClient(primary,
                LockOptions.builder().replicaSync(2, Duration.ofSeconds(1)).build());
        DistributedLock lock = c.getLock("tck:sync-noscript");
        primary.call("SCRIPT", "FLUSH");
        lock.lock();
        for (RedisServer replica : replicasOf(group)) {
            assertEquals(List.of(field(c), "1"), replica.call("HGETALL", "tck:sync-noscript"),
                    "replica " + replica + " lacks the lock hash (or the count is off) right after lock() returned");
        }
        assertEquals(1, lock.getHoldCount(), "the acquire script ran more than once");
        primary.call("SCRIPT", "FLUSH");
        lock.unlock();
        for (RedisServer replica : replicasOf(group)) {
            assertEquals(0L, replica.call("EXISTS", "tck:sync-noscript"),
                    "replica " + replica + " still has the lock right after unlock() returned");
        }
    }

    /**
     * Rule 15.5: a driver without REPLICA_WAIT is refused at once when replica sync is asked for,
     * naming the option.
     * When it fails: a client asking for replica sync on a driver without {@code REPLICA_WAIT} must
     * be refused when it is created, naming the option.
     */
    @Test
    void rule15_5_driverWithoutReplicaWait_refused() {
        RedisDriverProvider hiding = withoutReplicaWait(kit.provider());
        Object nativeClient = kit.newNativeClient(kit.server());
        kit.closeAfterTest(() -> kit.closeNativeClient(nativeClient));
        RuntimeException e = assertThrows(RuntimeException.class, () -> kit.closeAfterTest(RedisLocks.create(
                hiding, nativeClient, LockOptions.builder().replicaSync(1, Duration.ofSeconds(1)).build())));
        assertTrue(e instanceof IllegalArgumentException || e instanceof IllegalStateException, e.toString());
        assertTrue(e.getMessage().contains("replicaSync") && e.getMessage().contains("REPLICA_WAIT"), e.getMessage());
        kit.closeAfterTest(RedisLocks.create(hiding, nativeClient, LockOptions.defaults())); // without the option: fine
    }

    /** The kit's real driver, with {@link Capability#REPLICA_WAIT} left out of what it declares. */
    private static RedisDriverProvider withoutReplicaWait(RedisDriverProvider d) {
        return new RedisDriverProvider() {
            @Override
            public String name() {
                return d.name() + "-without-replica-wait";
            }

            @Override
            public int spiVersion() {
                return d.spiVersion();
            }

            @Override
            public boolean supports(Object nativeClient) {
                return d.supports(nativeClient);
            }

            @Override
            public CommandExecutor create(Object nativeClient, DriverOptions options) {
                return hide(d.create(nativeClient, options));
            }

            @Override
            public CommandExecutor connect(URI uri, DriverOptions options) {
                return hide(d.connect(uri, options));
            }
        };
    }

    private static CommandExecutor hide(CommandExecutor e) {
        return (CommandExecutor) Proxy.newProxyInstance(ReplicaSyncChapter.class.getClassLoader(),
                new Class<?>[] {CommandExecutor.class}, (proxy, method, args) -> {
                    if (method.getName().equals("capabilities") && method.getParameterCount() == 0) {
                        Set<Capability> caps = EnumSet.noneOf(Capability.class);
                        caps.addAll(e.capabilities());
                        caps.remove(Capability.REPLICA_WAIT);
                        return caps;
                    }
                    try {
                        return method.invoke(e, args);
                    } catch (InvocationTargetException ite) {
                        throw ite.getCause();
                    }
                });
    }
}
