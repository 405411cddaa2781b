package io.github.relock.spi.pubsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A scripted {@link ConnectionTransport}: every command is logged as text ({@code SUB a},
 * {@code SSUB a}, {@code UNSUB a}, {@code SUNSUB a}) with the future its confirmation completes, and
 * the test plays both Redis (confirming or failing those futures) and the client's I/O thread (the
 * {@link #events} it reports). Deterministic: what {@link ConnectionPubSub} does in answer happens
 * on the test's thread, except what its timer runs (timeouts, back-off retries).
 *
 * <p>Thread-safety: the log is a blocking queue; the other fields are volatile.
 */
final class FakeConnectionTransport implements ConnectionTransport {
    static final long WAIT_MS = FakeSessionTransport.WAIT_MS;

    /** Every command sent, in order. */
    final BlockingQueue<Command> sent = new LinkedBlockingQueue<>();
    /** Where the test reports the client's events; set when {@link ConnectionPubSub} opens this transport. */
    volatile Events events;
    /** Thrown by the next send instead of sending (a client refusing the command), then cleared. */
    volatile RuntimeException refuseNext;
    volatile boolean closed;
    /** Whether {@link #ping()} sends ({@code PING}); {@link #reconnect()} is logged as {@code RECONNECT}. */
    volatile boolean pingable;

    /** The factory handed to {@link ConnectionPubSub}. */
    ConnectionTransport open(Events e) {
        this.events = e;
        return this;
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel, boolean sharded) {
        return send((sharded ? "SSUB " : "SUB ") + channel);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel, boolean sharded) {
        return send((sharded ? "SUNSUB " : "UNSUB ") + channel);
    }

    private CompletableFuture<Void> send(String text) {
        RuntimeException refused = refuseNext;
        if (refused != null) {
            refuseNext = null;
            throw refused;
        }
        Command c = new Command(text);
        sent.add(c);
        return c.reply;
    }

    @Override
    public CompletableFuture<Void> ping() {
        return pingable ? send("PING") : null;
    }

    @Override
    public void reconnect() {
        sent.add(new Command("RECONNECT"));
    }

    @Override
    public void close() {
        closed = true;
    }

    /** Asserts the next command sent, waiting for it (the timer may send it). */
    Command expect(String text) throws InterruptedException {
        Command c = sent.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(c, "nothing was sent; expected " + text);
        assertEquals(text, c.text, "next command; later ones: " + sent);
        return c;
    }

    /** Takes the next {@code n} commands, in any order (a reconnect resubscribes a map's channels). */
    Map<String, Command> expectAnyOrder(String... texts) throws InterruptedException {
        Map<String, Command> got = new HashMap<>();
        for (int i = 0; i < texts.length; i++) {
            Command c = sent.poll(WAIT_MS, TimeUnit.MILLISECONDS);
            assertNotNull(c, "only " + got.keySet() + " were sent");
            got.put(c.text, c);
        }
        assertEquals(java.util.Set.of(texts), got.keySet());
        return got;
    }

    /** Asserts nothing was sent: what the test's own calls cause is sent before they return. */
    void expectNothing() {
        assertTrue(sent.isEmpty(), "unexpected command(s): " + sent);
    }

    /** One command sent, and the confirmation the test plays. */
    static final class Command {
        final String text;
        final CompletableFuture<Void> reply = new CompletableFuture<>();
        /** The thread that sent it. */
        final String thread = Thread.currentThread().getName();

        Command(String text) {
            this.text = text;
        }

        /** Redis confirms the command. */
        void confirm() {
            reply.complete(null);
        }

        /** The client fails the command (an error reply, or the connection gone). */
        void fail(RuntimeException failure) {
            reply.completeExceptionally(failure);
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
