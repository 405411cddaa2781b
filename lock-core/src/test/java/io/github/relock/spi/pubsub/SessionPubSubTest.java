package io.github.relock.spi.pubsub;

import static io.github.relock.spi.pubsub.FakeSessionTransport.WAIT_MS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Subscription;
import io.github.relock.spi.pubsub.FakeSessionTransport.FakeLink;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionPubSub}'s state machine without Redis: a {@link FakeSessionTransport} plays the
 * server on the session's reader thread, so every interleaving here is the one the test wrote.
 */
class SessionPubSubTest {
    private final FakeSessionTransport transport = new FakeSessionTransport();
    private final AtomicInteger reconnects = new AtomicInteger();
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    private final Map<String, Subscription> subs = new HashMap<>();
    private SessionPubSub pubsub = new SessionPubSub(transport, "relock-test-pubsub", "test", Duration.ofSeconds(5));

    {
        pubsub.setConnectionListener(reconnects::incrementAndGet);
    }

    @AfterEach
    void close() {
        pubsub.close();
    }

    private CompletableFuture<Subscription> subscribe(String channel) {
        return pubsub.subscribe(channel, (c, m) -> messages.add(c + "=" + m));
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    static Throwable failureOf(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_MS, TimeUnit.MILLISECONDS));
        return e.getCause();
    }

    @Test
    void probe_pingNotAnsweredWithinTheTimeout_abortsTheLink_reopensIt_andTellsCore() throws Exception {
        pubsub.close();
        transport.pingable = true;
        pubsub = new SessionPubSub(transport, "relock-test-pubsub", "test", Duration.ofSeconds(5), Duration.ofMillis(20),
                Duration.ofMillis(500));
        pubsub.setConnectionListener(reconnects::incrementAndGet);
        FakeLink first = active("a");
        transport.expect("PING");
        first.pong().sync(); // answered: the link stays
        transport.expect("PING"); // the next probe, never answered
        transport.expect("ABORT");
        transport.expect("RUN a");
        transport.nextLink().confirm("a");
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofMillis(WAIT_MS), () -> {
            while (reconnects.get() == 0) {
                Thread.sleep(5);
            }
        });
        assertEquals(1, reconnects.get(), "core is told once the channel is back");
    }

    @Test
    void probe_firstConfirmationNeverComes_abortsTheLink_andTheSubscribeFailsAtOnce() throws Exception {
        pubsub.close();
        pubsub = new SessionPubSub(transport, "relock-test-pubsub", "test", Duration.ofSeconds(5), Duration.ofMillis(20),
                Duration.ofMillis(50));
        CompletableFuture<Subscription> a = subscribe("a");
        transport.expect("RUN a");
        transport.expect("ABORT"); // the flow swallowed the confirmation
        assertInstanceOf(RedisUnavailableException.class, failureOf(a));
    }

    @Test
    void probe_linkThatCannotPing_isNeverProbed() throws Exception {
        pubsub.close();
        pubsub = new SessionPubSub(transport, "relock-test-pubsub", "test", Duration.ofSeconds(5), Duration.ofMillis(10),
                Duration.ofSeconds(5));
        active("a");
        transport.expectNothing();
    }

    /** Subscribes {@code channels} one by one on a fresh session, each confirmed; returns its link. */
    private FakeLink active(String... channels) throws Exception {
        CompletableFuture<Subscription> first = subscribe(channels[0]);
        transport.expect("RUN " + channels[0]);
        FakeLink link = transport.nextLink();
        link.confirm(channels[0]);
        subs.put(channels[0], get(first));
        for (int i = 1; i < channels.length; i++) {
            CompletableFuture<Subscription> f = subscribe(channels[i]);
            transport.expect("SUB " + channels[i]);
            link.confirm(channels[i]);
            subs.put(channels[i], get(f));
        }
        return link;
    }

    @Test
    void subscribe_opensASessionWithTheChannel_completesOnlyOnConfirmation_thenDelivers() throws Exception {
        CompletableFuture<Subscription> f = subscribe("a");
        transport.expect("RUN a");
        FakeLink link = transport.nextLink();
        link.sync();
        assertFalse(f.isDone(), "completed before Redis confirmed");
        link.confirm("a").message("a", "hello");
        assertEquals("a", get(f).channel());
        assertEquals("a=hello", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
    }

    @Test
    void subscribesWhileStarting_areSentAtTheFirstConfirmation_andConfirmedInOrder() throws Exception {
        CompletableFuture<Subscription> a = subscribe("a");
        transport.expect("RUN a");
        FakeLink link = transport.nextLink();
        CompletableFuture<Subscription> b = subscribe("b");
        CompletableFuture<Subscription> c = subscribe("c");
        transport.expectNothing(); // nobody may send before the client attached the connection
        link.confirm("a");
        transport.expect("SUB b,c");
        get(a);
        link.confirm("b");
        get(b);
        link.sync();
        assertFalse(c.isDone(), "c completed by b's confirmation");
        link.confirm("c");
        get(c);
    }

    @Test
    void subscribeSameChannelTwice_failsTheSecond_withIllegalState() throws Exception {
        active("a");
        assertInstanceOf(IllegalStateException.class, failureOf(subscribe("a")));
    }

    @Test
    void unsubscribe_completesOnConfirmation_isIdempotent_andNoMessageReachesTheListenerAfter() throws Exception {
        FakeLink link = active("a", "b");
        CompletableFuture<Void> gone = subs.get("a").unsubscribe();
        assertSame(gone, subs.get("a").unsubscribe());
        transport.expect("UNSUB a");
        link.message("a", "late").sync();
        assertFalse(gone.isDone(), "completed before Redis confirmed the unsubscribe");
        link.unsubscribed("a").message("b", "still");
        get(gone);
        assertEquals("b=still", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        assertTrue(messages.isEmpty(), "a message after unsubscribe: " + messages);
    }

    @Test
    void lastChannelLeaves_sessionEnds_andTheNextSubscribeOpensANewSession() throws Exception {
        FakeLink first = active("a");
        CompletableFuture<Void> gone = subs.get("a").unsubscribe();
        transport.expect("UNSUB a");
        CompletableFuture<Subscription> b = subscribe("b"); // the session is draining: not sent on it
        transport.expectNothing();
        first.unsubscribed("a"); // the count reaches zero: run() returns
        get(gone);
        transport.expect("RUN b");
        FakeLink second = transport.nextLink();
        second.confirm("b");
        get(b);
        assertEquals(0, reconnects.get(), "a session that ended at zero channels is not a reconnect");
    }

    @Test
    void resubscribeWhileDraining_waitsForTheSessionToEnd_thenANewSessionTakesIt() throws Exception {
        FakeLink first = active("a");
        CompletableFuture<Void> gone = subs.get("a").unsubscribe();
        transport.expect("UNSUB a");
        CompletableFuture<Subscription> again = subscribe("a");
        transport.expectNothing(); // nothing is sent after the last channel's UNSUBSCRIBE
        first.unsubscribed("a");
        get(gone);
        transport.expect("RUN a");
        transport.nextLink().confirm("a");
        get(again);
    }

    @Test
    void changesWhileStarting_sendSubscribeBeforeUnsubscribe_soTheCountNeverReachesZero() throws Exception {
        FakeLink first = active("a", "b");
        first.breakWith(new RedisUnavailableException("connection reset"));
        transport.expect("RUN a,b");
        FakeLink second = transport.nextLink();
        CompletableFuture<Void> goneA = subs.get("a").unsubscribe();
        CompletableFuture<Void> goneB = subs.get("b").unsubscribe();
        CompletableFuture<Subscription> c = subscribe("c");
        second.confirm("a");
        transport.expect("SUB c");
        String unsub = transport.sent.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertTrue("UNSUB a,b".equals(unsub) || "UNSUB b,a".equals(unsub), unsub);
        second.confirm("b", "c").unsubscribed("a", "b");
        get(goneA);
        get(goneB);
        get(c);
    }

    @Test
    void connectionBreaks_newSessionResubscribesEverything_thenExactlyOneOnReconnect() throws Exception {
        FakeLink first = active("a", "b", "c");
        first.breakWith(new RedisUnavailableException("connection reset"));
        transport.expect("RUN a,b,c");
        FakeLink second = transport.nextLink();
        second.confirm("a", "b").sync();
        assertEquals(0, reconnects.get(), "onReconnect before every channel was back");
        second.confirm("c").sync();
        assertEquals(1, reconnects.get());
        second.message("b", "after").sync();
        assertEquals("b=after", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        assertEquals(1, reconnects.get());
    }

    @Test
    void connectionBreaks_coreIsToldAtOnce_andToldTheLinkIsBackWhenNoChannelIsWantedAnyMore() throws Exception {
        LinkEvents link = new LinkEvents();
        pubsub.setConnectionListener(link);
        FakeLink first = active("a");
        first.breakWith(new RedisUnavailableException("connection reset"));
        transport.expect("RUN a");
        FakeLink second = transport.nextLink();
        assertEquals(1, link.breaks.get(), "the break, told before the next session opened");
        assertEquals(0, link.reconnects.get());
        CompletableFuture<Void> gone = subs.get("a").unsubscribe();
        assertEquals(1, link.reconnects.get(), "no channel is wanted: core's view of the link must not stay broken");
        second.confirm("a");
        transport.expect("UNSUB a");
        second.unsubscribed("a"); // the count reaches zero: the session ends
        get(gone);
        transport.expectNothing();
        assertEquals(1, link.reconnects.get(), "told once");
        assertEquals(1, link.breaks.get());
    }

    @Test
    void unsubscribeWhileTheNewSessionStarts_isSentOnceActive_andReconnectIsStillToldOnce() throws Exception {
        FakeLink first = active("a", "b");
        first.breakWith(new RedisUnavailableException("connection reset"));
        transport.expect("RUN a,b");
        FakeLink second = transport.nextLink();
        CompletableFuture<Void> gone = subs.get("a").unsubscribe();
        transport.expectNothing(); // STARTING: nothing may be sent yet
        second.confirm("a");
        transport.expect("UNSUB a");
        second.confirm("b").unsubscribed("a");
        get(gone);
        second.sync();
        assertEquals(1, reconnects.get());
    }

    @Test
    void sessionRefused_failsOnlyTheUnconfirmedSubscribe_withTheRedisError_andKeepsTheConfirmedOnes() throws Exception {
        FakeLink first = active("a");
        CompletableFuture<Subscription> b = subscribe("b");
        transport.expect("SUB b");
        RedisErrorException refused = new RedisErrorException("NOPERM this user has no permissions to access the 'b' channel");
        first.breakWith(refused);
        assertSame(refused, failureOf(b));
        transport.expect("RUN a"); // a stays wanted and comes back, b does not
        transport.nextLink().confirm("a").sync();
        assertEquals(1, reconnects.get());
    }

    @Test
    void resubscribeRefusedAfterABreak_coreIsToldOncePerOutage_andAgainWhenEveryChannelIsBack() throws Exception {
        FakeLink first = active("a", "b");
        first.breakWith(new RedisUnavailableException("connection reset")); // an ACL tightened: Redis dropped it
        transport.expect("RUN a,b");
        RedisErrorException refused = new RedisErrorException("NOPERM this user has no permissions to access the 'b' channel");
        transport.nextLink().breakWith(refused); // Redis refuses the whole command for one channel
        transport.expect("RUN a"); // after the back-off, one channel per command from now on
        assertEquals(1, reconnects.get(), "a refused resubscribe was never told: the channels' waiters sleep until"
                + " their leases run out");
        FakeLink third = transport.nextLink();
        third.confirm("a");
        transport.expect("SUB b");
        third.breakWith(refused); // a link that cannot read on after an error reply: the session ends
        transport.expect("RUN a"); // b is held back
        assertEquals(1, reconnects.get(), "told once per outage");
        FakeLink back = transport.nextLink();
        back.confirm("a").message("a", "heard").sync();
        assertEquals("a=heard", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS), "the channel Redis still grants is deaf");
        assertEquals(2, reconnects.get(), "told once for the refusals of this outage, once when every channel Redis"
                + " accepted was back");
        Thread.sleep(150); // b's hold (100 ms) ends; the next change sends it again
        CompletableFuture<Subscription> c = subscribe("c");
        transport.expect("SUB b");
        transport.expect("SUB c");
        back.confirm("b", "c");
        get(c);
        back.message("b", "again").sync();
        assertEquals("b=again", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
    }

    @Test
    void resubscribeRefusedWhole_onALinkThatReadsOn_eachChannelGoesAlone_onlyTheRefusedOneFails() throws Exception {
        FakeLink first = active("a", "b");
        first.breakWith(new RedisUnavailableException("connection reset"));
        transport.expect("RUN a,b");
        RedisErrorException refused = new RedisErrorException("NOPERM this user has no permissions to access the 'b' channel");
        transport.nextLink().refuse(refused, "a", "b").ends(); // the session's first command: run returns
        transport.expect("RUN a");
        FakeLink third = transport.nextLink();
        third.confirm("a");
        transport.expect("SUB b");
        third.refuse(refused, "b").message("a", "heard").sync(); // the session goes on
        assertEquals("a=heard", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        assertEquals(1, reconnects.get(), "core is told once every channel Redis accepted is back");
        transport.expectNothing(); // b is held back, not asked for again at once
    }

    @Test
    void commandOfSeveralChannelsRefused_eachIsSentAlone_onlyTheRefusedOneFails_butAMovedSlotFailsThemAll()
            throws Exception {
        CompletableFuture<Subscription> a = subscribe("a");
        transport.expect("RUN a");
        FakeLink link = transport.nextLink();
        CompletableFuture<Subscription> b = subscribe("b");
        CompletableFuture<Subscription> c = subscribe("c");
        link.confirm("a");
        transport.expect("SUB b,c");
        get(a);
        RedisErrorException noPerm = new RedisErrorException("NOPERM this user has no permissions to access one of the channels");
        link.refuse(noPerm, "b", "c"); // Redis refused the command whole for c
        transport.expect("SUB b");
        transport.expect("SUB c");
        link.confirm("b").refuse(noPerm, "c");
        get(b);
        assertSame(noPerm, failureOf(c));
        CompletableFuture<Subscription> d = subscribe("d");
        transport.expect("SUB d");
        link.confirm("d");
        get(d);
        assertEquals(0, reconnects.get());

        pubsub.close();
        pubsub = new SessionPubSub(transport, "relock-test-pubsub", "test", Duration.ofSeconds(5));
        CompletableFuture<Subscription> x = pubsub.subscribe("x", (ch, m) -> { });
        transport.expect("UNSUBALL");
        transport.expect("RUN x");
        FakeLink moved = transport.nextLink();
        CompletableFuture<Subscription> y = pubsub.subscribe("y", (ch, m) -> { });
        CompletableFuture<Subscription> z = pubsub.subscribe("z", (ch, m) -> { });
        moved.confirm("x");
        transport.expect("SUB y,z");
        get(x);
        RedisErrorException slotMoved = new RedisErrorException("MOVED 994 127.0.0.1:7001");
        moved.refuse(slotMoved, "y", "z"); // every channel of the slot moved alike: no split
        assertSame(slotMoved, failureOf(y));
        assertSame(slotMoved, failureOf(z));
        transport.expectNothing();
    }

    @Test
    void subscribeRefusedMidSession_failsOnlyIt_theSessionGoesOn_noReconnect_andTheChannelCanBeSubscribedAgain()
            throws Exception {
        FakeLink link = active("a");
        CompletableFuture<Subscription> b = subscribe("b");
        transport.expect("SUB b");
        RedisErrorException moved = new RedisErrorException("MOVED 994 127.0.0.1:7001");
        link.refuse(moved, "b");
        assertSame(moved, failureOf(b));
        link.message("a", "still").sync();
        assertEquals("a=still", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        transport.expectNothing(); // no new session, no resubscribe
        assertEquals(0, reconnects.get());
        CompletableFuture<Subscription> again = subscribe("b");
        transport.expect("SUB b");
        link.confirm("b");
        get(again);
    }

    @Test
    void firstSubscribeRefused_failsIt_andTheNextSubscribeOpensANewSession() throws Exception {
        CompletableFuture<Subscription> a = subscribe("a");
        transport.expect("RUN a");
        FakeLink first = transport.nextLink();
        RedisErrorException moved = new RedisErrorException("MOVED 994 127.0.0.1:7001");
        first.refuse(moved, "a").ends();
        assertSame(moved, failureOf(a));
        transport.expectNothing();
        CompletableFuture<Subscription> b = subscribe("b");
        transport.expect("RUN b");
        transport.nextLink().confirm("b");
        get(b);
        assertEquals(0, reconnects.get());
    }

    @Test
    void connectionFails_unconfirmedSubscribeFailsAsUnavailable() throws Exception {
        CompletableFuture<Subscription> a = subscribe("a");
        transport.expect("RUN a");
        transport.nextLink().breakWith(new IllegalArgumentException("no route to host"));
        Throwable t = failureOf(a);
        assertInstanceOf(RedisUnavailableException.class, t);
        assertInstanceOf(IllegalArgumentException.class, t.getCause());
        transport.expectNothing(); // nothing is wanted: no new session
    }

    @Test
    void close_failsPendingSubscribes_endsTheSessionAndTheReader_andLaterSubscribesFail() throws Exception {
        FakeLink link = active("a");
        CompletableFuture<Subscription> b = subscribe("b");
        transport.expect("SUB b");
        CompletableFuture<Void> closed = CompletableFuture.runAsync(pubsub::close);
        assertInstanceOf(RedisUnavailableException.class, failureOf(b));
        transport.expect("UNSUBALL");
        link.unsubscribed("a");
        get(closed);
        assertInstanceOf(IllegalStateException.class, failureOf(subscribe("c")));
        assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("relock-test-pubsub")),
                "the reader thread still runs");
        get(subs.get("a").unsubscribe()); // harmless after close
    }

    @Test
    void closeWhileStarting_theFirstConfirmationUnsubscribesEverything() throws Exception {
        CompletableFuture<Subscription> a = subscribe("a");
        transport.expect("RUN a");
        FakeLink link = transport.nextLink();
        CompletableFuture<Void> closed = CompletableFuture.runAsync(pubsub::close);
        assertInstanceOf(RedisUnavailableException.class, failureOf(a));
        link.confirm("a");
        transport.expect("UNSUBALL");
        link.unsubscribed("a");
        get(closed);
    }

    @Test
    void throwingListener_doesNotStopLaterMessages() throws Exception {
        CompletableFuture<Subscription> f = pubsub.subscribe("a", (c, m) -> {
            messages.add(m);
            throw new IllegalStateException("listener bug");
        });
        transport.expect("RUN a");
        transport.nextLink().confirm("a").message("a", "1").message("a", "2");
        get(f);
        assertEquals("1", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        assertEquals("2", messages.poll(WAIT_MS, TimeUnit.MILLISECONDS));
    }

    @Test
    void oneSlotPerCommand_opensWithTheFirstSlot_andSendsTheOthersOnePerSlot() throws Exception {
        pubsub.close();
        pubsub = new SessionPubSub(transport, "relock-test-spubsub", "test", Duration.ofSeconds(5), Duration.ZERO,
                Duration.ZERO, true, lost -> { });
        CompletableFuture<Subscription> a1 = subscribe("{a}1");
        transport.expect("RUN {a}1");
        FakeLink link = transport.nextLink();
        CompletableFuture<Subscription> b1 = subscribe("{b}1");
        CompletableFuture<Subscription> a2 = subscribe("{a}2");
        CompletableFuture<Subscription> b2 = subscribe("{b}2");
        CompletableFuture<Subscription> c1 = subscribe("{c}1");
        link.confirm("{a}1");
        get(a1);
        String first = transport.sent.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        String second = transport.sent.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        String third = transport.sent.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertEquals(java.util.Set.of("SUB {a}2", "SUB {b}1,{b}2", "SUB {c}1"), java.util.Set.of(first, second, third),
                "one command per slot");
        link.confirm("{a}2", "{b}1", "{b}2", "{c}1");
        for (CompletableFuture<Subscription> f : java.util.List.of(b1, a2, b2, c1)) {
            get(f);
        }
    }
}
