package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.api.ServerFallback;
import io.github.relock.core.RedisLocks;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.fixtures.AclUser;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.BlackHoleProxy;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 28: the driver under the world's faults. What a driver must keep doing when the world
 * around its client misbehaves the way deployments do every day: the application has taken every
 * connection of its own pool (normal under load, or with blocking commands), Redis refuses a
 * channel to a least-privilege ACL user (Redis 7 gives a new user no channel by default), a slot
 * moved behind the client's slot cache (a reshard), the application's container stopped and
 * started the client (a Spring context restart or refresh), the server is loading, read-only or
 * busy for a while, a NAT that forgets an idle pub/sub flow without a reset. The faults come from
 * the kit's fixtures ({@link AclUser}, {@link RedisCluster#moveEmptySlot}, {@link BlackHoleProxy})
 * and the driver kit's hooks ({@link DriverKit#exhaustPool},
 * {@link DriverKit#newNativeClient(RedisTopology, String, String)},
 * {@link DriverKit#newNativeClient(BlackHoleProxy)}, {@link DriverKit#restartNativeClient}),
 * so a third-party driver's author runs the same rules by overriding the hooks; a rule whose hook
 * the kit leaves at its default, or that needs another topology, is skipped with the reason.
 *
 * <p>When a rule fails: look at what the driver does on the one thread core lends it (nodeOfSlot on
 * core's timer must not wait for a pooled connection) and at where a pub/sub connection goes when
 * its session ends in an error (never back into the application's pool), at what the driver
 * keeps of a client that was stopped (reopen from the client as it is now), at how it
 * classifies an error reply ({@link io.github.relock.spi.ErrorReplies}), and whether its pub/sub
 * links are probed (a link that only reads never learns that its flow is gone).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("driver-faults")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class DriverUnderFaultsChapter extends TckChapter {
    private static final long DEADLINE_SECONDS = 10;
    private static final Duration DEADLINE = Duration.ofSeconds(DEADLINE_SECONDS);
    private static final Duration WATCHDOG = Duration.ofSeconds(3);
    private static final String LOCK = "tck:faults:pool";
    private static final String ALLOWED = "tck:acl:ok";
    private static final String RESTARTED = "tck:restarted:";
    private static final String RESTART_LOCK = "tck:faults:restart";
    private static final String NO_RESTART = "the kit's client has no life cycle to stop and start again "
            + "(DriverKit.restartNativeClient answers false)";
    private static final String NO_RESTART_BECAUSE = "needs a native client the application stops and starts again"
            + " (DriverKit.restartNativeClient), as Spring's connection factories";
    /** The pub/sub probe interval of rules 28.10 and 28.11: short, so that they run quickly. */
    private static final Duration PROBE = Duration.ofMillis(100);
    /** The command timeout of rules 28.10 and 28.11: how long a probe waits for its answer. */
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(750);
    /** What rules 28.10 and 28.11 allow beyond the probe interval and a command timeout: a reconnect under load. */
    private static final long SLACK_MS = 2000;
    /** The tag of the rules about what a server lacks (28.18-28.20), which the kit's Redis 6.2 classes run. */
    static final String SERVERS = "servers";
    private static final String FALLBACK_BECAUSE = "checks the engine's fallback when the server lacks a feature;"
            + " needs a server that lacks it (Redis 6.2) or an ACL user";
    /** The holder's lease in rule 28.18: the bound of the polling waiter. */
    private static final Duration POLL_LEASE = Duration.ofMillis(400);
    /** The watchdog timeout of rule 28.20: renewal rounds every 300 ms. */
    private static final Duration FLAGS_WATCHDOG = Duration.ofMillis(900);
    private static final String NO_POOL = "the kit's client has no pool the application can exhaust "
            + "(DriverKit.exhaustPool answers null)";

    /** @param kit the enclosing kit */
    protected DriverUnderFaultsChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 28.1: on a cluster, {@code nodeOfSlot} answers, the same as with the pool free, while
     * the application holds every pooled connection of the slot's master: it reads the client's
     * slot cache and neither borrows a connection nor makes a round trip, as the SPI says.
     * When it fails: the driver finds a slot's master by borrowing a connection for the slot
     * (Jedis' {@code getConnectionFromSlot}), which waits for the application to give one back
     * (forever, by default). Core asks on its timer thread, so renewals and loss deadlines stop
     * with it; read the slot cache's own map of slots to nodes instead, or answer null.
     */
    @Test
    void rule28_1_nodeOfSlot_applicationHoldsEveryPooledConnectionOfTheNode_answersWithoutWaiting() throws Exception {
        assumeTrue(kit.topology().kind() == RedisTopology.Kind.CLUSTER, "core asks nodeOfSlot on a cluster only");
        Object nativeClient = kit.nativeClient();
        CommandExecutor executor = kit.closeAfterTest(kit.provider().create(nativeClient,
                new DriverOptions(Duration.ofSeconds(5), "relock-tck")));
        assumeTrue(executor.capabilities().contains(Capability.CLUSTER), "the executor does not declare CLUSTER");
        int slot = RedisCluster.slot(LOCK);
        Object free = executor.nodeOfSlot(slot);
        AutoCloseable held = kit.exhaustPool(nativeClient, LOCK);
        assumeTrue(held != null, NO_POOL);
        CompletableFuture<Object> answer = new CompletableFuture<>();
        Thread asking = new Thread(() -> {
            try {
                answer.complete(executor.nodeOfSlot(slot));
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        }, "tck-node-of-slot");
        try {
            asking.start();
            Await.until(DEADLINE, answer::isDone, () -> "nodeOfSlot(" + slot + ") has not answered while the"
                    + " application holds every pooled connection of the slot's master; it is waiting in:\n"
                    + stack(asking));
        } finally {
            held.close();
            asking.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertEquals(free, answer.get(), "nodeOfSlot must answer as it does with the pool free");
    }

    /**
     * Rule 28.2: with every pooled connection of its master held by the application, a
     * watchdog-held lock is still renewed, or its holder is told it lost it before its key can
     * expire: no other client can be granted a lock its holder still believes it holds.
     * When it fails: the holder's key expired and no {@code RENEWAL_FAILED} had been reported:
     * something blocked core's timer thread (the deadline sweep runs there), most likely a driver
     * call core makes synchronously on it ({@code nodeOfSlot}, rule 28.1) or a blocking async call.
     */
    @Test
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "engine: core keeps the driver's calls that may"
            + " block off the thread that sweeps loss deadlines; what the driver must do is rule 28.1")
    void rule28_2_watchdogLock_applicationHoldsEveryPooledConnectionOfItsNode_renewedOrToldLostBeforeExpiry()
            throws Exception {
        Object nativeClient = kit.nativeClient();
        LockClient client = kit.closeAfterTest(RedisLocks.create(kit.provider(), nativeClient, LockOptions.builder()
                .lockWatchdogTimeout(WATCHDOG).commandTimeout(Duration.ofSeconds(1)).build()));
        AtomicLong toldAt = new AtomicLong();
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        client.addLockLostListener(e -> {
            toldAt.compareAndSet(0, System.nanoTime());
            lost.add(e);
        });
        DistributedLock lock = client.getLock(LOCK);
        lock.lock();
        AutoCloseable held = kit.exhaustPool(nativeClient, LOCK);
        if (held == null) {
            lock.unlock();
            assumeTrue(false, NO_POOL);
        }
        AtomicLong goneAt = new AtomicLong();
        try {
            long renewedLongEnough = System.nanoTime() + WATCHDOG.multipliedBy(3).toNanos();
            Await.until(WATCHDOG.multipliedBy(4), () -> {
                if (toldAt.get() != 0) {
                    return true;
                }
                if (pttl(LOCK) == -2) {
                    goneAt.set(System.nanoTime()); // the key expired at or before this
                    return true;
                }
                return System.nanoTime() - renewedLongEnough > 0; // renewed all along
            }, () -> "");
            if (goneAt.get() != 0 && toldAt.get() == 0) {
                // a report after this moment is late, but say how late
                Await.until(Duration.ofSeconds(5), () -> toldAt.get() != 0, () -> "");
            }
        } catch (AssertionError stillNotTold) {
            // reported below with the timings
        } finally {
            held.close();
        }
        long told = toldAt.get();
        long gone = goneAt.get();
        if (gone != 0) {
            assertTrue(told != 0 && told - gone <= 0, () -> "the lock's key expired while its holder still believed"
                    + " it held it: " + (told == 0 ? "no loss was reported"
                    : "the loss was reported " + TimeUnit.NANOSECONDS.toMillis(told - gone) + " ms after the key was"
                    + " seen gone") + "; events: " + lost);
        }
        if (lost.isEmpty()) {
            lock.unlock(); // renewed all along
        } else {
            assertEquals(LockLostEvent.Reason.RENEWAL_FAILED, lost.get(0).reason(), () -> "events: " + lost);
            redis("DEL", LOCK); // a renewal queued behind the held connections must not keep it
        }
    }

    /**
     * Rule 28.3: Redis refuses a {@code SUBSCRIBE} (an ACL user without the channel) while the
     * executor's pub/sub connection carries another channel: the subscribe fails, and the
     * application's connections still answer their own commands. Under load (script calls through
     * the executor, messages published on the other channel), ten refusals later every script got
     * its own reply, and no more than one connection of the user is left subscribed (the
     * executor's pub/sub connection).
     * When it fails: the pub/sub session ended with the error reply and its connection went back
     * into the client's pool still subscribed to the other channels; commands that borrow it read
     * pub/sub frames ({@code message}, {@code subscribe}) or {@code ERR Can't execute} as their
     * replies. A connection whose subscription ended in an error must be closed, never pooled.
     */
    @Test
    void rule28_3_subscribeRefusedByAcl_applicationsConnectionsStillAnswerTheirOwnCommands() throws Exception {
        AclUser user = kit.closeAfterTest(AclUser.withChannels(kit.topology(), ALLOWED + "*"));
        Object nativeClient = kit.newNativeClient(kit.topology(), user.name(), user.password());
        assumeTrue(nativeClient != null, "the kit cannot make a client that logs in as an ACL user"
                + " (DriverKit.newNativeClient(RedisTopology, String, String) answers null)");
        kit.closeAfterTest(() -> kit.closeNativeClient(nativeClient));
        CommandExecutor executor = kit.closeAfterTest(kit.provider().create(nativeClient,
                new DriverOptions(Duration.ofSeconds(5), "relock-tck")));
        Subscription allowed = executor.subscribe(ALLOWED, false, (channel, message) -> { })
                .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        Script echo = new Script("tck-echo", "return ARGV[1]");
        List<String> wrong = new CopyOnWriteArrayList<>();
        AtomicInteger replies = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> load = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            String id = "t" + t + ":";
            load.add(new Thread(() -> {
                for (int i = 0; !stop.get(); i++) {
                    String mine = id + i;
                    try {
                        Object reply = executor.eval(ScriptCall.byText(echo, List.of(), List.of(mine)));
                        if (!mine.equals(reply)) {
                            wrong.add(mine + " got " + reply);
                        }
                    } catch (RuntimeException e) {
                        wrong.add(mine + " got " + e);
                    }
                    replies.incrementAndGet();
                }
            }, "tck-acl-load-" + t));
        }
        load.add(new Thread(() -> {
            try (RespClient publisher = kit.topology().adminFor(ALLOWED)) {
                for (int i = 0; !stop.get(); i++) {
                    publisher.call("PUBLISH", ALLOWED, Integer.toString(i));
                }
            }
        }, "tck-acl-publisher"));
        load.forEach(Thread::start);
        try {
            for (int i = 0; i < 10; i++) {
                CompletableFuture<Subscription> refused = executor.subscribe("tck:acl:denied:" + i, false,
                        (channel, message) -> { });
                assertThrows(ExecutionException.class, () -> refused.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS),
                        "Redis refuses the channel to this user: the subscribe must fail");
                Await.until(DEADLINE, () -> numsub(ALLOWED) > 0, () -> "the allowed channel was not subscribed"
                        + " again after the refusal");
                int before = replies.get();
                Await.until(DEADLINE, () -> replies.get() > before + 20, () -> "the application's scripts stopped");
            }
        } finally {
            stop.set(true);
            for (Thread t : load) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        assertEquals(List.of(), wrong.stream().limit(5).toList(), () -> wrong.size() + " of " + replies.get()
                + " scripts got another reply than their own after Redis refused a SUBSCRIBE");
        Await.until(DEADLINE, () -> user.subscribedConnections() <= 1, () -> user.subscribedConnections()
                + " connections of " + user + " are subscribed: a pub/sub connection went back into the pool");
        allowed.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Rule 28.4: on a cluster with sharded pub/sub, a sharded subscribe that a node answers with
     * {@code MOVED} (its slot moved to another master behind the client's slot cache, as after a
     * reshard) is routed again and confirmed there, and another sharded channel of that node is not
     * disturbed: every message published to it meanwhile arrives, in order, and core is told of no
     * reconnect (which would wake every waiter of the client).
     * When it fails: the driver's pub/sub session on the node ended at the error reply and took
     * the node's other channels with it. A RESP2 subscription survives an error reply: read on,
     * and report the refused command's channels ({@code SessionTransport.Events.refused}), so only
     * that subscribe fails and the router routes it again.
     */
    @Test
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "needs a cluster and a driver with"
            + " SHARDED_PUBSUB, on Redis 7 or later")
    void rule28_4_shardedSubscribeAnsweredMoved_routedAgain_otherChannelsOfTheNodeUndisturbed() throws Exception {
        AtomicInteger reconnects = new AtomicInteger();
        CommandExecutor executor = shardedExecutor(reconnects);
        RedisCluster cluster = (RedisCluster) kit.topology();
        String steady = "tck:moved:{steady}";
        var node = cluster.masterFor(steady);
        String moving = null;
        for (int i = 0; moving == null; i++) {
            String c = "tck:moved:{m" + i + "}";
            if (RedisCluster.slot(c) != RedisCluster.slot(steady) && cluster.masterFor(c).port() == node.port()) {
                moving = c;
            }
        }
        var elsewhere = cluster.masters().stream().filter(m -> m.port() != node.port()).findFirst().orElseThrow();
        List<String> heard = new CopyOnWriteArrayList<>();
        Subscription steadySub = executor.subscribe(steady, true, (channel, message) -> heard.add(message))
                .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        int slot = RedisCluster.slot(moving);
        var before = cluster.moveEmptySlot(slot, elsewhere);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger published = new AtomicInteger();
        Thread publisher = new Thread(() -> {
            try (RespClient p = node.admin()) {
                while (!stop.get()) {
                    p.call("SPUBLISH", steady, Integer.toString(published.getAndIncrement()));
                }
            }
        }, "tck-moved-publisher");
        try {
            publisher.start();
            Await.until(DEADLINE, () -> published.get() > 20, () -> "the publisher did not start");
            List<String> movedHeard = new CopyOnWriteArrayList<>();
            Subscription movingSub = executor.subscribe(moving, true, (channel, message) -> movedHeard.add(message))
                    .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            int after = published.get();
            Await.until(DEADLINE, () -> published.get() > after + 20, () -> "the publisher stopped");
            stop.set(true);
            publisher.join(TimeUnit.SECONDS.toMillis(30));
            try (RespClient owner = elsewhere.admin()) {
                assertEquals(1L, owner.call("SPUBLISH", moving, "here"), "the moved channel is subscribed on its new master");
            }
            Await.until(DEADLINE, () -> movedHeard.contains("here"), () -> "the moved channel heard nothing");
            int sent = published.get();
            Await.until(DEADLINE, () -> heard.size() >= sent, () -> (sent - heard.size()) + " of " + sent
                    + " messages to the other channel of the node were lost while a subscribe there was answered MOVED");
            assertEquals(java.util.stream.IntStream.range(0, sent).mapToObj(Integer::toString).toList(), heard,
                    "the other channel's messages, in order");
            assertEquals(0, reconnects.get(), "core was told of a reconnect: every waiter of the client was woken");
            // before the slot moves back, so that no second move races with the unsubscribe
            movingSub.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            steadySub.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            stop.set(true);
            publisher.join(TimeUnit.SECONDS.toMillis(30));
            cluster.moveEmptySlot(slot, before);
        }
    }

    /**
     * Rule 28.21: on a cluster with replicas, a lock write sent with {@code WAIT} for a key whose
     * slot moved to another master behind the client's slot cache (a reshard, or a failover the
     * client has not learned yet) is routed again and runs exactly once: the blocking
     * {@code evalShaWithWait}, the async {@code evalWithWaitAsync} and a lock client with default
     * options (which waits for the node's connected replicas) each leave one hash field of value 1;
     * so does {@code evalShaWithWait} for a key of a slot being migrated, which its old master
     * answers with {@code ASK}.
     * When it fails: the driver sent the script and {@code WAIT} straight to the connection of the
     * node its cache names, and passed the node's {@code MOVED} on. A {@code MOVED} or {@code ASK}
     * reply means the node refused before running anything: route once more (refreshed slot table,
     * or the node the reply names); never send again after any other reply, since that script ran.
     */
    @Test
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "needs a cluster with replicas and a driver"
            + " with REPLICA_WAIT")
    void rule28_21_writeWithWaitForAMovedSlot_routedAgain_runsOnce() throws Exception {
        assumeTrue(kit.topology() instanceof RedisCluster, "needs a cluster: a slot moves between its masters");
        RedisCluster cluster = (RedisCluster) kit.topology();
        String tag = null;
        RedisServer node = null;
        for (int i = 0; tag == null; i++) { // an empty slot whose master has a replica
            String t = "{tck:moved-wait:" + i + "}";
            RedisServer m = cluster.masterFor(t);
            if ((Long) m.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(RedisCluster.slot(t))) == 0
                    && cluster.replicasOf(m).stream().anyMatch(RedisServer::isRunning)) {
                tag = t;
                node = m;
            }
        }
        RedisServer from = node;
        var elsewhere = cluster.masters().stream().filter(m -> m.port() != from.port()).findFirst().orElseThrow();
        // Three clients that cache the slot's owner before it moves
        CommandExecutor blocking = kit.newExecutor();
        assumeTrue(blocking.capabilities().contains(Capability.REPLICA_WAIT), "the driver does not declare REPLICA_WAIT");
        CommandExecutor async = kit.newExecutor();
        LockClient locks = kit.newLockClient(LockOptions.builder().build());
        DistributedLock lock = locks.getLock(tag + ":lock");
        lock.isLocked(); // the client's first call: it has its slot table now
        String syncKey = tag + ":sync";
        String asyncKey = tag + ":async";
        Script once = new Script("tck-moved-wait", "-- " + java.util.UUID.randomUUID()
                + "\nreturn redis.call('hincrby', KEYS[1], ARGV[1], 1)");
        for (RedisServer m : cluster.masters()) {
            m.call("SCRIPT", "LOAD", once.text()); // EVALSHA finds it on whichever master serves the key
        }
        int slot = RedisCluster.slot(tag);
        RedisServer before = cluster.moveEmptySlot(slot, elsewhere);
        try {
            List<Object> sync = blocking.evalShaWithWait(once, List.of(syncKey), List.of("f"), 1, 1000);
            assertEquals(1L, sync.get(0), "evalShaWithWait ran the script once on the slot's new master");
            List<Object> viaAsync = async.evalWithWaitAsync(ScriptCall.byText(once, List.of(asyncKey), List.of("f")), 1,
                    1000, Lane.APPLICATION).get(DEADLINE_SECONDS, TimeUnit.SECONDS);
            assertEquals(1L, viaAsync.get(0), "evalWithWaitAsync ran the script once on the slot's new master");
            lock.lock();
            try {
                assertTrue(lock.isHeldByCurrentThread(), "the lock is held after lock() on the moved slot");
                assertEquals(1, lock.getHoldCount(), "the lock's hold count");
                assertEquals(1, ((List<?>) elsewhere.call("HGETALL", tag + ":lock")).size() / 2,
                        "fields of the lock's hash on the slot's new master");
            } finally {
                lock.unlock();
            }
            for (String key : List.of(syncKey, asyncKey)) {
                assertEquals(List.of("f", "1"), elsewhere.call("HGETALL", key), key + " on the slot's new master");
            }
        } finally {
            try (RespClient owner = cluster.adminFor(tag)) {
                owner.call("DEL", syncKey, asyncKey, tag + ":lock");
            }
            cluster.moveEmptySlot(slot, before);
        }
        askedWriteWithWait_runsOnceOnTheImportingMaster(cluster, blocking, once);
    }

    /**
     * Rule 28.21's {@code ASK}: a slot half-way to another master (its old one {@code MIGRATING},
     * the new one {@code IMPORTING}) answers a write of a key it does not hold with {@code ASK};
     * the write runs once, on the importing master.
     */
    private static void askedWriteWithWait_runsOnceOnTheImportingMaster(RedisCluster cluster, CommandExecutor executor,
                                                                     Script once) {
        String key = null;
        RedisServer source = null;
        for (int i = 0; key == null; i++) {
            String k = "{tck:ask-wait:" + i + "}";
            RedisServer m = cluster.masterFor(k);
            if ((Long) m.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(RedisCluster.slot(k))) == 0) {
                key = k;
                source = m;
            }
        }
        RedisServer from = source;
        RedisServer to = cluster.masters().stream().filter(m -> m.port() != from.port()).findFirst().orElseThrow();
        String slot = Integer.toString(RedisCluster.slot(key));
        to.call("CLUSTER", "SETSLOT", slot, "IMPORTING", (String) from.call("CLUSTER", "MYID"));
        from.call("CLUSTER", "SETSLOT", slot, "MIGRATING", (String) to.call("CLUSTER", "MYID"));
        try (RespClient importing = to.admin()) {
            List<Object> reply = executor.evalShaWithWait(once, List.of(key), List.of("f"), 1, 1000);
            assertEquals(1L, reply.get(0), "evalShaWithWait answered ASK ran the script once on the importing master");
            importing.call("ASKING");
            assertEquals(List.of("f", "1"), importing.call("HGETALL", key), key + " on the importing master");
        } finally {
            try (RespClient importing = to.admin()) {
                importing.call("ASKING");
                importing.call("DEL", key);
            }
            to.call("CLUSTER", "SETSLOT", slot, "STABLE");
            from.call("CLUSTER", "SETSLOT", slot, "STABLE");
        }
    }

    /**
     * Rule 28.5: after the native client was stopped and started again (a Spring connection
     * factory's {@code stop()} and {@code start()}, as a context restart, a Spring Cloud refresh or
     * a CRaC checkpoint does), the executor made before it still works: scripts run, a channel
     * subscribed before the restart hears its messages again without another subscribe to prompt
     * the driver (on the connection it had, if the restart left that open; else subscribed again
     * on a new one, and then core is told of the reconnect, so that its waiters look again for the
     * releases missed meanwhile), and a new subscribe is confirmed and hears its messages.
     * When it fails: the driver keeps the pub/sub connection of the client it first saw, which the
     * restart closed for good; notice the close (it is no break the client reconnects), reopen
     * from the client as it is once it runs again, and never report a stopped client as
     * {@link IllegalStateException}, which the SPI keeps for "the executor is closed" (core gives
     * up on a closed executor).
     */
    @Test
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = NO_RESTART_BECAUSE)
    void rule28_5_nativeClientStoppedAndStartedAgain_scriptsAndPubSubWork_earlierChannelsHearAgain() throws Exception {
        Object nativeClient = restartableClient();
        CommandExecutor executor = kit.closeAfterTest(kit.provider().create(nativeClient,
                new DriverOptions(Duration.ofSeconds(5), "relock-tck")));
        List<String> earlierHeard = new CopyOnWriteArrayList<>();
        List<String> laterHeard = new CopyOnWriteArrayList<>();
        Subscription earlier = executor.subscribe(RESTARTED + "earlier", false, (c, m) -> earlierHeard.add(m))
                .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        if (!kit.restartNativeClient(nativeClient)) {
            earlier.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            assumeTrue(false, NO_RESTART);
        }
        Script echo = new Script("tck-echo", "return ARGV[1]");
        assertEquals("ran", executor.eval(ScriptCall.byText(echo, List.of(RESTARTED + "key"), List.of("ran"))),
                "a script after the restart");
        // a restart's reopen is a cluster connect (topology, then the link) after the factory runs
        // again: seconds on a loaded machine, so three deadlines before it counts as never
        Await.until(DEADLINE.multipliedBy(3), () -> {
            redis("PUBLISH", RESTARTED + "earlier", "again");
            return earlierHeard.contains("again");
        }, () -> "the channel subscribed before the restart is not heard again (" + numsub(RESTARTED + "earlier")
                + " subscriber(s) of it now), though no other subscribe came to reopen the connection");
        Subscription later;
        try {
            later = executor.subscribe(RESTARTED + "later", false, (c, m) -> laterHeard.add(m))
                    .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("a subscribe after the client was stopped and started again failed with " + e.getCause()
                    + (e.getCause() instanceof IllegalStateException ? " (the SPI's \"executor closed\": every"
                    + " contended lock() fails from now on)" : ""), e.getCause());
        }
        Await.until(DEADLINE, () -> {
            redis("PUBLISH", RESTARTED + "later", "after");
            return laterHeard.contains("after");
        }, () -> "the channel subscribed after the restart heard nothing");
        later.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        earlier.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Rule 28.6: a lock client over a native client that was stopped and started again still
     * acquires a contended lock: its {@code lock()} waits while another client holds the lock and
     * takes it once that client releases, as it did before the restart, and not a TTL later.
     * When it fails: the waiter's subscribe fails after the restart (rule 28.5), and every
     * {@code lock()} or {@code tryLock(wait)} that has to wait fails with it.
     */
    @Test
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = NO_RESTART_BECAUSE)
    void rule28_6_nativeClientStoppedAndStartedAgain_contendedLockStillAcquired() throws Exception {
        Object nativeClient = restartableClient();
        LockClient waiting = kit.closeAfterTest(RedisLocks.create(kit.provider(), nativeClient, LockOptions.defaults()));
        LockClient holding = kit.newLockClient(LockOptions.defaults());
        assertContendedAcquire(holding, waiting, "before the restart");
        assumeTrue(kit.restartNativeClient(nativeClient), NO_RESTART);
        assertContendedAcquire(holding, waiting, "after the client was stopped and started again");
    }

    /**
     * @return a native client of this rule's own, closed after it: a restart that goes wrong on a
     *     loaded machine must not leave the kit's shared client broken for the rules after it
     */
    private Object restartableClient() {
        Object nativeClient = kit.newNativeClient(kit.topology());
        kit.closeAfterTest(() -> kit.closeNativeClient(nativeClient));
        return nativeClient;
    }

    /**
     * {@code holding} holds the lock while {@code waiting}'s caller waits for it, then releases it:
     * the caller gets it, long before the holder's TTL.
     */
    private void assertContendedAcquire(LockClient holding, LockClient waiting, String when) throws Exception {
        assertContendedAcquire(holding, waiting, RESTART_LOCK, when);
    }

    /** As {@link #assertContendedAcquire(LockClient, LockClient, String)}, on the lock {@code name}. */
    private void assertContendedAcquire(LockClient holding, LockClient waiting, String name, String when)
            throws Exception {
        String channel = "redisson_lock__channel:{" + name + "}";
        DistributedLock held = holding.getLock(name);
        held.lock();
        CompletableFuture<Boolean> waiter = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            DistributedLock lock = waiting.getLock(name);
            try {
                boolean got = lock.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                if (got) {
                    lock.unlock();
                }
                waiter.complete(got);
            } catch (Throwable e) {
                waiter.completeExceptionally(e);
            }
        }, "tck-contended-waiter");
        try {
            t.start();
            Await.until(DEADLINE, () -> waiter.isDone() || numsub(channel) > 0, () -> "the waiter " + when
                    + " neither subscribed nor gave up");
        } finally {
            held.unlock();
        }
        boolean got;
        try {
            got = waiter.get(DEADLINE.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("a contended lock() " + when + " failed: " + e.getCause(), e.getCause());
        } finally {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertTrue(got, "a contended lock() " + when + " was not granted within " + DEADLINE
                + " of its holder's release (its TTL is 30 s: the waiter missed the release)");
        // the waiter leaves its channel once it has the lock: the next round's waiter is then seen subscribing
        Await.until(DEADLINE, () -> numsub(channel) == 0, () -> "the waiter " + when + " left its channel subscribed");
    }

    /**
     * Rule 28.7: an error reply that says the server cannot serve <em>now</em> ({@code LOADING},
     * {@code READONLY}, {@code MASTERDOWN}, {@code TRYAGAIN}, {@code CLUSTERDOWN}, {@code BUSY})
     * is {@link RedisUnavailableException}, blocking and async, as a broken connection is; a
     * refusal ({@code NOPERM}, as an ACL answers, or any other code) stays
     * {@link RedisErrorException} with its code. The states are sent as a script's error replies
     * (the same bytes a server in that state sends), and {@code BUSY} also for real, from a server
     * running a script past its {@code busy-reply-threshold}.
     * When it fails: the driver maps every error reply to {@link RedisErrorException}, so core
     * takes a server that is loading, failing over or resharding for one that refuses the lock
     * for good, and gives up where it retries an unavailable server (a waiter, a release). Classify
     * the reply with {@link io.github.relock.spi.ErrorReplies#toException}.
     */
    @Test
    void rule28_7_transientServerStates_unavailable_refusalsStayRedisErrors() throws Exception {
        CommandExecutor executor = kit.newExecutor();
        String key = "tck:faults:{transient}";
        Script noperm = new Script("tck-noperm", "return redis.error_reply('NOPERM tck: this user has no permissions')");
        RedisErrorException refused = assertThrows(RedisErrorException.class,
                () -> executor.eval(ScriptCall.byText(noperm, List.of(key), List.of())), "NOPERM is a refusal");
        assertEquals("NOPERM", refused.errorCode(), refused.getMessage());
        assertInstanceOf(RedisErrorException.class, failureOf(executor.evalAsync(ScriptCall.byText(noperm, List.of(key), List.of()), Lane.APPLICATION)),
                "NOPERM is a refusal (async)");
        for (String code : List.of("LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "BUSY")) {
            Script replying = new Script("tck-" + code, "return redis.error_reply('" + code + " tck: cannot serve now')");
            assertUnavailable(executor, replying, key, code + " from a script");
        }

        Script echo = new Script("tck-echo", "return ARGV[1]");
        assertEquals("warm", executor.eval(ScriptCall.byText(echo, List.of(key), List.of("warm")))); // a connection before BUSY
        try (RespClient admin = kit.topology().adminFor(key)) {
            String threshold = String.valueOf(((List<?>) admin.call("CONFIG", "GET", "lua-time-limit")).get(1));
            admin.call("CONFIG", "SET", "lua-time-limit", "1");
            Thread looping = new Thread(() -> {
                try (RespClient c = kit.topology().adminFor(key)) {
                    c.call("EVAL", "while true do end", "1", key);
                } catch (RuntimeException killed) {
                    // SCRIPT KILL ends it with an error reply
                }
            }, "tck-busy-script");
            try {
                looping.start();
                Await.until(DEADLINE, () -> busy(admin), () -> "the server did not get busy");
                assertUnavailable(executor, echo, key, "BUSY from a server running a script");
            } finally {
                Await.until(DEADLINE, () -> {
                    try {
                        admin.call("SCRIPT", "KILL");
                    } catch (RespClient.RespError notBusy) {
                        // NOTBUSY: ended already
                    }
                    return !busy(admin);
                }, () -> "the busy script could not be killed");
                looping.join(TimeUnit.SECONDS.toMillis(30));
                admin.call("CONFIG", "SET", "lua-time-limit", threshold);
            }
        }
        assertEquals("served", executor.eval(ScriptCall.byText(echo, List.of(key), List.of("served"))), "the server serves again");
    }

    private static void assertUnavailable(CommandExecutor executor, Script script, String key, String what)
            throws Exception {
        Throwable blocking = assertThrows(Throwable.class, () -> executor.eval(ScriptCall.byText(script, List.of(key), List.of())));
        assertInstanceOf(RedisUnavailableException.class, blocking, () -> what + ": reported as " + blocking);
        Throwable async = failureOf(executor.evalAsync(ScriptCall.byText(script, List.of(key), List.of()), Lane.APPLICATION));
        assertInstanceOf(RedisUnavailableException.class, async, () -> what + " (async): reported as " + async);
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            f.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the call succeeded");
    }

    /** @return whether the node answers BUSY (a script runs past the threshold) */
    private static boolean busy(RespClient admin) {
        try {
            admin.call("PING");
            return false;
        } catch (RespClient.RespError e) {
            return String.valueOf(e.getMessage()).startsWith("BUSY");
        }
    }

    /**
     * Rule 28.16: on a cluster with sharded pub/sub, the connection carrying a sharded channel on
     * its node is cut ({@code CLIENT KILL}, as a network blip does) while the node stays master:
     * core is told of a reconnect within {@value #DEADLINE_SECONDS} s (a message published while
     * the link was down is lost, so every waiter polls once), and the channel is heard again.
     * When it fails: the driver reconnected the node's link (its client may even resubscribe by
     * itself) but never told core, so a release published in the gap is lost silently and a waiter
     * sleeps until the lock's lease runs out.
     */
    @Test
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "needs a cluster and a driver with"
            + " SHARDED_PUBSUB, on Redis 7 or later")
    void rule28_16_shardedChannelsNodeLinkCut_coreToldOfTheReconnectAndChannelHeardAgain() throws Exception {
        AtomicInteger reconnects = new AtomicInteger();
        CommandExecutor executor = shardedExecutor(reconnects);
        RedisCluster cluster = (RedisCluster) kit.topology();
        String channel = "tck:cut:{sharded}";
        List<String> heard = new CopyOnWriteArrayList<>();
        Subscription sub = executor.subscribe(channel, true, (c, message) -> heard.add(message))
                .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        Await.until(DEADLINE, () -> spublishHeard(cluster, channel, "before", heard), () -> "the subscription heard nothing");
        RedisServer node = cluster.masterFor(channel);
        int cut = 0;
        try (RespClient admin = node.admin()) {
            for (String line : String.valueOf(admin.call("CLIENT", "LIST")).split("\n")) {
                if (line.contains(" ssub=") && !line.contains(" ssub=0 ")) { // the links carrying sharded channels only
                    admin.call("CLIENT", "KILL", "ID", line.substring(3, line.indexOf(' ')));
                    cut++;
                }
            }
        }
        assertTrue(cut > 0, "no connection of " + node + " carries a sharded channel");
        Await.until(DEADLINE, () -> spublishHeard(cluster, channel, "after", heard) && reconnects.get() > 0,
                () -> "after the node's pub/sub link was cut, core was " + (reconnects.get() > 0 ? "told" : "never told")
                        + " and the channel " + (heard.contains("after") ? "is heard again" : "is still deaf"));
        sub.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Rule 28.17: the executor's pub/sub link breaks and its resubscribe of a channel is refused
     * (an operator took the channel from the ACL user, which makes Redis drop the user's subscribed
     * connections): core is still told of the reconnect within {@value #DEADLINE_SECONDS} s, so
     * every waiter polls once instead of sleeping until the lease runs out, and a channel the user
     * may still read is heard again within that bound: a message published on it reaches its
     * listener.
     * When it fails: the driver (or the SPI helper it delegates to) tells core only once every
     * channel is subscribed again, and says nothing when one resubscribe fails while the link stays
     * up: no next reconnect comes to tell it. Tell core once the resubscribes have settled, and
     * subscribe the failed ones again with a back-off while they are wanted. If the allowed channel
     * is what stays deaf, the driver resubscribed every channel in one command, which Redis refuses
     * whole when it refuses one channel: subscribe the channels of a refused command one per
     * command, so that only the refused one fails (the SPI's session helper does).
     */
    @Test
    void rule28_17_resubscribeRefusedAfterAReconnect_coreStillToldAndAllowedChannelHeardAgain() throws Exception {
        AclUser user = kit.closeAfterTest(AclUser.withChannels(kit.topology(), "tck:revoke:*"));
        Object nativeClient = kit.newNativeClient(kit.topology(), user.name(), user.password());
        assumeTrue(nativeClient != null, "the kit cannot make a client that logs in as an ACL user"
                + " (DriverKit.newNativeClient(RedisTopology, String, String) answers null)");
        kit.closeAfterTest(() -> kit.closeNativeClient(nativeClient));
        CommandExecutor executor = kit.closeAfterTest(kit.provider().create(nativeClient,
                new DriverOptions(Duration.ofSeconds(2), "relock-tck")));
        AtomicInteger reconnects = new AtomicInteger();
        executor.setConnectionListener(reconnects::incrementAndGet);
        String kept = "tck:revoke:kept";
        String taken = "tck:revoke:taken";
        List<String> heard = new CopyOnWriteArrayList<>();
        Subscription keptSub = executor.subscribe(kept, false, (c, message) -> heard.add(message))
                .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        Subscription takenSub = executor.subscribe(taken, false, (c, message) -> { })
                .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        user.allowOnlyChannels(kept); // Redis drops the connection subscribed to the taken channel
        Await.until(DEADLINE, () -> reconnects.get() > 0, () -> "the pub/sub link was dropped and its resubscribe of '"
                + taken + "' refused; core was never told, so the channel's waiters sleep until the lease runs out");
        Await.until(DEADLINE, () -> {
            redis("PUBLISH", kept, "after");
            return heard.contains("after");
        }, () -> "after the reconnect with '" + taken + "' refused, '" + kept + "', which the user may still read, is"
                + " deaf: a message published on it did not reach its listener within " + DEADLINE.toSeconds() + " s"
                + " (the driver resubscribed both channels in one command, which Redis refuses whole?)");
        takenSub.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        keptSub.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Skips the rule unless the kit runs on a cluster and its executor declares sharded pub/sub.
     *
     * @param reconnects counts what the executor tells core of reconnects
     * @return a new executor of the kit's cluster, closed after the test
     */
    private CommandExecutor shardedExecutor(AtomicInteger reconnects) {
        assumeTrue(kit.topology() instanceof RedisCluster, "sharded channels live on a cluster's nodes");
        CommandExecutor executor = kit.newExecutor();
        assumeTrue(executor.capabilities().contains(Capability.SHARDED_PUBSUB), "the executor declares no SHARDED_PUBSUB");
        executor.setConnectionListener(reconnects::incrementAndGet);
        return executor;
    }

    /** Publishes {@code message} on the channel's master now; @return whether the listener has heard it (now or before) */
    static boolean spublishHeard(RedisCluster cluster, String channel, String message, List<String> heard) {
        try (RespClient owner = cluster.masterFor(channel).admin()) {
            owner.call("SPUBLISH", channel, message);
        } catch (RuntimeException failingOver) {
            return false;
        }
        return heard.contains(message);
    }

    /**
     * Rule 28.10: a waiter whose pub/sub connection was dropped without a reset (a NAT or load
     * balancer forgot the idle flow: {@link BlackHoleProxy#dropPubSub()}) is woken by a release
     * within the pub/sub probe interval plus one command timeout (and {@value #SLACK_MS} ms for
     * the reconnect), not after the lock's TTL (30 s). The waiter's client probes every
     * 100 ms ({@link LockOptions#pubSubProbeInterval()}) with a command timeout of 750 ms; its
     * commands still flow.
     * When it fails: the driver never noticed that its pub/sub connection went silent (a
     * connection that only reads never learns that the flow is gone), so the release's message was
     * lost and the waiter slept its TTL. Probe the link ({@code PING} in subscribed mode, answered
     * within the command timeout; the SPI's helpers do it for a transport that implements
     * {@code ping}), and break and reopen it when the answer does not come.
     */
    @Test
    void rule28_10_pubSubLinkDroppedWithoutReset_waiterWokenWithinProbeIntervalPlusCommandTimeoutOfTheRelease()
            throws Exception {
        BlackHoleProxy proxy = blackHoleProxy();
        Object nativeClient = proxiedClient(proxy);
        String name = "tck:faults:silent";
        String channel = "redisson_lock__channel:{" + name + "}";
        LockClient waiting = kit.closeAfterTest(RedisLocks.create(kit.provider(), nativeClient, LockOptions.builder()
                .commandTimeout(PROBE_TIMEOUT).pubSubProbeInterval(PROBE).build()));
        DistributedLock held = client().getLock(name);
        held.lock(); // the watchdog's TTL, 30 s: what the waiter sleeps when it hears nothing
        CompletableFuture<Long> acquiredAt = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                DistributedLock lock = waiting.getLock(name);
                long until = System.nanoTime() + DEADLINE.multipliedBy(2).toNanos();
                boolean got;
                while (true) {
                    try {
                        got = lock.tryLock(DEADLINE.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
                        break;
                    } catch (RedisUnavailableException subscribeNotConfirmed) {
                        // A wait fails when its subscribe is not confirmed within the command
                        // timeout: a driver may open its pub/sub connection at the first subscribe
                        // (slow on a loaded machine), and the drop may swallow the confirmation of
                        // one the server already counts. The caller waits again, on the reopened link.
                        if (System.nanoTime() - until > 0) {
                            throw subscribeNotConfirmed;
                        }
                    }
                }
                if (got) {
                    long at = System.nanoTime();
                    lock.unlock(); // before the proxy closes, so that no key is left behind
                    acquiredAt.complete(at);
                } else {
                    acquiredAt.completeExceptionally(new AssertionError("the waiter's tryLock timed out"));
                }
            } catch (Throwable t) {
                acquiredAt.completeExceptionally(t);
            }
        }, "tck-silent-link-waiter");
        try {
            waiter.start();
            Await.until(DEADLINE, () -> acquiredAt.isDone() || numsub(channel) > 0 && proxy.livePubSubConnections() > 0,
                    () -> "the waiter did not subscribe to " + channel + " through the proxy: " + numsub(channel)
                    + " subscriber(s), " + proxy.livePubSubConnections() + " pub/sub connection(s) through the proxy");
            assertTrue(!acquiredAt.isDone(), () -> "the waiter ended before the release: " + acquiredAt);
            proxy.dropPubSub();
            long released = System.nanoTime();
            held.unlock();
            Await.until(DEADLINE, acquiredAt::isDone, () -> "the waiter was not woken " + DEADLINE.toSeconds()
                    + " s after the release while its pub/sub connection was silent: the driver did not notice"
                    + " the dropped link (probe every " + PROBE.toMillis() + " ms, command timeout "
                    + PROBE_TIMEOUT.toMillis() + " ms); it would sleep out the lock's TTL");
            long tookMs = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - released);
            long boundMs = PROBE.plus(PROBE_TIMEOUT).toMillis() + SLACK_MS;
            assertTrue(tookMs <= boundMs, () -> "the waiter got the lock " + tookMs + " ms after the release; the"
                    + " bound is the probe interval plus one command timeout plus " + SLACK_MS + " ms = " + boundMs + " ms");
        } finally {
            proxy.close(); // the server side of a dropped link stays subscribed until its socket closes
            waiter.join(DEADLINE.multipliedBy(3).toMillis());
            if (held.isHeldByCurrentThread()) {
                held.unlock();
            }
        }
    }

    /**
     * Rule 28.11: the driver reports a pub/sub connection dropped without a reset, and reopened,
     * to core: with its link silent ({@link BlackHoleProxy#dropPubSub()}), the executor calls
     * {@link io.github.relock.spi.ConnectionListener#onReconnect()} within the probe interval
     * ({@link DriverOptions#pubSubProbeInterval()}) plus one command timeout (and
     * {@value #SLACK_MS} ms), and a message published after that reaches the subscription's
     * listener over the new connection.
     * When it fails: no {@code onReconnect} came: the driver's pub/sub does not probe its
     * connection, or breaks it without reopening it, or reopens it without telling core (which
     * then never makes its waiters poll for the messages lost meanwhile). If the message is what
     * is missing, the reopened connection did not subscribe the channel again.
     */
    @Test
    void rule28_11_pubSubLinkDroppedWithoutReset_driverTellsCoreOnceReopened_messagesFlowAgain() throws Exception {
        BlackHoleProxy proxy = blackHoleProxy();
        Object nativeClient = proxiedClient(proxy);
        CommandExecutor executor = kit.closeAfterTest(kit.provider().create(nativeClient,
                new DriverOptions(PROBE_TIMEOUT, "relock-tck", PROBE)));
        AtomicLong toldAt = new AtomicLong();
        executor.setConnectionListener(() -> toldAt.compareAndSet(0, System.nanoTime()));
        String channel = "tck:faults:silent-link";
        List<String> heard = new CopyOnWriteArrayList<>();
        Subscription sub = executor.subscribe(channel, false, (c, message) -> heard.add(message))
                .get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        try {
            redis("PUBLISH", channel, "before");
            Await.until(DEADLINE, () -> heard.contains("before"), () -> "the subscription heard nothing before the drop");
            proxy.dropPubSub();
            long dropped = System.nanoTime();
            Await.until(DEADLINE, () -> toldAt.get() != 0, () -> "the pub/sub connection was dropped without a reset "
                    + DEADLINE.toSeconds() + " s ago and the driver has not told core of a reconnect (probe every "
                    + PROBE.toMillis() + " ms, command timeout " + PROBE_TIMEOUT.toMillis() + " ms); " + heard.size()
                    + " message(s) heard, " + proxy.droppingConnections() + " dropped connection(s) still open");
            long tookMs = TimeUnit.NANOSECONDS.toMillis(toldAt.get() - dropped);
            long boundMs = PROBE.plus(PROBE_TIMEOUT).toMillis() + SLACK_MS;
            assertTrue(tookMs <= boundMs, () -> "core was told of the reconnect " + tookMs + " ms after the drop; the"
                    + " bound is the probe interval plus one command timeout plus " + SLACK_MS + " ms = " + boundMs + " ms");
            Await.until(DEADLINE, () -> {
                redis("PUBLISH", channel, "after");
                return heard.contains("after");
            }, () -> "core was told of a reconnect, but the subscription hears nothing: " + heard);
            sub.unsubscribe().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            proxy.close(); // the server side of a dropped link stays subscribed until its socket closes
        }
    }

    /**
     * Rule 28.18: a waiter whose subscription Redis refuses (an ACL user denied {@code SUBSCRIBE}:
     * what a proxy without pub/sub does) still gets the lock, by polling: each
     * park bounded by the TTL its last attempt saw, so it acquires within about that TTL of the
     * holder's lease running out; and the client reports {@link ServerFallback#TTL_POLLING} through
     * its event listener once, however many waits were refused.
     * When it fails: the engine ends a wait whose subscribe was refused with the refusal (the
     * waiter's {@code tryLock} throws {@code NOPERM}), or reports the fallback per wait; or the driver
     * never completes a refused subscribe (rule 28.3), so the wait sits out its subscription timeout.
     */
    @Test
    @Tag(SERVERS)
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = FALLBACK_BECAUSE)
    void rule28_18_subscriptionRefused_waiterPollsWithinTheTtlItSawAndTheFallbackIsReportedOnce() throws Exception {
        AclUser user = kit.closeAfterTest(AclUser.withoutSubscribe(kit.topology()));
        Object nativeClient = kit.newNativeClient(kit.topology(), user.name(), user.password());
        assumeTrue(nativeClient != null, "the kit cannot make a client that logs in as an ACL user"
                + " (DriverKit.newNativeClient(RedisTopology, String, String) answers null)");
        kit.closeAfterTest(() -> kit.closeNativeClient(nativeClient));
        Fallbacks fallbacks = new Fallbacks();
        LockClient waiting = kit.closeAfterTest(RedisLocks.create(kit.provider(), nativeClient,
                LockOptions.builder().eventListener(fallbacks).build()));
        LockClient holding = kit.newLockClient(LockOptions.defaults());
        List<String> names = List.of("tck:poll:a", "tck:poll:b"); // two waits, refused at once: one report
        for (String name : names) {
            holding.getLock(name).lock(POLL_LEASE);
        }
        long start = System.nanoTime();
        List<CompletableFuture<Long>> waits = new ArrayList<>();
        for (String name : names) {
            CompletableFuture<Long> took = new CompletableFuture<>();
            waits.add(took);
            Thread t = new Thread(() -> {
                DistributedLock lock = waiting.getLock(name);
                try {
                    boolean got = lock.tryLock(DEADLINE);
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    if (got) {
                        lock.unlock();
                    }
                    took.complete(got ? ms : -1);
                } catch (Throwable e) {
                    took.completeExceptionally(e);
                }
            }, "tck-poll-waiter-" + name);
            t.setDaemon(true);
            t.start();
        }
        long bound = POLL_LEASE.toMillis() + SLACK_MS;
        for (int i = 0; i < names.size(); i++) {
            long ms;
            try {
                ms = waits.get(i).get(DEADLINE_SECONDS + 5, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("a waiter whose SUBSCRIBE Redis refused failed instead of polling: "
                        + e.getCause(), e.getCause());
            }
            String name = names.get(i);
            assertTrue(ms >= 0, () -> "the waiter for " + name + " did not get the lock within " + DEADLINE);
            assertTrue(ms <= bound, () -> "the waiter for " + name + " got the lock " + ms + " ms after it started;"
                    + " the holder's lease was " + POLL_LEASE.toMillis() + " ms, so a poll bounded by the TTL it saw"
                    + " takes at most " + bound + " ms");
        }
        // The refusal is told on the thread that meets it (a driver's I/O thread): it may land after a
        // wait it ended, and a second refusal must not be told again.
        Await.until(Duration.ofSeconds(DEADLINE_SECONDS), () -> fallbacks.kinds().contains(ServerFallback.TTL_POLLING),
                () -> "two waits were refused a subscription; the client must report TTL_POLLING once: " + fallbacks);
        assertEquals(1, fallbacks.kinds().stream().filter(ServerFallback.TTL_POLLING::equals).count(), () -> "two"
                + " waits were refused a subscription; the client must report TTL_POLLING once: " + fallbacks);
    }

    /**
     * Rule 28.19: on a cluster whose servers have no sharded pub/sub (Redis 6.2: no
     * {@code SSUBSCRIBE}), waiters listen on classic pub/sub and still wake at the holder's release,
     * long before its TTL, and the client reports {@link ServerFallback#CLASSIC_PUBSUB} once; on a
     * server that has it, nothing is reported. Runs on a cluster (a single server and Sentinel use
     * classic pub/sub only); the kit's Redis 6.2 class runs it where it falls back.
     * When it fails: the engine fails a wait whose sharded subscribe was refused, keeps sending
     * {@code SSUBSCRIBE} for every channel, or does not say that it fell back.
     */
    @Test
    @Tag(SERVERS)
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = FALLBACK_BECAUSE)
    void rule28_19_clusterWithoutShardedPubSub_waitersWakeOnClassicAndTheFallbackIsReportedOnce() throws Exception {
        assumeTrue(kit.topology().kind() == RedisTopology.Kind.CLUSTER, "a single server and Sentinel use classic"
                + " pub/sub only: there is nothing to fall back from");
        boolean hasSharded = serverAnswers("PUBSUB", "SHARDCHANNELS")
                && kit.newExecutor().capabilities().contains(Capability.SHARDED_PUBSUB);
        Fallbacks fallbacks = new Fallbacks();
        LockClient waiting = kit.newLockClient(LockOptions.builder().eventListener(fallbacks).build());
        LockClient holding = kit.newLockClient(LockOptions.defaults());
        for (String name : List.of("tck:sharded:a", "tck:sharded:b")) { // two channels, one report
            // the holder's watchdog TTL is 30 s: only a message wakes the waiter in time
            assertContendedAcquire(holding, waiting, name, "on " + name + " (sharded pub/sub "
                    + (hasSharded ? "used" : "missing") + ")");
        }
        assertEquals(hasSharded ? List.of() : List.of(ServerFallback.CLASSIC_PUBSUB), fallbacks.kinds(),
                () -> "the servers " + (hasSharded ? "have sharded pub/sub and the driver uses it"
                        : "or the driver lack sharded pub/sub") + "; reported: " + fallbacks);
    }

    /**
     * Rule 28.20: on a cluster whose servers refuse script flags (Redis 6.2 cannot compile
     * {@code #!lua flags=allow-cross-slot-keys}), locks of several slots of one node stay held under
     * the watchdog, renewed slot by slot, and the client reports
     * {@link ServerFallback#PER_SLOT_RENEWAL} once, not every renewal period; on a server that takes
     * the flag, nothing is reported. Runs on a cluster (a single server renews every lock in one
     * script without flags).
     * When it fails: a renewal batch per node fails on every round (locks lost if the per-slot
     * retry is missing), or the client does not say that it fell back.
     */
    @Test
    @Tag(SERVERS)
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = FALLBACK_BECAUSE)
    void rule28_20_clusterWithoutScriptFlags_locksRenewedSlotBySlotAndTheFallbackIsReportedOnce() throws Exception {
        assumeTrue(kit.topology() instanceof RedisCluster, "a single server renews every lock in one script"
                + " without flags: there is nothing to fall back from");
        RedisCluster cluster = (RedisCluster) kit.topology();
        boolean takesFlags = cluster.dataNodes().stream().allMatch(RedisServer::takesScriptFlags);
        // Core batches a node's locks only where the driver names the node serving a slot
        boolean batchesByNode = kit.newExecutor().nodeOfSlot(0) != null;
        List<String> names = new ArrayList<>(); // three locks of three slots that one master serves
        RedisServer master = null;
        for (int i = 0; names.size() < 3; i++) {
            String name = "tck:flags:" + i;
            RedisServer m = cluster.masterFor(name);
            if ((master == null || m.port() == master.port())
                    && names.stream().noneMatch(n -> RedisCluster.slot(n) == RedisCluster.slot(name))) {
                master = m;
                names.add(name);
            }
        }
        Fallbacks fallbacks = new Fallbacks();
        LockClient client = kit.newLockClient(LockOptions.builder().lockWatchdogTimeout(FLAGS_WATCHDOG)
                .eventListener(fallbacks).build());
        List<DistributedLock> locks = new ArrayList<>();
        for (String name : names) {
            DistributedLock lock = client.getLock(name);
            lock.lock();
            locks.add(lock);
        }
        try {
            Await.until(DEADLINE, () -> fallbacks.renewed.get() >= 2L * names.size(), () -> "two renewal rounds of "
                    + names.size() + " locks did not complete: " + fallbacks.renewed.get() + " renewed, "
                    + fallbacks.failed.get() + " failed; " + fallbacks);
            for (DistributedLock lock : locks) {
                assertTrue(lock.isHeldByCurrentThread(), () -> lock.getName() + " was lost under the watchdog: " + fallbacks);
            }
            assertEquals(List.of(), fallbacks.lost, "locks were reported lost");
            List<ServerFallback> renewal = fallbacks.kinds().stream()
                    .filter(ServerFallback.PER_SLOT_RENEWAL::equals).toList();
            assertEquals(takesFlags || !batchesByNode ? List.of() : List.of(ServerFallback.PER_SLOT_RENEWAL), renewal,
                    () -> "the servers " + (takesFlags ? "take" : "refuse") + " script flags and the driver "
                    + (batchesByNode ? "names" : "does not name") + " the node of a slot; reported: " + fallbacks);
        } finally {
            for (DistributedLock lock : locks) {
                lock.unlock();
            }
        }
    }

    /** @return whether every data node of the kit's deployment answers the command (false: one refuses it) */
    private boolean serverAnswers(String... command) {
        for (RedisServer node : kit.topology().dataNodes()) {
            try (RespClient c = node.admin()) {
                c.call(command);
            } catch (RespClient.RespError refused) {
                return false;
            }
        }
        return true;
    }

    /** Records the server fallbacks, renewals and losses a lock client reports. */
    private static final class Fallbacks implements LockEventListener {
        final List<String> reported = new CopyOnWriteArrayList<>();
        final List<String> lost = new CopyOnWriteArrayList<>();
        final AtomicLong renewed = new AtomicLong();
        final AtomicLong failed = new AtomicLong();

        @Override
        public void serverFallback(ServerFallback fallback, String cause) {
            reported.add(fallback.name() + " (" + cause + ")");
        }

        @Override
        public void renewalBatch(int ok, int notOk, Duration duration) {
            renewed.addAndGet(ok);
            failed.addAndGet(notOk);
        }

        @Override
        public void lost(String lockName, LockLostEvent.Reason reason) {
            lost.add(lockName + " " + reason);
        }

        List<ServerFallback> kinds() {
            return reported.stream().map(r -> ServerFallback.valueOf(r.substring(0, r.indexOf(' ')))).toList();
        }

        @Override
        public String toString() {
            return "fallbacks reported " + reported;
        }
    }

    /** @return a proxy in front of the kit's server, closed after the test; skips the rule elsewhere */
    private BlackHoleProxy blackHoleProxy() {
        assumeTrue(kit.topology() instanceof RedisServer, "the black-hole proxy stands in front of one server: a "
                + kit.topology().kind() + "'s nodes announce their own addresses, which bypass it");
        return kit.closeAfterTest(BlackHoleProxy.start(kit.server()));
    }

    /** @return the kit's native client through {@code proxy}, closed after the test; skips the rule when none */
    private Object proxiedClient(BlackHoleProxy proxy) {
        Object nativeClient = kit.newNativeClient(proxy);
        assumeTrue(nativeClient != null, "the kit cannot point its client at a proxy"
                + " (DriverKit.newNativeClient(BlackHoleProxy) answers null)");
        kit.closeAfterTest(() -> kit.closeNativeClient(nativeClient));
        return nativeClient;
    }

    /** @return how many subscribers Redis counts for a classic channel, over every node */
    private long numsub(String channel) {
        List<?> reply = (List<?>) redis("PUBSUB", "NUMSUB", channel);
        long n = 0;
        for (int i = 1; i < reply.size(); i += 2) {
            n += ((Number) reply.get(i)).longValue();
        }
        return n;
    }

    private static String stack(Thread t) {
        StringBuilder b = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            b.append("    at ").append(e).append('\n');
        }
        return b.toString();
    }
}
