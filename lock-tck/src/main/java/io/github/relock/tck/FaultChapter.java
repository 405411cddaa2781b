package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.FencedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.api.WaitingForLock;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 18: faults, measured. Each rule injects one fault between relock clients and a private
 * Redis (an in-JVM {@link TcpProxy}, {@code SIGSTOP}, {@code CLIENT PAUSE}, a restart with no
 * persistence, a {@link ChildJvm} killed with {@code SIGKILL}), records a {@link History} of every
 * grant, fenced write, release and {@code onLost}, and checks it. The protected resource is a
 * {@link FencedRegister} in the kit's own Redis, which no fault touches.
 *
 * <p>What every rule asserts, whatever the fault: the fenced register accepted no token lower than
 * one it had accepted ({@code stale accepted = 0}); no acknowledged write is missing; every
 * overlap (a grant while another holder still believed it held) was signalled to the stale holder
 * by {@code onLost}. Each rule adds what its fault must and must not do; the expected result is
 * in its javadoc.
 *
 * <p>Each rule runs {@code relock.faults.runs} times (system property, default 1; the {@code
 * faults} profile runs many) and appends its totals to {@code target/faults/<kit>.tsv}, which
 * {@link FaultReport} turns into {@code docs/FAULTS.md}. Rules need a server the kit may stop and
 * a single-server kit; elsewhere they are skipped with the reason (the failover chapter covers
 * clusters and Sentinel).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("faults")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL,
        because = "engine: the rules check lock-core's answer to a fault in the network or a process")
public abstract class FaultChapter extends TckChapter {
    /** System property: how many times each rule runs its scenario. */
    public static final String RUNS_PROPERTY = "relock.faults.runs";
    /** System property: the folder rules append their totals to (default {@code target/faults}). */
    public static final String DIR_PROPERTY = "relock.faults.dir";

    private static final Duration WATCHDOG = Duration.ofSeconds(2);
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String LOCK = "tck:faults:lock";
    private static final String CHANNEL = "redisson_lock__channel:{" + LOCK + "}";

    /** @param kit the enclosing kit */
    protected FaultChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 18.1: the holder is partitioned from Redis past its lease. Expected: the waiter is
     * granted once the holder's key expires; the holder's {@code onLost} fires (RENEWAL_FAILED)
     * within one lease of the partition; an overlap is possible and, if it happens, signalled; the
     * stale holder's fenced write after the new holder's is refused (stale accepted 0).
     * When it fails: the holder must be told {@code RENEWAL_FAILED} within a lease of the partition
     * (its renewals time out), and its fenced write must be refused: check the command timeout and
     * the watchdog's confirmation deadline.
     */
    @Test
    void rule18_1_holderPartitionedPastLease_waiterGranted_holderToldLost_staleWriteRefused() throws Exception {
        scenario("holder partitioned past its lease", (run, h, reg) -> {
            TcpProxy proxy = run.proxy();
            Actor a = run.actor("A", proxy.server());
            Actor b = run.actor("B", run.lockServer);
            long ta = a.acquireAndWrite(reg);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Long> bDone = b.inBackground(() -> {
                long tb = b.acquire();
                b.write(reg, tb);
                release.await();
                b.release();
                return tb;
            });
            run.awaitWaiting(b);
            h.fault("blackhole holder");
            proxy.blackhole();
            Await.until(DEADLINE, () -> h.events().stream().anyMatch(e -> e.actor().equals("B")
                    && e.op() == History.Op.WRITE_ACCEPTED), () -> "the waiter never wrote: " + h);
            Await.until(DEADLINE, () -> a.lost(), () -> "the partitioned holder was never told: " + h);
            a.write(reg, ta);
            proxy.heal();
            h.heal();
            a.release();
            release.countDown();
            bDone.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertTrue(h.events().stream().anyMatch(e -> e.actor().equals("A") && e.op() == History.Op.WRITE_REFUSED),
                    () -> "the stale holder's write was not refused: " + h);
            return 1;
        });
    }

    /**
     * Rule 18.2: a waiter is partitioned while the lock is released (it misses the unlock
     * message). Expected: after the heal the waiter is granted (progress), no overlap.
     * When it fails: a waiter that missed the unlock message must attempt again when its park ends
     * (the TTL it saw) and be granted after the heal.
     */
    @Test
    void rule18_2_waiterPartitionedWhileReleased_grantedAfterHeal() throws Exception {
        scenario("waiter partitioned during release", (run, h, reg) -> {
            Contest c = run.contest(Side.WAITER, "", false);
            h.fault("blackhole waiter");
            c.proxy().blackhole();
            c.holder().release();
            run.faultLasts(WATCHDOG);
            c.proxy().heal();
            h.heal();
            c.waiterDone().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            return 1;
        });
    }

    /**
     * Rule 18.3: the waiter's pub/sub connection is blackholed (not closed: no error, no message),
     * then the lock is released. Expected: the waiter is granted anyway, by retrying when the TTL
     * it saw runs out (within one watchdog timeout of the release; the "heal" here is the release,
     * the moment the lock became free), no overlap.
     * When it fails: with its pub/sub connection silent the waiter must still attempt again when
     * the TTL it saw runs out; a waiter that only waits for messages never gets the lock.
     */
    @Test
    void rule18_3_pubSubBlackholed_waiterStillGranted() throws Exception {
        scenario("pub/sub connection blackholed", (run, h, reg) -> {
            Contest c = run.contest(Side.WAITER, "", false);
            Await.until(DEADLINE, () -> c.proxy().pubSubConnections() > 0, () -> "the waiter has no pub/sub connection");
            h.fault("blackhole waiter's pub/sub");
            c.proxy().blackholePubSub();
            c.holder().release();
            h.heal();
            c.waiterDone().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            c.proxy().heal();
            return 1;
        });
    }

    /**
     * Rule 18.4: Redis is frozen ({@code SIGSTOP}, then {@code CLIENT PAUSE}) for two leases.
     * Expected: the holder is told it lost the lock (no renewal confirmed for nine tenths of a
     * lease), the
     * waiter is granted after the thaw, and no grant happens while the holder still believes it
     * holds (overlaps 0). Two leases: the key has run out by the thaw, and a holder told more than
     * a lease late overlaps the grant that follows it.
     * When it fails: the holder must stop believing it holds once no renewal was confirmed for nine
     * tenths of a lease; an overlap means the loss was reported late.
     */
    @RuleStrength(RuleStrength.Strength.REQUIRED)
    @Test
    void rule18_4_serverPausedPastLease_holderToldLost_noOverlap() throws Exception {
        scenario("server paused past the lease", (run, h, reg) -> {
            int faults = 0;
            for (String how : List.of("SIGSTOP", "CLIENT PAUSE")) {
                Contest c = run.contest(Side.NONE, "-" + how, false);
                h.fault(how);
                if (how.equals("SIGSTOP")) {
                    run.lockServer.pause();
                    run.faultLasts(WATCHDOG.multipliedBy(2));
                    run.lockServer.resume();
                } else {
                    run.lockServer.call("CLIENT", "PAUSE", Long.toString(WATCHDOG.multipliedBy(2).toMillis()), "ALL");
                    run.faultLasts(WATCHDOG.multipliedBy(2));
                }
                h.heal();
                Await.until(DEADLINE, c.holder()::lost, () -> "the frozen-out holder was never told: " + h);
                c.waiterDone().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                c.holder().release();
                faults++;
            }
            Checks.assertNoOverlap(h);
            return faults;
        });
    }

    /**
     * Rule 18.5: Redis restarts with no persistence while a fenced lock is held. Expected: the
     * waiter is granted at once (the key is gone): an overlap the holder is told about by
     * {@code onLost} (NOT_HELD) at its next renewal (the delay is measured in the report). The
     * token counter is gone too, so the new holder's tokens start again and may repeat or fall
     * below the old ones: the register then refuses the new holder's writes, or accepts a stale
     * holder's write carrying a repeated token (counted as "late accepted"): the known limit of
     * fencing without persistence (run Redis with AOF to keep the counter).
     * When it fails: after a restart without data the holder's next renewal must answer "not held"
     * and be reported: check that the driver reconnected and core reloaded its scripts.
     */
    @Test
    void rule18_5_serverRestartedEmpty_overlapSignalledWithinRenewal() throws Exception {
        scenario("server restarted empty", (run, h, reg) -> {
            Contest c = run.contest(Side.NONE, "", true);
            h.fault("restart empty");
            run.lockServer.restart();
            h.heal();
            Await.until(DEADLINE, c.holder()::lost, () -> "the holder was never told its lock vanished: " + h);
            c.waiterDone().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            c.holder().release();
            return 1;
        });
    }

    /**
     * Rule 18.6: the holder's process is killed ({@code SIGKILL}, a child JVM). Expected: nothing
     * renews the lock after the death (its TTL only falls), and a waiter in this JVM is granted
     * once it expires, within the holder's watchdog timeout plus the waiter's retry.
     * When it fails: nothing may renew a dead process's lock: a TTL that rose after the kill means
     * someone else renewed it (an owner id shared across processes).
     */
    @Test
    void rule18_6_holderProcessKilled_noRenewalAfterDeath_waiterGranted() throws Exception {
        scenario("holder process SIGKILLed", (run, h, reg) -> {
            ChildJvm child = kit.closeAfterTest(ChildJvm.holding(kit, run.lockServer, LOCK, WATCHDOG, DEADLINE));
            h.record("child", History.Op.GRANT, LOCK, -1, "pid " + child.pid());
            Actor b = run.actor("B", run.lockServer);
            CompletableFuture<Long> bDone = b.contend(reg);
            run.awaitWaiting(b);
            h.fault("SIGKILL holder");
            child.kill();
            h.record("child", History.Op.RELEASE, LOCK, -1, "killed");
            child.awaitLockExpiredUnrenewed(run.lockServer, LOCK, DEADLINE);
            h.heal();
            bDone.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            return 1;
        });
    }

    /**
     * Rule 18.7: every connection of the holder is reset, then the network is slow (50 ms each
     * way). Expected: the driver reconnects, the watchdog keeps renewing (the lock is never
     * reported lost), the waiter is granted only after the release: no overlap, no loss.
     * When it fails: the driver must reconnect its command and pub/sub connections after the reset
     * without resending scripts, and the watchdog must keep the hold through the slow network.
     */
    @RuleStrength(RuleStrength.Strength.REQUIRED)
    @Test
    void rule18_7_connectionsResetThenSlow_holdKept_noOverlap() throws Exception {
        scenario("connections reset, then 50 ms latency", (run, h, reg) -> {
            Contest c = run.contest(Side.HOLDER, "", false);
            h.fault("reset holder's connections");
            c.proxy().reset();
            run.awaitRenewal();
            c.proxy().latency(Duration.ofMillis(50));
            run.awaitRenewal();
            assertTrue(!c.holder().lost(), () -> "the hold was reported lost: " + h);
            c.holder().write(reg, c.token());
            c.proxy().heal();
            h.heal();
            c.holder().releaseRetrying();
            c.waiterDone().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            Checks.assertNoOverlap(h);
            assertTrue(!c.holder().lost(), () -> "the hold was reported lost: " + h);
            return 2;
        });
    }

    /**
     * Rule 18.8: the holder's connection goes half-open: its renewals reach Redis, their replies
     * never come back. Expected: the holder cannot confirm a renewal for a whole lease and is told
     * its lock is lost (RENEWAL_FAILED) before anyone else is granted: no overlap; the waiter is
     * granted once the key expires after the holder stops renewing.
     * When it fails: renewals whose replies never come must time out (the driver's command timeout,
     * or core's confirmation deadline) so that the holder is told {@code RENEWAL_FAILED} before its
     * key expires.
     */
    @Test
    void rule18_8_halfOpenConnection_holderToldLostBeforeAnyGrant() throws Exception {
        scenario("half-open holder connection", (run, h, reg) -> {
            Contest c = run.contest(Side.HOLDER, "", false);
            h.fault("half-open");
            c.proxy().halfOpen();
            Await.until(DEADLINE, c.holder()::lost, () -> "the half-open holder was never told: " + h);
            c.waiterDone().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            c.proxy().heal();
            h.heal();
            c.holder().release();
            Checks.assertNoOverlap(h);
            return 1;
        });
    }

    // ---------------------------------------------------------------- machinery

    /** One run of a scenario. */
    @FunctionalInterface
    interface Scenario {
        /** @return faults injected */
        int run(Run run, History history, FencedRegister register) throws Exception;
    }

    private void scenario(String name, Scenario scenario) throws Exception {
        assumeTrue(RedisFixture.canControlServers(), "REDIS_URL is set: the kit may not start private servers");
        assumeSingleServer("it injects faults between clients and a private single server "
                + "(the failover chapter covers clusters and Sentinel)");
        int runs = Integer.getInteger(RUNS_PROPERTY, 1);
        FaultTotals totals = new FaultTotals(name);
        for (int i = 0; i < runs; i++) {
            History history = new History();
            FencedRegister register = new FencedRegister(kit.topology(), "faults");
            register.clear();
            int faults;
            History.Verdict v;
            try (Run run = new Run(history, register)) {
                faults = scenario.run(run, history, register);
                v = history.check(register);
            } finally {
                register.clear();
            }
            totals.add(faults, v);
            assertEquals(0, v.staleAccepted(), () -> "stale fenced writes accepted: " + history);
            assertEquals(0, v.acknowledgedLost(), () -> "acknowledged writes lost: " + history);
            assertEquals(0, v.silentOverlaps(), () -> "overlap never signalled by onLost: " + history);
        }
        totals.append(kit.kitName());
    }

    /** Assertions shared by rules. */
    private static final class Checks {
        static void assertNoOverlap(History h) {
            assertEquals(0, h.check(null).overlaps(), () -> "a grant while another holder believed it held: " + h);
        }
    }

    /** Which side of a {@link Contest} reaches Redis through the run's proxy. */
    enum Side {
        HOLDER, WAITER, NONE
    }

    /**
     * A holder that has been granted the lock and written its token, and a waiter blocked behind
     * it on its own thread (it will write and release once granted).
     *
     * @param proxy the run's proxy (null for {@link Side#NONE})
     * @param holder the holder
     * @param waiter the waiter
     * @param token the holder's token
     * @param waiterDone completes with the waiter's token once it has written and released
     */
    record Contest(TcpProxy proxy, Actor holder, Actor waiter, long token, CompletableFuture<Long> waiterDone) {
    }

    /** The resources of one run: a private server, proxies, actors; all closed at its end. */
    private final class Run implements AutoCloseable {
        final History history;
        final FencedRegister register;
        final RedisServer lockServer = RedisServer.startEmbedded();
        final List<AutoCloseable> closing = new ArrayList<>();

        Run(History history, FencedRegister register) {
            this.history = history;
            this.register = register;
        }

        TcpProxy proxy() {
            TcpProxy p = TcpProxy.start(lockServer);
            closing.add(p);
            return p;
        }

        Actor actor(String name, RedisServer via) {
            Actor a = new Actor(name, kit.newLockClient(via, LockOptions.builder().lockWatchdogTimeout(WATCHDOG)
                    .commandTimeout(Duration.ofSeconds(1)).build()), history);
            closing.add(a);
            return a;
        }

        /**
         * @param side which actor goes through a proxy
         * @param suffix appended to the actors' names ("A", "B")
         * @param retrying whether the waiter retries while Redis is unreachable
         * @return the holder holding and the waiter waiting
         */
        Contest contest(Side side, String suffix, boolean retrying) {
            TcpProxy proxy = side == Side.NONE ? null : proxy();
            Actor a = actor("A" + suffix, side == Side.HOLDER ? proxy.server() : lockServer);
            Actor b = actor("B" + suffix, side == Side.WAITER ? proxy.server() : lockServer);
            long token = a.acquireAndWrite(register);
            CompletableFuture<Long> done = retrying ? b.contendRetrying(register) : b.contend(register);
            awaitWaiting(b);
            return new Contest(proxy, a, b, token, done);
        }

        /**
         * Waits until {@code actor} has asked for the lock, is blocked, and its wait is subscribed
         * on the lock's server: a fault that comes later cannot catch the subscription in flight.
         */
        void awaitWaiting(Actor actor) {
            actor.awaitWaiting();
            Await.until(DEADLINE, () -> {
                List<?> numsub = (List<?>) lockServer.call("PUBSUB", "NUMSUB", CHANNEL);
                return (Long) numsub.get(1) > 0;
            }, () -> actor.name + " never subscribed to " + CHANNEL);
        }

        /** Holds a fault for its length: the length is the fault, not a wait for a condition. */
        void faultLasts(Duration d) throws InterruptedException {
            Thread.sleep(d.toMillis());
        }

        /** Waits until the lock's TTL goes back up: a renewal reached Redis after this call. */
        void awaitRenewal() {
            long[] previous = {(Long) lockServer.call("PTTL", LOCK)};
            Await.until(DEADLINE, () -> {
                long ttl = (Long) lockServer.call("PTTL", LOCK);
                boolean renewed = ttl > previous[0] + 100;
                previous[0] = ttl;
                return renewed;
            }, () -> "no renewal reached Redis (PTTL " + previous[0] + ")");
        }

        @Override
        public void close() {
            for (int i = closing.size() - 1; i >= 0; i--) {
                try {
                    closing.get(i).close();
                } catch (Exception ignored) {
                    // the run is over; the next one starts clean
                }
            }
            lockServer.close();
        }
    }

    /** A client acting on the lock from its own thread, recording what it does. */
    static final class Actor implements AutoCloseable {
        final String name;
        final LockClient client;
        final History history;
        final FencedLock lock;
        final ExecutorService thread;
        volatile Thread worker;

        Actor(String name, LockClient client, History history) {
            this.name = name;
            this.client = client;
            this.history = history;
            this.lock = client.getFencedLock(LOCK);
            this.thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "tck-fault-" + name));
            client.addLockLostListener(e -> history.record(name, History.Op.LOST, e.lockName(), -1,
                    e.reason().toString()));
        }

        long acquire() {
            history.record(name, History.Op.REQUEST, LOCK, -1, "");
            long token = lock.lockAndGetToken();
            history.record(name, History.Op.GRANT, LOCK, token, "");
            return token;
        }

        /** Acquires, retrying while Redis is unreachable (a restart in progress). */
        long acquireRetrying() throws InterruptedException {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (true) {
                try {
                    return acquire();
                } catch (RedisUnavailableException e) {
                    history.record(name, History.Op.ERROR, LOCK, -1, e.toString());
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(50);
                }
            }
        }

        /** Acquires on the calling thread and writes the token to the register. */
        long acquireAndWrite(FencedRegister register) {
            long token = acquire();
            write(register, token);
            return token;
        }

        /** On this actor's thread: acquires (waiting), writes the token, releases. */
        CompletableFuture<Long> contend(FencedRegister register) {
            return inBackground(() -> {
                long token = acquireAndWrite(register);
                release();
                return token;
            });
        }

        /** As {@link #contend}, retrying the acquisition while Redis is unreachable. */
        CompletableFuture<Long> contendRetrying(FencedRegister register) {
            return inBackground(() -> {
                long token = acquireRetrying();
                write(register, token);
                release();
                return token;
            });
        }

        void write(FencedRegister register, long token) {
            boolean ok = register.write(token);
            history.record(name, ok ? History.Op.WRITE_ACCEPTED : History.Op.WRITE_REFUSED, LOCK, token, "");
        }

        void release() {
            history.record(name, History.Op.RELEASING, LOCK, -1, "");
            try {
                lock.unlock();
                history.record(name, History.Op.RELEASE, LOCK, -1, "ok");
            } catch (IllegalMonitorStateException | RedisUnavailableException e) {
                history.record(name, History.Op.RELEASE, LOCK, -1, e.getClass().getSimpleName());
            }
        }

        /** Releases, retrying while the reply is lost on a reset connection. */
        void releaseRetrying() throws InterruptedException {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            history.record(name, History.Op.RELEASING, LOCK, -1, "");
            while (true) {
                try {
                    lock.unlock();
                    history.record(name, History.Op.RELEASE, LOCK, -1, "ok");
                    return;
                } catch (RedisUnavailableException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(50); // a refused connection fails at once: no busy loop
                } catch (IllegalMonitorStateException e) {
                    history.record(name, History.Op.RELEASE, LOCK, -1, e.getClass().getSimpleName());
                    return;
                }
            }
        }

        boolean lost() {
            return history.events().stream().anyMatch(e -> e.actor().equals(name) && e.op() == History.Op.LOST);
        }

        <T> CompletableFuture<T> inBackground(java.util.concurrent.Callable<T> body) {
            CompletableFuture<T> f = new CompletableFuture<>();
            thread.execute(() -> {
                worker = Thread.currentThread();
                try {
                    f.complete(body.call());
                } catch (Throwable t) {
                    history.record(name, History.Op.ERROR, LOCK, -1, t.toString());
                    f.completeExceptionally(t);
                }
            });
            return f;
        }

        /** Waits until this actor's background thread has asked for the lock and is blocked. */
        void awaitWaiting() {
            Await.until(DEADLINE, () -> {
                Thread t = worker;
                boolean asked = history.events().stream().anyMatch(e -> e.actor().equals(name)
                        && e.op() == History.Op.REQUEST);
                // parked between attempts (the engine's park blocker), not still waiting for its
                // subscription's confirmation, which a fault injected now could swallow
                return asked && t != null && (t.getState() == Thread.State.WAITING
                        || t.getState() == Thread.State.TIMED_WAITING)
                        && java.util.concurrent.locks.LockSupport.getBlocker(t) instanceof WaitingForLock;
            }, () -> name + " never started waiting");
        }

        @Override
        public void close() {
            thread.shutdownNow();
            try {
                thread.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            client.close();
        }
    }
}
