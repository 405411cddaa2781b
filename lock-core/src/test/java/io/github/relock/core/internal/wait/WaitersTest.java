package io.github.relock.core.internal.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The channels and their wake-up handshake ({@link Waiters}, {@link Channel}), without Redis. */
class WaitersTest {
    private final FakePubSub pubsub = new FakePubSub();
    private final Waiters waiters = new Waiters(pubsub, false);

    /** A parked waiter that records the messages that picked it. */
    private static final class Probe implements Channel.Parked {
        final List<String> got = new ArrayList<>();
        final String name;
        /** Picked by a message, no attempt sent since (as a real wait's messageWake). */
        boolean pending;

        Probe(String name) {
            this.name = name;
        }

        @Override
        public void message() {
            got.add(name);
            pending = true;
        }

        @Override
        public boolean messagePending() {
            return pending;
        }

        /** The waiter sends its attempt. */
        void attempts() {
            pending = false;
        }
    }

    @Test
    void wakeOne_nobodyParked_banksItForTheNextWaiterAboutToPark() {
        Channel e = waiters.join("c");
        long epoch = e.epoch();
        e.wakeOne();
        Probe p = new Probe("p");
        assertTrue(e.parkOrTake(p, epoch), "the banked wake-up is taken instead of parking");
        assertFalse(e.parkOrTake(p, epoch), "one wake-up, taken once");
        assertEquals(1, e.parkedCount());
    }

    @Test
    void wakeOne_picksTheLongestParkedWaiter_only() {
        Channel e = waiters.join("c");
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        e.parkOrTake(a, e.epoch());
        e.parkOrTake(b, e.epoch());
        e.wakeOne();
        assertEquals(List.of("a"), a.got);
        assertEquals(List.of(), b.got);
        assertEquals(1, e.parkedCount());
    }

    @Test
    void wakeAll_wakesEveryParkedWaiter_andAWaiterAboutToParkSeesTheNewEpoch() {
        Channel e = waiters.join("c");
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        long before = e.epoch();
        e.parkOrTake(a, before);
        e.parkOrTake(b, before);
        e.wakeAll();
        assertEquals(List.of("a"), a.got);
        assertEquals(List.of("b"), b.got);
        assertTrue(e.parkOrTake(new Probe("late"), before), "its attempt was sent before the wake-all: attempt again");
        assertFalse(e.parkOrTake(new Probe("fresh"), e.epoch()));
    }

    @Test
    void unpark_removesAWaiterNoMessagePicked_andSaysSo() {
        Channel e = waiters.join("c");
        Probe a = new Probe("a");
        e.parkOrTake(a, e.epoch());
        assertTrue(e.unpark(a));
        assertFalse(e.unpark(a), "already gone: a message picked it, or it left");
        e.wakeOne();
        assertEquals(List.of(), a.got);
    }

    @Test
    void messages_zeroWakesOne_oneWakesAll_othersIgnored_unknownChannelIgnored() {
        Channel e = waiters.join("c");
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        e.parkOrTake(a, e.epoch());
        e.parkOrTake(b, e.epoch());
        waiters.onMessage("c", "2");
        waiters.onMessage("other", "0");
        assertEquals(2, e.parkedCount());
        waiters.onMessage("c", "0");
        assertEquals(List.of("a"), a.got);
        waiters.onMessage("c", "1");
        assertEquals(List.of("b"), b.got);
    }

    @Test
    void reconnect_wakesEveryWaiterOfEveryChannel() {
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        Channel c1 = waiters.join("c1");
        Channel c2 = waiters.join("c2");
        c1.parkOrTake(a, c1.epoch());
        c2.parkOrTake(b, c2.epoch());
        waiters.onReconnect();
        assertEquals(List.of("a"), a.got);
        assertEquals(List.of("b"), b.got);
    }

    @Test
    void joinAndLeave_subscribeOnceUnsubscribeWithTheLast_countWaiters() {
        Channel first = waiters.join("c");
        Channel second = waiters.join("c");
        assertSame(first, second);
        assertEquals(1, pubsub.subscribes.get());
        assertEquals(2, waiters.waiting());
        assertSame(first, waiters.subscribedChannel("c"));
        waiters.leave(first);
        assertEquals(0, pubsub.unsubscribes.get());
        waiters.leave(second);
        assertEquals(1, pubsub.unsubscribes.get());
        assertEquals(0, waiters.waiting());
        assertNull(waiters.entry("c"));
        assertNull(waiters.subscribedChannel("c"), "a removed entry is never reused");
    }

    @Test
    void subscribedEntry_onlyOnceTheServerConfirmed() {
        pubsub.hold = true;
        Channel e = waiters.join("c");
        assertNull(waiters.subscribedChannel("c"));
        pubsub.confirm("c");
        assertSame(e, waiters.subscribedChannel("c"));
        waiters.leave(e);
    }

    @Test
    void closeAll_withNoWaits_returnsAtOnce() {
        assertTrue(waiters.closeAll(1_000_000L));
    }
    // ---- a cluster: each channel subscribed classic and sharded, each relock release heard twice

    private final FakePubSub clusterPubsub = new FakePubSub();
    private final Waiters clusterWaiters = new Waiters(clusterPubsub, true);

    /** Joins channel "c" on the cluster client and parks the probes on it, in this order. */
    private Channel parkedOnCluster(Probe... probes) {
        Channel e = clusterWaiters.join("c");
        for (Probe p : probes) {
            assertFalse(e.parkOrTake(p, e.epoch()));
        }
        return e;
    }

    @Test
    void cluster_serverWithoutSsubscribe_listensClassicOnlyFromThenOn_andReportsItOnce() {
        FakePubSub pubsub = new FakePubSub();
        pubsub.shardedFailWith = new io.github.relock.api.RedisErrorException(
                "ERR unknown command 'SSUBSCRIBE', with args beginning with: 'c'", null);
        List<String> told = new java.util.ArrayList<>();
        Waiters w = new Waiters(pubsub, true, (fallback, cause) -> told.add(fallback + ": " + cause));
        Channel a = w.join("a");
        Channel b = w.join("b");
        assertEquals(3, pubsub.subscribes.get(), "a classic and sharded, then b classic only");
        assertEquals(java.util.Set.of("a", "b"), pubsub.subscribed);
        assertEquals(1, told.size(), () -> "one report: " + told);
        assertTrue(told.get(0).startsWith("CLASSIC_PUBSUB: ERR unknown command"), told.get(0));
        w.leave(a);
        w.leave(b);
    }

    @Test
    void cluster_releaseHeardClassicAndSharded_wakesOnlyTheLongestParkedWaiter() {
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        Channel e = parkedOnCluster(a, b);
        clusterPubsub.publish("c", "0", true);
        clusterPubsub.publish("c", "0", false);
        assertEquals(List.of("a"), a.got);
        assertEquals(List.of(), b.got, "the twin of the release must not wake a second waiter");
        assertEquals(1, e.parkedCount());
        assertEquals(0, e.unpairedCount());
    }

    @Test
    void cluster_twinArrivingAfterTheWokenWaiterAttempted_isOwedToIt_notToTheNextWaiter() {
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        Channel e = parkedOnCluster(a, b);
        long epoch = e.epoch();
        clusterPubsub.publish("c", "0", false);
        a.attempts(); // in flight: its attempt may have run before a second release
        clusterPubsub.publish("c", "0", true);
        assertEquals(List.of(), b.got);
        assertTrue(e.parkOrTake(a, epoch), "the waiter the first copy woke attempts again instead of parking");
        assertFalse(e.parkOrTake(a, epoch), "owed once");
        assertEquals(List.of(), b.got);
    }

    @Test
    void cluster_twinArrivingAfterTheWokenWaiterParkedAgain_wakesItAgain() {
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        Channel e = parkedOnCluster(a, b);
        clusterPubsub.publish("c", "0", true);
        a.attempts();
        assertFalse(e.parkOrTake(a, e.epoch()), "its attempt failed: it parks again, behind b");
        clusterPubsub.publish("c", "0", false);
        assertEquals(List.of("a", "a"), a.got, "a twin that may be another release goes to the same waiter once more");
        assertEquals(List.of(), b.got);
    }

    @Test
    void cluster_owedTwin_isPassedOnWhenItsWaiterLeavesWithoutTheLock_droppedWhenItHoldsIt() {
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        Channel e = parkedOnCluster(a, b);
        clusterPubsub.publish("c", "0", false);
        a.attempts();
        clusterPubsub.publish("c", "0", true);
        e.left(a, false, false); // timed out after its attempt: the lock may be free, b must hear of it
        assertEquals(List.of("b"), b.got);

        Probe c = new Probe("c");
        Probe d = new Probe("d");
        assertFalse(e.parkOrTake(c, e.epoch()));
        assertFalse(e.parkOrTake(d, e.epoch()));
        clusterPubsub.publish("c", "0", false);
        c.attempts();
        clusterPubsub.publish("c", "0", true);
        e.left(c, false, true); // it holds the lock: the copy came before it left, so before any release of its own
        assertEquals(List.of(), d.got);
    }

    @Test
    void cluster_twinAfterTheWokenWaiterLeft_wakesTheNextWaiter() {
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        Channel e = parkedOnCluster(a, b);
        clusterPubsub.publish("c", "0", true);
        a.attempts();
        e.left(a, false, false);
        assertEquals(List.of(), b.got);
        clusterPubsub.publish("c", "0", false);
        assertEquals(List.of("b"), b.got, "nobody is left to take the twin: it is the next waiter's");
    }

    @Test
    void cluster_twinAfterTheWokenWaiterLeftHoldingTheLock_stillWakesTheNextWaiter() {
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        Channel e = parkedOnCluster(a, b);
        clusterPubsub.publish("c", "0", false); // a lone classic copy
        a.attempts();
        e.left(a, false, true); // acquired, and may have let the lock go since
        clusterPubsub.publish("c", "0", true); // maybe a Redisson 4 unlock, which comes sharded only
        assertEquals(List.of("b"), b.got, "a copy paired after its waiter left holding may be another client's"
                + " release that nobody else hears (kit rule 10.25): it is the next waiter's");
        assertEquals(0, e.parkedCount());
    }

    @Test
    void cluster_copiesHeardOneWayOnly_eachWakesAWaiter() {
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        Probe c = new Probe("c");
        parkedOnCluster(a, b, c);
        clusterPubsub.publish("c", "0", false); // the sharded subscription is down, or Redisson 3 published
        clusterPubsub.publish("c", "0", false);
        assertEquals(List.of("a"), a.got);
        assertEquals(List.of("b"), b.got);
        clusterPubsub.publish("c", "0", true); // pairs with the first classic copy, whose waiter has not attempted
        assertEquals(List.of(), c.got);
    }

    @Test
    void cluster_copyHeardAfterThePairingWindow_isAnotherRelease() {
        Channel e = clusterWaiters.join("c");
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        e.parkOrTake(a, e.epoch());
        e.parkOrTake(b, e.epoch());
        long t = System.nanoTime();
        e.heardOne("0", false, t);
        e.heardOne("0", true, t + Channel.PAIR_NANOS + 1);
        assertEquals(List.of("a"), a.got);
        assertEquals(List.of("b"), b.got);
    }

    @Test
    void cluster_onlyTheSamePayloadPairs() {
        Channel e = clusterWaiters.join("c");
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        e.parkOrTake(a, e.epoch());
        e.parkOrTake(b, e.epoch());
        e.heardOne("1", false);
        e.heardOne("2", true);
        assertEquals(List.of("a"), a.got);
        assertEquals(List.of("b"), b.got);
    }

    @Test
    void cluster_twinOfABankedWakeup_isCoveredWhileTheBankIsUntaken_elseWakes() {
        Channel e = clusterWaiters.join("c");
        long epoch = e.epoch();
        clusterPubsub.publish("c", "0", false); // nobody parked: banked
        clusterPubsub.publish("c", "0", true);
        assertTrue(e.parkOrTake(new Probe("a"), epoch), "the banked wake-up");
        assertFalse(e.parkOrTake(new Probe("b"), epoch), "one wake-up for the release heard twice");

        Channel f = clusterWaiters.join("f");
        long fe = f.epoch();
        clusterPubsub.publish("f", "0", false);
        assertTrue(f.parkOrTake(new Probe("c"), fe), "the bank is taken before the twin arrives");
        Probe d = new Probe("d");
        assertFalse(f.parkOrTake(d, fe));
        clusterPubsub.publish("f", "0", true);
        assertEquals(List.of("d"), d.got, "the twin may be another release: it wakes as any message");
    }

    @Test
    void cluster_unpairedCopies_areBounded() {
        Channel e = clusterWaiters.join("c");
        for (int i = 0; i < 3 * Channel.MAX_UNPAIRED; i++) {
            clusterPubsub.publish("c", "0", false);
        }
        assertEquals(Channel.MAX_UNPAIRED, e.unpairedCount());
    }

    @Test
    void oneServer_noPairing_everyZeroWakesOne() {
        Channel e = waiters.join("c");
        Probe a = new Probe("a");
        Probe b = new Probe("b");
        e.parkOrTake(a, e.epoch());
        e.parkOrTake(b, e.epoch());
        waiters.onMessage("c", "0");
        waiters.onMessage("c", "0");
        assertEquals(List.of("a"), a.got);
        assertEquals(List.of("b"), b.got);
        assertEquals(0, e.unpairedCount());
    }

    /**
     * Lingering (directed wake-ups): the entry outlives its last waiter and keeps its subscriptions
     * until the linger expires; a wake-up banked on it meanwhile, and one that found the entry just
     * before it expired, are each passed on by the leave call (the expiry sends one always: a
     * registration outliving the last waiter goes); close() drops a lingering entry, with its leave call.
     */
    @Test
    void lingeringEntry_keepsItsSubscriptions_andPassesOnAWakeUpNobodyTook() {
        FakePubSub driver = new FakePubSub();
        Waiters w = new Waiters(driver, false);
        java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        w.leaveRunner(call -> { sent.incrementAndGet(); return java.util.concurrent.CompletableFuture.completedFuture(null); });
        List<Runnable> expiries = new java.util.ArrayList<>();
        w.lingerTimer(expiries::add);
        io.github.relock.core.internal.protocol.Call<Boolean> leave =
                new io.github.relock.core.internal.protocol.Call<>(null, List.of(), List.of(), r -> true);
        Channel e = w.join("c", io.github.relock.core.internal.protocol.MessageWakes.LOCK, "wake", "me", leave);
        w.leave(e, true);
        assertEquals(0, driver.unsubscribes.get(), "the lingering entry kept its subscriptions");
        assertEquals(1, w.listening("c"), "a lingering entry listens: a failed attempt registers");
        assertEquals(0, w.joined("c"), "a lingering entry counts no waiter");
        assertEquals(0, w.activeChannels(), "stats count no lingering channel");
        assertSame(e, w.join("c", io.github.relock.core.internal.protocol.MessageWakes.LOCK, "wake", "me", leave),
                "a waiter joining within the linger reuses the entry");
        assertEquals(3, driver.subscribes.get(), "subscribed once: the lock's channel and the two wake channels");
        w.leave(e, true);
        w.onMessage("wake:me", "me"); // banked: nobody joined
        expiries.get(0).run(); // the first linger's generation is over: does nothing
        assertSame(e, w.entry("c"));
        expiries.get(1).run();
        assertEquals(1, sent.get(), "the banked wake-up is passed on at expiry");
        assertNull(w.entry("c"));
        assertEquals(3, driver.unsubscribes.get(), "the three channels unsubscribed at expiry");
        w.wakeNamed(e); // a message that found the entry just before it expired
        assertEquals(2, sent.get(), "a wake-up heard as the entry expired is passed on");

        Channel f = w.join("d", io.github.relock.core.internal.protocol.MessageWakes.LOCK, "wake-d", "me", leave);
        w.leave(f, true);
        w.closeAll(0);
        assertNull(w.entry("d"), "close() drops a lingering entry");
        assertEquals(3, sent.get(), "close() sends the lingering entry's leave call: a registration left goes with the client");
        Channel g = w.join("d", io.github.relock.core.internal.protocol.MessageWakes.LOCK, "wake-d", "me", leave);
        w.leave(g, true);
        assertNull(w.entry("d"), "after close() an entry does not linger");
        assertEquals(4, sent.get(), "after close() the last waiter leaves the waiting clients even holding the lock");
    }
}
