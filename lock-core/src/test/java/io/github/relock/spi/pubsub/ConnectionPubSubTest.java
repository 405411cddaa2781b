package io.github.relock.spi.pubsub;

import static io.github.relock.spi.pubsub.SessionPubSubTest.failureOf;
import static io.github.relock.spi.pubsub.SessionPubSubTest.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import io.github.relock.spi.pubsub.FakeConnectionTransport.Command;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ConnectionPubSub}'s bookkeeping without Redis: a {@link FakeConnectionTransport} logs
 * every command, and the test confirms them and reports the client's events itself, so every
 * interleaving here is the one the test wrote.
 */
class ConnectionPubSubTest {
    private final FakeConnectionTransport transport = new FakeConnectionTransport();
    private final AtomicInteger reconnects = new AtomicInteger();
    /** Released once per onReconnect, for what the timer thread tells. */
    private final Semaphore told = new Semaphore(0);
    /** What the listeners heard, as {@code channel=message}; listeners run on the test's thread. */
    private final Queue<String> heard = new ConcurrentLinkedQueue<>();
    private final MessageListener ear = (c, m) -> heard.add(c + "=" + m);
    private ConnectionPubSub pubsub = open(Duration.ofSeconds(30));

    private ConnectionPubSub open(Duration timeout) {
        ConnectionPubSub p = new ConnectionPubSub(transport::open, "test", timeout, true);
        p.setConnectionListener(() -> {
            reconnects.incrementAndGet();
            told.release();
        });
        return p;
    }

    @AfterEach
    void close() {
        pubsub.close();
    }

    /** Subscribes {@code channel} (sharded: {@code sharded}) and confirms it. */
    private Subscription confirmed(String channel, boolean sharded) throws Exception {
        CompletableFuture<Subscription> f = pubsub.subscribe(channel, sharded, ear);
        transport.expect((sharded ? "SSUB " : "SUB ") + channel).confirm();
        return get(f);
    }

    private void publish(String channel, String message, boolean sharded) {
        transport.events.message(channel, message, sharded);
    }

    @Test
    void probe_pingNotAnsweredWithinTheTimeout_reconnects_andTheReconnectTellsCore() throws Exception {
        pubsub.close();
        transport.pingable = true;
        pubsub = new ConnectionPubSub(transport::open, "test", Duration.ofMillis(100), true, Duration.ofMillis(20));
        pubsub.setConnectionListener(() -> {
            reconnects.incrementAndGet();
            told.release();
        });
        confirmed("a", false);
        transport.expect("PING").confirm(); // answered: nothing happens
        transport.expect("PING"); // never answered
        transport.expect("RECONNECT");
        transport.events.reconnected(); // the client is back
        Command resubscribe;
        do { // probes go on meanwhile
            resubscribe = transport.sent.poll(FakeConnectionTransport.WAIT_MS, TimeUnit.MILLISECONDS);
            assertNotNull(resubscribe, "no resubscribe after the reconnect");
            if (resubscribe.text.equals("PING")) {
                resubscribe.confirm();
            }
        } while (!resubscribe.text.equals("SUB a"));
        resubscribe.confirm();
        assertTrue(told.tryAcquire(FakeConnectionTransport.WAIT_MS, TimeUnit.MILLISECONDS), "core was not told");
        assertEquals(1, reconnects.get());
    }

    @Test
    void probe_nothingSubscribed_nothingSent() throws Exception {
        pubsub.close();
        transport.pingable = true;
        pubsub = new ConnectionPubSub(transport::open, "test", Duration.ofMillis(100), true, Duration.ofMillis(10));
        Subscription a = confirmed("a", false);
        transport.expect("PING").confirm();
        CompletableFuture<Void> gone = a.unsubscribe();
        Command unsub;
        do { // a probe may be on its way
            unsub = transport.sent.poll(FakeConnectionTransport.WAIT_MS, TimeUnit.MILLISECONDS);
            if (unsub != null && unsub.text.equals("PING")) {
                unsub.confirm();
            }
        } while (unsub != null && !unsub.text.equals("UNSUB a"));
        assertNotNull(unsub, "no UNSUBSCRIBE");
        unsub.confirm();
        get(gone);
        Command late = transport.sent.poll(100, TimeUnit.MILLISECONDS);
        if (late != null && late.text.equals("PING")) { // sent as the unsubscribe went out
            late.confirm();
            late = transport.sent.poll(100, TimeUnit.MILLISECONDS);
        }
        assertNull(late, "probed with nothing subscribed");
    }

    @Test
    void subscribe_completesOnlyOnConfirmation_andTheListenerHearsFromTheMomentTheCommandIsSent() throws Exception {
        CompletableFuture<Subscription> f = pubsub.subscribe("a", false, ear);
        Command sub = transport.expect("SUB a");
        assertFalse(f.isDone(), "completed before Redis confirmed");
        publish("a", "early", false); // Redis may deliver before the client completed the future
        sub.confirm();
        assertEquals("a", get(f).channel());
        assertEquals("a=early", heard.poll());
    }

    @Test
    void subscribeRefused_failsWithTheRedisError_unsubscribes_andFreesTheChannel() throws Exception {
        CompletableFuture<Subscription> f = pubsub.subscribe("a", false, ear);
        RedisErrorException refused = new RedisErrorException("NOPERM this user has no permissions to access the 'a' channel");
        transport.expect("SUB a").fail(refused);
        assertSame(refused, failureOf(f));
        transport.expect("UNSUB a");
        publish("a", "stray", false);
        assertNull(heard.poll(), "a failed subscription's listener heard a message");
        confirmed("a", false);
    }

    @Test
    void transportThrows_subscribeFailsAsUnavailable_withTheCause() throws Exception {
        transport.refuseNext = new IllegalArgumentException("request queue full");
        Throwable t = failureOf(pubsub.subscribe("a", false, ear));
        assertInstanceOf(RedisUnavailableException.class, t);
        assertInstanceOf(IllegalArgumentException.class, t.getCause());
        transport.expect("UNSUB a");
        confirmed("a", false);
    }

    @Test
    void subscribeNotConfirmedInTime_failsAsUnavailable_andALateConfirmationBringsNothingBack() throws Exception {
        pubsub.close();
        pubsub = open(Duration.ofMillis(50));
        CompletableFuture<Subscription> f = pubsub.subscribe("a", false, ear);
        Command sub = transport.expect("SUB a");
        Throwable t = failureOf(f);
        assertInstanceOf(RedisUnavailableException.class, t);
        assertInstanceOf(TimeoutException.class, t.getCause());
        Command undo = transport.expect("UNSUB a"); // carried after a SUBSCRIBE the client may still send
        assertEquals("relock-pubsub-timer", undo.thread);
        sub.confirm(); // late
        publish("a", "late", false);
        assertNull(heard.poll(), "a timed-out subscription's listener heard a message");
        assertTrue(f.isCompletedExceptionally());
        transport.expectNothing();
    }

    @Test
    void unsubscribe_detachesTheListenerBeforeTheCommand_completesOnConfirmation_andIsIdempotent() throws Exception {
        Subscription s = confirmed("a", false);
        CompletableFuture<Void> gone = s.unsubscribe();
        assertSame(gone, s.unsubscribe());
        Command unsub = transport.expect("UNSUB a");
        publish("a", "late", false);
        assertNull(heard.poll(), "a message reached the listener after its unsubscribe");
        assertFalse(gone.isDone(), "completed before Redis confirmed the unsubscribe");
        unsub.confirm();
        get(gone);
        transport.expectNothing();
    }

    @Test
    void unsubscribeNotConfirmedInTime_completesAnyway_theListenerIsDetachedAlready() throws Exception {
        pubsub.close();
        pubsub = open(Duration.ofMillis(50));
        Subscription s = confirmed("a", false);
        CompletableFuture<Void> gone = s.unsubscribe();
        transport.expect("UNSUB a");
        get(gone);
    }

    @Test
    void messagesReachOnlyTheCurrentListenerOfTheirChannelAndKind() throws Exception {
        Subscription first = confirmed("a", false);
        first.unsubscribe();
        Command unsub = transport.expect("UNSUB a");
        Queue<String> second = new ConcurrentLinkedQueue<>();
        CompletableFuture<Subscription> again = pubsub.subscribe("a", false, (c, m) -> second.add(m));
        transport.expect("SUB a"); // sent while the UNSUBSCRIBE is in flight: the connection keeps their order
        Queue<String> shard = new ConcurrentLinkedQueue<>();
        CompletableFuture<Subscription> sharded = pubsub.subscribe("a", true, (c, m) -> shard.add(m));
        transport.expect("SSUB a");
        publish("a", "classic", false);
        publish("a", "sharded", true);
        assertNull(heard.poll(), "the unsubscribed listener heard a message");
        assertEquals("classic", second.poll());
        assertEquals("sharded", shard.poll());
        assertTrue(second.isEmpty() && shard.isEmpty(), "a message reached both kinds: " + second + shard);
        unsub.confirm();
        assertFalse(again.isDone() || sharded.isDone(), "completed by another command's confirmation");
    }

    @Test
    void subscribeSameChannelTwice_failsTheSecond_withIllegalState() throws Exception {
        confirmed("a", false);
        assertInstanceOf(IllegalStateException.class, failureOf(pubsub.subscribe("a", false, ear)));
        transport.expectNothing();
        confirmed("a", true); // the sharded channel of that name is another one
    }

    @Test
    void shardedWithoutSupport_throwsUnsupported_namingWhatWasPassedAndWhatIsAllowed() {
        pubsub.close();
        pubsub = new ConnectionPubSub(transport::open, "test", Duration.ofSeconds(30), false);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> pubsub.subscribe("a", true, ear));
        assertTrue(e.getMessage().contains("sharded = true") && e.getMessage().contains("SHARDED_PUBSUB")
                && e.getMessage().contains("sharded = false"), e.getMessage());
        transport.expectNothing();
    }

    @Test
    void reconnect_resubscribesEveryWantedChannel_andTellsOnceWhenAllAreConfirmed() throws Exception {
        confirmed("a", false);
        confirmed("b", false);
        confirmed("c", true);
        transport.events.reconnected();
        Map<String, Command> resent = transport.expectAnyOrder("SUB a", "SUB b", "SSUB c");
        resent.get("SUB a").confirm();
        resent.get("SSUB c").confirm();
        assertEquals(0, reconnects.get(), "told before every channel was back");
        resent.get("SUB b").confirm();
        assertEquals(1, reconnects.get());
        publish("b", "after", false);
        assertEquals("b=after", heard.poll());
        transport.expectNothing();
    }

    @Test
    void reconnectWithNothingSubscribed_sendsNothingAndTellsNothing() {
        transport.events.reconnected();
        transport.expectNothing();
        assertEquals(0, reconnects.get());
    }

    @Test
    void disconnected_tellsCoreOncePerBreak_andTheReconnectTellsItEvenWithNothingSubscribed() {
        LinkEvents link = new LinkEvents();
        pubsub.setConnectionListener(link);
        transport.events.disconnected();
        transport.events.disconnected();
        assertEquals(1, link.breaks.get(), "one break, told once");
        transport.events.reconnected();
        transport.expectNothing();
        assertEquals(1, link.reconnects.get(), "the link is back: core's view of it must not stay broken");
        transport.events.reconnected();
        assertEquals(1, link.reconnects.get(), "a reconnect with no break reported and nothing wanted tells nothing");
    }

    @Test
    void disconnectedWithChannels_theReconnectTellsOnceEveryChannelIsBack() throws Exception {
        LinkEvents link = new LinkEvents();
        confirmed("a", false);
        pubsub.setConnectionListener(link);
        transport.events.disconnected();
        transport.events.reconnected();
        Command resent = transport.expect("SUB a");
        assertEquals(0, link.reconnects.get(), "told before the channel was back");
        resent.confirm();
        assertEquals(1, link.breaks.get());
        assertEquals(1, link.reconnects.get());
    }

    @Test
    void secondReconnectBeforeTheFirstIsConfirmed_onlyTheLatestTells() throws Exception {
        confirmed("a", false);
        transport.events.reconnected();
        Command first = transport.expect("SUB a");
        transport.events.reconnected();
        Command second = transport.expect("SUB a");
        first.confirm();
        assertEquals(0, reconnects.get(), "a superseded reconnect told core");
        second.confirm();
        assertEquals(1, reconnects.get());
    }

    @Test
    void resubscribeFails_coreIsToldAnyway_andTheChannelIsRetriedAndToldAgainWhenConfirmed() throws Exception {
        confirmed("a", false);
        confirmed("b", false);
        transport.events.reconnected();
        Map<String, Command> resubs = transport.expectAnyOrder("SUB a", "SUB b");
        resubs.get("SUB a").fail(new RedisErrorException("NOPERM this user has no permissions to access the 'a' channel"));
        assertEquals(0, reconnects.get(), "told before every resubscribe settled");
        resubs.get("SUB b").confirm();
        assertTrue(told.tryAcquire(), "a refused resubscribe while the link stays up: no later reconnect would tell");
        transport.expect("SUB a").fail(new RedisErrorException("NOPERM still"));
        transport.expect("SUB a").confirm(); // after the back-off; the timer thread may still be registering its callbacks
        assertTrue(told.tryAcquire(FakeConnectionTransport.WAIT_MS, TimeUnit.MILLISECONDS),
                "the retried channel is back, and what was published meanwhile is lost: core must be told again");
        assertEquals(2, reconnects.get());
        transport.expectNothing();
    }

    @Test
    void unsubscribeDuringTheResubscribe_isSentAgainWhenTheResubscribeIsConfirmed() throws Exception {
        Subscription s = confirmed("a", true);
        transport.events.reconnected();
        Command resub = transport.expect("SSUB a");
        CompletableFuture<Void> gone = s.unsubscribe();
        Command unsub = transport.expect("SUNSUB a");
        resub.confirm(); // on a cluster the SUNSUBSCRIBE may have reached the node first
        transport.expect("SUNSUB a");
        unsub.confirm();
        get(gone);
        transport.expectNothing();
    }

    @Test
    void resubscribeConfirmedWhileTheChannelIsWantedAgain_isKept() throws Exception {
        Subscription s = confirmed("a", false);
        transport.events.reconnected();
        Command resub = transport.expect("SUB a");
        s.unsubscribe();
        transport.expect("UNSUB a").confirm();
        CompletableFuture<Subscription> again = pubsub.subscribe("a", false, ear);
        transport.expect("SUB a").confirm();
        get(again);
        resub.confirm();
        transport.expectNothing();
    }

    @Test
    void shardDropped_isSubscribedAgainWithBackOffWhileItFails_thenTellsOnce() throws Exception {
        confirmed("a", true);
        transport.events.shardDropped("a");
        transport.expect("SSUB a").fail(new RedisUnavailableException("node down"));
        Command retry = transport.expect("SSUB a");
        assertEquals("relock-pubsub-timer", retry.thread, "retried at once rather than after a back-off");
        assertEquals(0, reconnects.get());
        retry.confirm(); // the timer thread may still be registering its callbacks: it may tell core
        assertTrue(told.tryAcquire(FakeConnectionTransport.WAIT_MS, TimeUnit.MILLISECONDS), "core was not told");
        assertEquals(1, reconnects.get());
        publish("a", "moved", true);
        assertEquals("a=moved", heard.poll());
        transport.expectNothing();
    }

    @Test
    void shardDroppedAgainWhileItsRetryRuns_oneChainSubscribesOnceMoreAfterTheConfirmation() throws Exception {
        confirmed("a", true);
        transport.events.shardDropped("a");
        Command first = transport.expect("SSUB a");
        transport.events.shardDropped("a"); // the node's link broke again before Redis confirmed
        transport.expectNothing();
        first.confirm(); // may have crossed the second break: not enough
        transport.expect("SSUB a").confirm();
        assertTrue(told.tryAcquire(FakeConnectionTransport.WAIT_MS, TimeUnit.MILLISECONDS), "core was not told");
        assertEquals(1, reconnects.get());
        transport.expectNothing();
    }

    @Test
    void shardDroppedOfAChannelNobodyWants_isNotSubscribedAgain() throws Exception {
        Subscription s = confirmed("a", true);
        s.unsubscribe();
        transport.expect("SUNSUB a").confirm();
        transport.events.shardDropped("a"); // the confirmation's push
        transport.events.shardDropped("b");
        transport.expectNothing();
        assertEquals(0, reconnects.get());
    }

    @Test
    void sunsubscribeWhileTheSubscribeIsUnconfirmed_isNoDrop_theChannelIsNotSubscribedAgainNorCoreWoken() throws Exception {
        Subscription s = confirmed("a", true);
        s.unsubscribe();
        Command unsub = transport.expect("SUNSUB a");
        unsub.confirm(); // core subscribes again as soon as the unsubscribe completes ...
        CompletableFuture<Subscription> again = pubsub.subscribe("a", true, ear);
        Command sub = transport.expect("SSUB a");
        transport.events.shardDropped("a"); // ... before the client reports that SUNSUBSCRIBE's reply
        transport.expectNothing();
        sub.confirm();
        get(again);
        assertEquals(0, reconnects.get(), "core was told of a slot move that did not happen");
        transport.events.shardDropped("a"); // once confirmed, a sunsubscribe is the server's drop
        transport.expect("SSUB a").confirm(); // the timer thread may still be registering its callbacks: it may tell core
        assertTrue(told.tryAcquire(FakeConnectionTransport.WAIT_MS, TimeUnit.MILLISECONDS), "core was not told");
        assertEquals(1, reconnects.get());
    }

    @Test
    void close_failsPendingSubscribes_settlesUnsubscribes_closesTheTransport_andLaterSubscribesFail() throws Exception {
        Subscription a = confirmed("a", false);
        CompletableFuture<Subscription> b = pubsub.subscribe("b", false, ear);
        transport.expect("SUB b");
        CompletableFuture<Void> gone = a.unsubscribe();
        transport.expect("UNSUB a");
        pubsub.close();
        assertInstanceOf(RedisUnavailableException.class, failureOf(b));
        get(gone);
        assertTrue(transport.closed, "the transport was not closed");
        assertInstanceOf(IllegalStateException.class, failureOf(pubsub.subscribe("c", false, ear)));
        transport.events.reconnected();
        transport.events.shardDropped("b");
        transport.expectNothing();
        pubsub.close(); // idempotent
    }

    @Test
    void throwingListener_doesNotStopLaterMessages() throws Exception {
        CompletableFuture<Subscription> f = pubsub.subscribe("a", false, (c, m) -> {
            heard.add(m);
            throw new IllegalStateException("listener bug");
        });
        transport.expect("SUB a").confirm();
        get(f);
        publish("a", "1", false);
        publish("a", "2", false);
        assertEquals("1", heard.poll());
        assertEquals("2", heard.poll());
    }
}
