package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Chapter 16: failover. The deployment's node serving a lock dies ({@code SIGKILL}) or hands over
 * ({@code CLUSTER FAILOVER} / {@code SENTINEL FAILOVER}) while the lock is held and waited for.
 * What relock promises then:
 * <ul>
 *   <li>a waiter still acquires after the failover, within the holder's remaining lease plus the
 *       subscription timeout once a new node serves the lock (16.1);</li>
 *   <li>a holder keeps its watchdog lock across a coordinated failover: renewal reaches the new
 *       owner, grouped by the new topology, and an unlock there wakes the waiter (16.2);</li>
 *   <li>a holder whose lock the promoted node does not have (the write never reached it) is told:
 *       {@code onLost} with {@link LockLostEvent.Reason#NOT_HELD} at its next renewal (16.3; with a
 *       watchdog timeout longer than the failover, else {@code RENEWAL_FAILED} comes first);</li>
 *   <li>with replica acknowledgement on, a lock survives its node dying right after {@code lock()}
 *       returned (16.4);</li>
 *   <li>after every rule, no key is left (so none without a TTL) and no channel stays subscribed.</li>
 * </ul>
 * Timings (fault to next grant, failover to loss signal) are logged at INFO by
 * {@code io.github.relock.tck.FailoverChapter} for the report.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("failover")
public abstract class FailoverChapter {
    private static final System.Logger LOG = System.getLogger(FailoverChapter.class.getName());
    /** Longer than a failover takes here (a few seconds), so a renewal answers before the timeout runs out. */
    private static final Duration WATCHDOG = Duration.ofSeconds(10);
    private static final Duration PERIOD = WATCHDOG.dividedBy(3);
    /**
     * Rule 16.1's waiter's subscription timeout, which is also how long its attempts ride out
     * Redis being unreachable: longer than a failover takes beside two CPU hogs (the default
     * 7.5 s was not: the waiter's tryLock failed with "Failed to connect" before the replica took
     * over).
     */
    private static final Duration OUTLASTS_FAILOVER = Duration.ofSeconds(20);
    /** Rule 28.15's bound after a promotion: a third of a lock's default lease. */
    private static final long AFTER_FAILOVER_SECONDS = 10;

    /** The kit this chapter runs in. */
    protected final DriverKit kit;

    /** @param kit the enclosing kit */
    protected FailoverChapter(DriverKit kit) {
        this.kit = kit;
    }

    /** @return the deployment this chapter breaks and heals (its own, not the kit's shared one) */
    protected abstract RedisTopology deployment();

    /**
     * @return the kind of {@link #deployment()}, without starting it: the cluster-only rules are
     *     skipped before a deployment of another kind is started for them
     */
    protected RedisTopology.Kind kind() {
        return deployment().kind();
    }

    @BeforeEach
    void clean(org.junit.jupiter.api.TestInfo test) {
        org.junit.jupiter.api.Assumptions.assumeTrue(runsHere(test), "sharded channels live on a cluster's nodes");
        String elsewhere = elsewhere(test);
        org.junit.jupiter.api.Assumptions.assumeTrue(elsewhere == null, () -> "not in this class's share of the chapter: "
                + elsewhere + "; -D" + RuleSlice.ALL_RULES + "=true runs it here");
        heal();
        deployment().call("FLUSHALL");
        kit.checkThreadsAfterTest();
    }

    /** Hygiene: nothing left behind once every client unlocked and closed. */
    @AfterEach
    void hygiene(org.junit.jupiter.api.TestInfo test) {
        if (!runsHere(test) || elsewhere(test) != null) {
            return; // skipped before its deployment was started
        }
        Await.until(Duration.ofSeconds(20), () -> channels().isEmpty(), () -> "channels still subscribed: " + channels());
        Await.until(Duration.ofSeconds(10), () -> ((List<?>) deployment().call("KEYS", "*")).isEmpty(),
                () -> "keys left behind: " + deployment().call("KEYS", "*"));
    }

    /** @return where the kit says this rule runs instead ({@link FailoverKit#elsewhere}), or null to run it here */
    private String elsewhere(org.junit.jupiter.api.TestInfo test) {
        if (!(kit instanceof FailoverKit k) || Boolean.getBoolean(RuleSlice.ALL_RULES) || test.getTestMethod().isEmpty()) {
            return null;
        }
        String[] parts = test.getTestMethod().get().getName().split("_");
        return parts.length < 3 ? null : k.elsewhere(parts[0].substring("rule".length()) + "." + parts[1], kind());
    }

    /** @return false for a cluster-only rule on another kind of deployment */
    private boolean runsHere(org.junit.jupiter.api.TestInfo test) {
        boolean clusterOnly = test.getTestMethod().map(m -> m.getName().startsWith("rule28_15_")).orElse(false);
        return !clusterOnly || kind() == RedisTopology.Kind.CLUSTER;
    }

    private List<String> channels() {
        List<String> all = new ArrayList<>();
        ((List<?>) deployment().call("PUBSUB", "CHANNELS")).forEach(c -> all.add(String.valueOf(c)));
        ((List<?>) deployment().call("PUBSUB", "SHARDCHANNELS")).forEach(c -> all.add("sharded " + c));
        return all;
    }

    private LockClient client() {
        return kit.newLockClient(deployment(), LockOptions.builder().lockWatchdogTimeout(WATCHDOG).build());
    }

    /**
     * Rule 16.1: the node serving a lock is killed while a lease holds it and another client
     * waits; once a replica took over, the waiter acquires within the remaining lease plus the
     * subscription timeout (its pub/sub connection died with the node: it must poll). The
     * waiter's client has a subscription timeout longer than the failover: a waiter rides out an
     * unreachable Redis for that long, then fails with RedisUnavailableException.
     * When it fails: the waiter must get the lock once a replica took over: its driver must
     * reconnect its pub/sub connection to the new node, and core must attempt again when the lease
     * runs out, even without a message.
     */
    @Test
    void rule16_1_servingNodeKilled_waiterAcquiresAfterFailover() throws Exception {
        String name = "tck:fo:kill";
        DistributedLock held = client().getLock(name);
        long lease = 4000;
        assertTrue(held.tryLock(0, lease, TimeUnit.MILLISECONDS));
        replicate(name);
        DistributedLock other = kit.newLockClient(deployment(), LockOptions.builder().lockWatchdogTimeout(WATCHDOG)
                .subscriptionTimeout(OUTLASTS_FAILOVER).build()).getLock(name);
        long[] grantedAt = new long[1];
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                boolean ok = other.tryLock(120, TimeUnit.SECONDS);
                grantedAt[0] = System.nanoTime();
                if (ok) {
                    other.unlock(); // on the thread that holds it
                }
                return ok;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        Await.until(Duration.ofSeconds(20), () -> subscribers("redisson_lock__channel:{" + name + "}") > 0,
                () -> "the waiter never subscribed");
        long fault = System.nanoTime();
        RedisServer killed = kill(name);
        long promoted = System.nanoTime();
        try {
            assertTrue(waiter.get(Await.scaled(Duration.ofSeconds(90)).toSeconds(), TimeUnit.SECONDS),
                    "the waiter never acquired after the failover");
            long afterPromotion = TimeUnit.NANOSECONDS.toMillis(grantedAt[0] - promoted);
            long bound = lease + OUTLASTS_FAILOVER.toMillis();
            LOG.log(System.Logger.Level.INFO, "16.1 {0}: fault to grant {1} ms, promotion to grant {2} ms",
                    deployment().kind(), TimeUnit.NANOSECONDS.toMillis(grantedAt[0] - fault), afterPromotion);
            assertTrue(afterPromotion <= Await.scaled(Duration.ofMillis(bound)).toMillis(),
                    "granted " + afterPromotion + " ms after the promotion; the lease plus the subscription timeout is "
                            + bound + " ms");
        } finally {
            restart(killed);
        }
    }

    /**
     * Rule 16.2: a coordinated failover of the node serving one of six held watchdog locks: all
     * six stay held (renewal follows the new owner, grouped by the new topology; no loss is
     * reported), and the holder's unlock on the new owner wakes a waiter.
     * When it fails: renewals must follow the new topology (the driver's routing after MOVED, or
     * the new Sentinel primary) and be grouped anew; a loss reported means a renewal reached a node
     * without the locks.
     */
    @Test
    void rule16_2_coordinatedFailover_holderKeepsLocksAndUnlockWakesWaiter() throws Exception {
        skipIfKnownIssue("16.2");
        LockClient holder = client();
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        holder.addLockLostListener(lost::add);
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            DistributedLock l = holder.getLock("tck:fo:hold:" + i);
            l.lock();
            locks.add(l);
        }
        String name = "tck:fo:hold:0";
        replicate(name);
        DistributedLock other = client().getLock(name);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                boolean ok = other.tryLock(120, TimeUnit.SECONDS);
                if (ok) {
                    other.unlock(); // on the thread that holds it
                }
                return ok;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        Await.until(Duration.ofSeconds(20), () -> subscribers("redisson_lock__channel:{" + name + "}") > 0,
                () -> "the waiter never subscribed");
        failover(name);
        // Two renewal periods on the new topology: without renewal each TTL would be down to a
        // third of the watchdog timeout; renewed, it is above half of it.
        Await.holdsFor(PERIOD.multipliedBy(2), () -> lost.isEmpty(), () -> "a lock was reported lost: " + lost);
        for (int i = 0; i < 6; i++) {
            String key = "tck:fo:hold:" + i;
            long pttl = (Long) deployment().call("PTTL", key);
            assertTrue(pttl > WATCHDOG.toMillis() / 2, key + " was not renewed after the failover: PTTL " + pttl);
        }
        long unlock = System.nanoTime();
        locks.get(0).unlock();
        assertTrue(waiter.get(Await.scaled(Duration.ofSeconds(60)).toSeconds(), TimeUnit.SECONDS),
                "the waiter never acquired after the holder unlocked on the new owner");
        LOG.log(System.Logger.Level.INFO, "16.2 {0}: unlock to grant after failover {1} ms", deployment().kind(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlock));
        for (int i = 1; i < 6; i++) {
            locks.get(i).unlock();
        }
        assertEquals(List.of(), lost);
    }

    /**
     * Rule 16.3: the lock's write never reached the replica that is promoted (its replication was
     * cut while frozen, then the master was killed): the holder is told at its next renewal —
     * {@code onLost} with {@code NOT_HELD} — and another client can take the lock.
     * When it fails: the holder must be told {@code NOT_HELD} at its next renewal on the promoted
     * node that lacks its lock.
     */
    @Test
    void rule16_3_promotedReplicaLacksLock_holderToldNotHeld() throws Exception {
        String name = "tck:fo:lost";
        LockClient holder = client();
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        holder.addLockLostListener(lost::add);
        RedisServer master = servingNode(name);
        List<RedisServer> replicas = replicasOf(master);
        replicas.forEach(RedisServer::pause);
        RedisServer killed = null;
        long promoted;
        try {
            master.call("CLIENT", "KILL", "TYPE", "replica"); // the link is cut; the frozen replicas cannot resync
            DistributedLock lock = holder.getLock(name);
            lock.lock();
            killed = master;
            master.kill();
            replicas.forEach(RedisServer::resume);
            awaitPromotion(name, master);
            promoted = System.nanoTime();
        } catch (RuntimeException | Error e) {
            replicas.forEach(r -> {
                try {
                    r.resume();
                } catch (RuntimeException ignored) {
                    // already running
                }
            });
            throw e;
        }
        try {
            Await.until(PERIOD.multipliedBy(2).plusSeconds(20), () -> !lost.isEmpty(),
                    () -> "the holder was never told that the promoted node lacks its lock");
            LOG.log(System.Logger.Level.INFO, "16.3 {0}: promotion to onLost {1} ms", deployment().kind(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - promoted));
            assertEquals(LockLostEvent.Reason.NOT_HELD, lost.get(0).reason());
            assertEquals(name, lost.get(0).lockName());
            DistributedLock other = client().getLock(name);
            assertTrue(other.tryLock(0, 10_000, TimeUnit.MILLISECONDS), "nobody holds the lock on the new node");
            other.unlock();
        } finally {
            restart(killed);
        }
    }

    /**
     * Rule 16.4: with replica acknowledgement on ({@code replicaSync(1, 2 s)}: the replica a
     * failover promotes is the most up to date), the serving node killed right after
     * {@code lock()} returned: the promoted node has the lock, with this holder's field; once the
     * killed node is back as a replica, the holder's synced unlock releases it. (A 30 s lease, so no
     * renewal depends on how many replicas are left while the dead node is away.)
     * When it fails: with replica sync the lock reached a replica before {@code lock()} returned; a
     * promoted node without it means the WAIT was not honoured.
     */
    @Test
    void rule16_4_replicaSync_nodeKilledRightAfterLock_lockSurvives() throws Exception {
        String name = "tck:fo:sync";
        LockClient holder = kit.newLockClient(deployment(), LockOptions.builder().lockWatchdogTimeout(WATCHDOG)
                .replicaSync(1, Duration.ofSeconds(2)).build());
        DistributedLock lock = holder.getLock(name);
        lock.lock(30, TimeUnit.SECONDS);
        RedisServer killed = kill(name);
        try {
            assertEquals(1L, deployment().call("EXISTS", name),
                    "the promoted replica lacks a lock a replica had acknowledged");
            assertEquals("1", deployment().call("HGET", name, holder.clientId() + ":" + Thread.currentThread().getId()),
                    "the promoted node's lock is not this holder's");
        } finally {
            restart(killed);
        }
        // A client's first synced write after a node came back may fail with outcome unknown while
        // its pooled connections to that node are found broken (a pipeline is not retried).
        Await.until(Duration.ofSeconds(30), () -> {
            try {
                lock.unlock();
                return true;
            } catch (io.github.relock.api.RedisUnavailableException outcomeUnknown) {
                return (Long) deployment().call("EXISTS", name) == 0;
            } catch (IllegalMonitorStateException ranAfterAll) {
                return (Long) deployment().call("EXISTS", name) == 0;
            }
        }, () -> "the holder could not unlock after the failover");
        assertEquals(0L, deployment().call("EXISTS", name));
    }

    /**
     * Rule 28.15: on a cluster with sharded pub/sub, the master serving a sharded channel dies
     * ({@code SIGKILL}) and its replica is promoted: within {@value #AFTER_FAILOVER_SECONDS} s of
     * the promotion (a third of a lock's default lease) the channel is subscribed on the promoted
     * master, so a message published there arrives, and core is told of a reconnect (what was
     * published meanwhile is lost: every waiter polls once). A Redisson 4 client publishes its
     * releases sharded only. (Numbered with chapter 28, the driver under faults; it runs here, on
     * the failover kit's cluster, which this chapter breaks and heals anyway.)
     * When it fails: the driver's subscription lived on a connection to the dead node only and the
     * driver did not notice that link break: a node's pub/sub link going down must hand its sharded
     * channels back for routing (Lettuce's node connections report no event to the cluster
     * connection's listeners: listen on each node connection that carries an {@code SSUBSCRIBE}).
     */
    @Test
    void rule28_15_shardedChannelsMasterKilledAndReplicaPromoted_subscribedOnTheNewMasterAndCoreTold()
            throws Exception {
        RedisCluster cluster = (RedisCluster) deployment(); // clean() skipped it elsewhere
        Object nativeClient = kit.newNativeClient(cluster);
        kit.closeAfterTest(() -> kit.closeNativeClient(nativeClient));
        CommandExecutor executor = kit.closeAfterTest(kit.provider().create(nativeClient,
                new DriverOptions(Duration.ofSeconds(2), "relock-tck")));
        org.junit.jupiter.api.Assumptions.assumeTrue(executor.capabilities().contains(Capability.SHARDED_PUBSUB),
                "the executor declares no SHARDED_PUBSUB");
        AtomicInteger reconnects = new AtomicInteger();
        executor.setConnectionListener(reconnects::incrementAndGet);
        String channel = "tck:fo:{sharded}";
        List<String> heard = new CopyOnWriteArrayList<>();
        Subscription sub = executor.subscribe(channel, true, (c, message) -> heard.add(message))
                .get(20, TimeUnit.SECONDS);
        Await.until(Duration.ofSeconds(10),
                () -> DriverUnderFaultsChapter.spublishHeard(cluster, channel, "before", heard),
                () -> "the subscription heard nothing");
        RedisServer killed = cluster.killMasterOf(channel);
        long promoted = System.nanoTime();
        try {
            Await.until(Duration.ofSeconds(AFTER_FAILOVER_SECONDS),
                    () -> DriverUnderFaultsChapter.spublishHeard(cluster, channel, "after", heard) && reconnects.get() > 0,
                    () -> "after its master was killed and the replica promoted, the sharded "
                    + "channel " + (heard.contains("after") ? "is heard again"
                    : "is still deaf (a message published on the new master does not arrive)") + " and core was "
                    + (reconnects.get() > 0 ? "told" : "never told of a reconnect"));
            LOG.log(System.Logger.Level.INFO, "28.15: promotion to a sharded subscription on the new master {0} ms",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - promoted));
            sub.unsubscribe().get(20, TimeUnit.SECONDS);
        } finally {
            killed.start(); // it rejoins as a replica; the next rule's clean() waits until the cluster is healthy
        }
    }

    private void skipIfKnownIssue(String rule) {
        if (kit instanceof FailoverKit k) {
            String why = k.knownIssue(rule, deployment().kind());
            org.junit.jupiter.api.Assumptions.assumeTrue(why == null, () -> "known issue of this driver: " + why);
        }
    }

    // ---- deployment-specific faults ----

    /**
     * Waits until every replica of the key's node has the writes so far; fails if it has none.
     * WAIT counts only its own connection's writes, so it follows a short-lived barrier write in
     * the key's slot: replication is in order, so a replica that has the barrier has the locks.
     */
    private void replicate(String key) {
        int replicas = replicasOf(servingNode(key)).size();
        assertTrue(replicas > 0, "the node serving " + key + " has no replica: the deployment was not healed");
        try (RespClient c = deployment().adminFor(key)) {
            c.call("SET", "{" + key + "}:barrier", "1", "PX", "200");
            assertEquals((long) replicas, c.call("WAIT", Integer.toString(replicas), "5000"),
                    "not every replica acknowledged the locks");
        }
    }

    private long subscribers(String channel) {
        List<?> numsub = (List<?>) deployment().call("PUBSUB", "NUMSUB", channel);
        long total = (Long) numsub.get(1);
        try {
            List<?> shard = (List<?>) deployment().call("PUBSUB", "SHARDNUMSUB", channel);
            total += (Long) shard.get(1);
        } catch (RespClient.RespError beforeRedis7) {
            // no sharded pub/sub
        }
        return total;
    }

    private RedisServer servingNode(String key) {
        RedisTopology d = deployment();
        if (d instanceof RedisCluster c) {
            return c.masterFor(key);
        }
        return ((RedisSentinelGroup) d).primary();
    }

    private List<RedisServer> replicasOf(RedisServer master) {
        RedisTopology d = deployment();
        if (d instanceof RedisCluster c) {
            return c.replicasOf(master);
        }
        return d.dataNodes().stream().filter(n -> n != master).toList();
    }

    private RedisServer kill(String key) {
        RedisTopology d = deployment();
        if (d instanceof RedisCluster c) {
            return c.killMasterOf(key);
        }
        return ((RedisSentinelGroup) d).killPrimary();
    }

    private void failover(String key) {
        RedisTopology d = deployment();
        if (d instanceof RedisCluster c) {
            c.failover(c.replicasOf(c.masterFor(key)).get(0));
        } else {
            ((RedisSentinelGroup) d).failover();
        }
    }

    private void awaitPromotion(String key, RedisServer dead) {
        Await.until(Duration.ofSeconds(90), () -> {
            try {
                RedisServer now = servingNode(key);
                return now != dead && ((String) now.call("INFO", "replication")).contains("role:master");
            } catch (RuntimeException notYet) {
                return false;
            }
        }, () -> "no replica was promoted after " + dead + " died");
    }

    private void restart(RedisServer killed) {
        if (killed != null && deployment() instanceof RedisSentinelGroup g) {
            g.rejoin(killed); // as a replica of the new primary, not a second master
        } else if (killed != null) {
            killed.start(); // a cluster node rejoins as a replica by itself
        }
        heal();
    }

    private void heal() {
        RedisTopology d = deployment();
        if (d instanceof RedisCluster c) {
            // a node killed by an earlier rule that failed half-way is restarted here
            c.nodes().stream().filter(n -> !n.isRunning()).forEach(RedisServer::start);
            c.awaitHealthy(Duration.ofSeconds(90));
        } else if (d instanceof RedisSentinelGroup g) {
            g.nodes().stream().filter(n -> !n.isRunning()).forEach(g::rejoin);
            g.awaitHealthy(Duration.ofSeconds(90));
        }
    }
}
