package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LeaderElection;
import io.github.relock.api.LeaderElection.Leadership;
import io.github.relock.api.LeaderElection.Reason;
import io.github.relock.api.LeaderElection.Revocation;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockInspection;
import io.github.relock.api.LockOptions;
import io.github.relock.api.OwnerInfo;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 32: leader election ({@link LockClient#getLeaderElection(String)}). At most one candidate
 * leads at a time, as a fenced register sees it; epochs (fencing tokens) strictly increase across
 * tenures; a leader that leaves, closes its client or loses its lock hands over to another
 * candidate, and a lost leader campaigns again; {@link LeaderElection#currentLeader()} names the
 * leader's client and owner info; a grant that lands after {@code leave()} leaves no lock behind.
 *
 * <p>The loss is made through Redis (the lock's key deleted, as a failover to a replica that never
 * saw it or an operator does, and for rule 32.8 the leader's connections killed too), so the rules
 * run on every driver. Handover on a loss is bounded by
 * the watchdog timeout: the leader hears of it at its next renewal, and a candidate's wait polls
 * no later than the old key's TTL.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("leader-election")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL,
        because = "it checks the engine's leader election, in lock-core; it runs on every driver because grants and losses travel through it")
public abstract class LeaderElectionChapter extends TckChapter {
    /** Short, so that a renewal finds a deleted key within 200 ms. */
    private static final Duration WATCHDOG = Duration.ofMillis(600);
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    /** Every election a rule made, left after the rule; and the names, whose token counters outlive the locks. */
    private final List<LeaderElection> made = new CopyOnWriteArrayList<>();
    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final Set<LockClient> clients = ConcurrentHashMap.newKeySet();

    /** @param kit the enclosing kit */
    protected LeaderElectionChapter(DriverKit kit) {
        super(kit);
    }

    private LeaderElection election(LockClient client, String name) {
        LeaderElection e = client.getLeaderElection(name);
        made.add(e);
        names.add(name);
        clients.add(client);
        return e;
    }

    /**
     * Leaves every election (a no-op for those that left), waits until their clients hold and wait
     * for nothing, closes them, waits until their locks are gone, and deletes the token counters.
     */
    @AfterEach
    void leaveAll() {
        made.forEach(LeaderElection::leave);
        for (LockClient c : clients) { // a grant in flight when its candidate left lands, and is given back
            Await.until(DEADLINE, () -> {
                try {
                    return c.stats().heldLocks() == 0 && c.stats().waiters() == 0;
                } catch (IllegalStateException closed) {
                    return true;
                }
            }, () -> "a left candidate still holds or waits: " + c.stats());
        }
        // Closed, a client sends nothing more: close() waits for a campaign's acquisition still in
        // flight (which would take a token, recreating the counter deleted below) and gives it back
        clients.forEach(LockClient::close);
        for (String name : names) {
            Await.until(DEADLINE, () -> Long.valueOf(0).equals(redis("EXISTS", name)), () -> name + " is still held");
            redis("DEL", "redisson_lock_token:{" + name + "}");
        }
    }

    /** A candidate with its events, in the order its listeners heard them. */
    private static final class Candidate {
        final LeaderElection election;
        final BlockingQueue<Leadership> grants = new LinkedBlockingQueue<>();
        final BlockingQueue<Revocation> revocations = new LinkedBlockingQueue<>();
        final List<Object> events = new CopyOnWriteArrayList<>();

        Candidate(LeaderElection election) {
            this.election = election;
            election.onGranted(g -> {
                events.add(g);
                grants.add(g);
            });
            election.onRevoked(r -> {
                events.add(r);
                revocations.add(r);
            });
        }

        Leadership granted() throws InterruptedException {
            Leadership g = grants.poll(Await.scaled(DEADLINE).toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(g != null, "no grant within " + DEADLINE + " for " + election.name());
            return g;
        }

        Revocation revoked() throws InterruptedException {
            Revocation r = revocations.poll(Await.scaled(DEADLINE).toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(r != null, "no revocation within " + DEADLINE + " for " + election.name());
            return r;
        }
    }

    private Candidate candidate(LockClient client, String name) {
        return new Candidate(election(client, name));
    }

    private static Candidate leaderOf(List<Candidate> candidates) {
        Await.until(DEADLINE, () -> candidates.stream().anyMatch(c -> c.election.isLeader()), () -> "nobody was granted");
        return candidates.stream().filter(c -> c.election.isLeader()).findFirst().orElseThrow();
    }

    /**
     * Rule 32.1: among three clients campaigning on one name, each leader writing its epoch twice to
     * a fenced register (a compare-and-set script that refuses a lower epoch) and then leaving, the
     * register accepts every write and sees each tenure's two writes together, epochs strictly
     * increasing: never two leaders at once, never two equal epochs.
     * When it fails: two candidates were granted overlapping tenures (a stale grant not released, a
     * revocation that did not stop the old tenure), or an epoch is not the grant's fencing token.
     */
    @Test
    void rule32_1_threeClients_oneLeaderAtATime_epochsStrictlyIncrease() throws Exception {
        String name = "tck:leader:register";
        FencedRegister register = new FencedRegister(kit.topology(), "leader");
        register.clear();
        int tenures = 6;
        List<Long> epochs = new CopyOnWriteArrayList<>();
        List<String> refused = new CopyOnWriteArrayList<>();
        ExecutorService work = Executors.newCachedThreadPool();
        List<LeaderElection> elections = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                LeaderElection e = election(client(), name);
                elections.add(e);
                e.onGranted(g -> work.execute(() -> {
                    if (epochs.size() >= tenures) {
                        return;
                    }
                    epochs.add(g.epoch());
                    for (int w = 0; w < 2; w++) {
                        if (!register.write(g.epoch())) {
                            refused.add("epoch " + g.epoch() + " write " + w);
                        }
                    }
                    e.leave();
                    if (epochs.size() < tenures) {
                        e.join();
                    }
                }));
            }
            elections.forEach(LeaderElection::join);
            Await.until(DEADLINE, () -> register.accepted().size() >= 2 * tenures, () -> "tenures seen: " + epochs);
        } finally {
            elections.forEach(LeaderElection::leave);
            work.shutdown();
            assertTrue(work.awaitTermination(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
        }
        List<Long> log = register.accepted();
        assertEquals(List.of(), refused, "the register refused a stale leader's write; log " + log);
        for (int i = 0; i + 1 < log.size(); i += 2) {
            assertEquals(log.get(i), log.get(i + 1), "two leaders' writes interleaved: " + log);
            if (i >= 2) {
                assertTrue(log.get(i) > log.get(i - 1), "epochs not strictly increasing: " + log);
            }
        }
        register.clear();
    }

    /**
     * Rule 32.2: a leader that leaves is told {@code LEFT}, no longer leads, has no epoch, and
     * another candidate is granted within the deadline with a greater epoch; when the last leaves
     * the lock is free.
     * When it fails: {@code leave()} did not release the lock (the other waits for its TTL), or the
     * revocation was not reported.
     */
    @Test
    void rule32_2_leaderLeaves_anotherIsGranted_withAGreaterEpoch() throws Exception {
        String name = "tck:leader:leave";
        List<Candidate> both = List.of(candidate(client(), name), candidate(client(), name));
        both.forEach(c -> c.election.join());
        Candidate first = leaderOf(both);
        Candidate second = both.get(0) == first ? both.get(1) : both.get(0);
        long epoch = first.granted().epoch();
        assertEquals(OptionalLong.of(epoch), first.election.epoch());

        first.election.leave();

        assertFalse(first.election.isLeader());
        assertEquals(OptionalLong.empty(), first.election.epoch());
        assertEquals(new Revocation(name, epoch, Reason.LEFT), first.revoked());
        assertTrue(second.granted().epoch() > epoch, "the next epoch is not greater than " + epoch);
        second.election.leave();
        assertEquals(Reason.LEFT, second.revoked().reason());
        assertFalse(client().getLock(name).isLocked(), "the lock was left behind after both left");
    }

    /**
     * Rule 32.3: when the leader's lock key is deleted, the leader is told {@code LOST} within the
     * watchdog timeout and a candidate (the other, or the old leader campaigning again) is granted
     * with a greater epoch, within the watchdog timeout plus a margin.
     * When it fails: renewal did not report the loss to the election, or the lost leader stopped
     * campaigning, or a grant reused the lost tenure's epoch.
     */
    @Test
    void rule32_3_leadersKeyDeleted_lostIsReported_andANewTenureBegins() throws Exception {
        String name = "tck:leader:deleted";
        List<Candidate> both = List.of(candidate(client(WATCHDOG), name), candidate(client(WATCHDOG), name));
        both.forEach(c -> c.election.join());
        Candidate leader = leaderOf(both);
        long epoch = leader.granted().epoch();
        long deletedAt = System.nanoTime();

        assertEquals(1L, redis("DEL", name));

        Revocation lost = leader.revoked();
        assertEquals(new Revocation(name, epoch, Reason.LOST), lost);
        Await.until(DEADLINE, () -> both.stream().anyMatch(c -> c.election.epoch().orElse(0) > epoch),
                () -> "no new tenure after the loss of epoch " + epoch);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deletedAt);
        assertTrue(tookMs < Await.scaled(WATCHDOG.multipliedBy(5)).toMillis(),
                "handover took " + tookMs + " ms, watchdog " + WATCHDOG);
    }

    /**
     * Rule 32.4: a sole candidate whose key is deleted is told {@code LOST}, campaigns again and is
     * granted a new tenure with a greater epoch; its listeners hear granted, revoked, granted, in order.
     * When it fails: the election stopped after a loss (as if it had left), or told its listeners out of order.
     */
    @Test
    void rule32_4_soleLeaderLosesItsKey_campaignsAgain_andIsGrantedANewEpoch() throws Exception {
        String name = "tck:leader:rejoin";
        Candidate only = candidate(client(WATCHDOG), name);
        only.election.join();
        long epoch = only.granted().epoch();
        redis("DEL", name);
        assertEquals(Reason.LOST, only.revoked().reason());
        long next = only.granted().epoch();
        assertTrue(next > epoch, next + " after " + epoch);
        assertEquals(List.of(new Leadership(name, epoch), new Revocation(name, epoch, Reason.LOST),
                new Leadership(name, next)), only.events);
        only.election.leave();
    }

    /**
     * Rule 32.5: {@code currentLeader()}, asked by any candidate, names the leader's client id and
     * the owner info it registered; it is empty when nobody leads.
     * When it fails: the election reads the wrong key, or the inspection does not fetch owner info.
     */
    @Test
    void rule32_5_currentLeader_namesTheLeadersClientAndOwnerInfo() throws Exception {
        String name = "tck:leader:who";
        OwnerInfo me = new OwnerInfo("pod-3", "billing", "3", "1.0");
        LockClient leaderClient = kit.newLockClient(LockOptions.builder().ownerInfo(me).build());
        Candidate leader = candidate(leaderClient, name);
        LeaderElection watcher = election(client(), name);
        assertEquals(Optional.empty(), watcher.currentLeader());
        leader.election.join();
        leader.granted();

        Await.until(DEADLINE, () -> watcher.currentLeader().flatMap(LockInspection.Holder::owner).isPresent(),
                () -> "no owner info for the leader: " + watcher.currentLeader());
        LockInspection.Holder who = watcher.currentLeader().orElseThrow();
        assertEquals(leaderClient.clientId(), who.clientId());
        assertEquals(Optional.of(me), who.owner());
        leader.election.leave();
        assertEquals(Optional.empty(), watcher.currentLeader());
        leaderClient.close(); // deletes its owner info
    }

    /**
     * Rule 32.6: a candidate that leaves while its grant is in flight (waiting behind the leader) is
     * never told it leads, and once the leader leaves too no lock is left behind and its client
     * holds and waits for nothing.
     * When it fails: a grant landing after {@code leave()} was kept (the lock stays held by a
     * candidate that left) or reported.
     */
    @Test
    void rule32_6_leaveWithAGrantInFlight_leavesNoLockBehind() throws Exception {
        String name = "tck:leader:in-flight";
        Candidate leader = candidate(client(), name);
        leader.election.join();
        leader.granted();
        LockClient waitingClient = client();
        Candidate waiting = candidate(waitingClient, name);
        waiting.election.join();
        Await.until(DEADLINE, () -> waitingClient.stats().waiters() > 0, () -> "the candidate never waited");

        waiting.election.leave();
        leader.election.leave();

        Await.until(DEADLINE, () -> waitingClient.stats().heldLocks() == 0 && waitingClient.stats().waiters() == 0
                && !waitingClient.getLock(name).isLocked(), () -> "left behind: " + waitingClient.stats());
        assertEquals(List.of(), waiting.events, "a candidate that left was told of a grant");
        assertFalse(waiting.election.isLeader());
    }

    /**
     * Rule 32.7: closing the leader's client ends its tenure with {@code LEFT} and another candidate
     * is granted with a greater epoch.
     * When it fails: the client's close reported the tenure as {@code LOST}, or left the lock held.
     */
    @Test
    void rule32_7_leadersClientCloses_tenureEndsLeft_andAnotherIsGranted() throws Exception {
        String name = "tck:leader:close";
        LockClient closing = client();
        Candidate leader = candidate(closing, name);
        leader.election.join();
        long epoch = leader.granted().epoch();
        Candidate next = candidate(client(), name);
        next.election.join();

        closing.close();

        assertEquals(new Revocation(name, epoch, Reason.LEFT), leader.revoked());
        assertTrue(next.granted().epoch() > epoch);
        next.election.leave();
    }

    /**
     * Rule 32.8: the leader's connections killed ({@code CLIENT KILL}, on every node its client
     * reached) and its lock key deleted, as a failover to a replica that never saw the key does:
     * the leader is told {@code LOST} within the watchdog timeout (whether its renewal, retried on
     * a new connection, found the key gone or could not be confirmed), a candidate (the other, or
     * the old leader once reconnected) is granted with a greater epoch, and a fenced register that
     * each leader writes its epoch to while it leads never accepts two tenures' writes interleaved
     * nor one epoch from two candidates. The register refusing the deposed leader's late writes is
     * the fence working.
     * When it fails: a renewal whose connection broke was neither retried on a new connection nor
     * reported lost at its confirmation deadline (the deposed leader goes on leading), the
     * election stopped campaigning after the loss, or a grant reused the lost tenure's epoch.
     */
    @Test
    void rule32_8_leadersConnectionsKilledAndKeyGone_lostIsReported_andTenuresNeverInterleave() throws Exception {
        String name = "tck:leader:killed";
        FencedRegister register = new FencedRegister(kit.topology(), "leader-killed");
        register.clear();
        Map<Long, Set<String>> writersByEpoch = new ConcurrentHashMap<>();
        AtomicInteger refused = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService writers = Executors.newCachedThreadPool();
        try {
            Map<RedisServer, Set<String>> before = connectionIds();
            Candidate leader = candidate(client(WATCHDOG), name);
            writeWhileLeading(leader, "first", register, writersByEpoch, refused, stop, writers);
            leader.election.join();
            long epoch = leader.granted().epoch();
            Await.until(DEADLINE, () -> writersByEpoch.containsKey(epoch), () -> "the leader never wrote");
            Map<RedisServer, Set<String>> leadersConnections = connectionsOpenedSince(before);
            assertTrue(reachesTheNodeOf(leadersConnections, name), "no connection of the leader's client found on"
                + " the lock's node; found " + leadersConnections);
            LockClient otherClient = client(WATCHDOG);
            Candidate other = candidate(otherClient, name);
            writeWhileLeading(other, "second", register, writersByEpoch, refused, stop, writers);
            other.election.join();
            Await.until(DEADLINE, () -> otherClient.stats().waiters() > 0, () -> "the other candidate never waited");
            long killedAt = System.nanoTime();

            redis("DEL", name); // on the key's master
            killConnections(leadersConnections);

            assertEquals(new Revocation(name, epoch, Reason.LOST), leader.revoked());
            long lostMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            List<Candidate> both = List.of(leader, other);
            Await.until(DEADLINE, () -> writersByEpoch.keySet().stream().anyMatch(e -> e > epoch),
                    () -> "no new tenure wrote after the loss of epoch " + epoch + ": " + writersByEpoch);
            long handoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            long bound = Await.scaled(WATCHDOG.multipliedBy(5)).toMillis();
            assertTrue(lostMs < bound, "LOST told " + lostMs + " ms after the kill, watchdog " + WATCHDOG);
            assertTrue(handoverMs < bound, "handover took " + handoverMs + " ms, watchdog " + WATCHDOG);
            assertTrue(both.stream().anyMatch(c -> c.election.epoch().orElse(0) > epoch), "nobody leads after the loss");
        } finally {
            stop.set(true);
            writers.shutdown();
            assertTrue(writers.awaitTermination(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
        }
        List<Long> log = register.accepted();
        List<Long> tenures = new ArrayList<>();
        for (long e : log) {
            if (tenures.isEmpty() || tenures.get(tenures.size() - 1) != e) {
                assertFalse(tenures.contains(e), "two tenures' writes interleaved in the register (refused "
                        + refused + "): " + log);
                tenures.add(e);
            }
        }
        writersByEpoch.forEach((e, who) -> assertEquals(1, who.size(), "epoch " + e + " written by " + who));
        register.clear();
    }

    /**
     * While {@code candidate} leads a tenure, writes its epoch to {@code register} every few
     * milliseconds on {@code pool}, noting who wrote each accepted epoch and counting refusals.
     */
    private static void writeWhileLeading(Candidate candidate, String who, FencedRegister register,
            Map<Long, Set<String>> writersByEpoch, AtomicInteger refused, AtomicBoolean stop, ExecutorService pool) {
        candidate.election.onGranted(g -> pool.execute(() -> {
            while (!stop.get() && candidate.election.epoch().equals(OptionalLong.of(g.epoch()))) {
                if (register.write(g.epoch())) {
                    writersByEpoch.computeIfAbsent(g.epoch(), e -> ConcurrentHashMap.newKeySet()).add(who);
                } else {
                    refused.incrementAndGet();
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
        }));
    }
}
