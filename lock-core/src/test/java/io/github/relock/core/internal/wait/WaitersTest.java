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

        Probe(String name) {
            this.name = name;
        }

        @Override
        public void message() {
            got.add(name);
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
}
