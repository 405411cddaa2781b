package com.example.resp;

import io.github.relock.api.LockException;
import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.pubsub.SessionPubSub;
import io.github.relock.spi.pubsub.SessionTransport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/*
 * Design: the raw half of pub/sub. SessionPubSub (the SPI's helper) keeps the books: which channels
 * are wanted, which confirmation answers which subscribe, reconnecting with back-off, resubscribing,
 * onReconnect. This link only opens a dedicated connection, sends SUBSCRIBE/UNSUBSCRIBE and reads.
 *
 * One thing it must get right by itself (kit rule 28.3): Redis may refuse a SUBSCRIBE with an error
 * reply (an ACL user without the channel) while the connection carries other channels. A RESP2
 * subscription survives an error reply, so the link reads on: the commands it sent wait in a FIFO
 * (Redis answers in order), an error reply settles the oldest, and only that command's channels
 * fail (Events.refused). The connection is never shared or pooled, and is closed when the session
 * ends, so no connection still in pub/sub mode ever answers another caller's command.
 */
/**
 * One pub/sub session on a connection of its own, for {@link SessionPubSub}: {@link #run} reads on
 * the session's reader thread until Redis counts no channel (it returns) or the connection breaks
 * (it throws {@link RedisUnavailableException}).
 *
 * <p>Thread-safety: {@link #run} on the reader thread; the other methods on any thread, one at a
 * time, after the first confirmation, as {@link SessionTransport.Link} says.
 */
final class RespSubscriber implements SessionTransport.Link {

    /** A command sent, and the confirmations it still waits for (one per channel; UNSUBSCRIBE of all: until zero). */
    private static final class Sent {
        final boolean subscribe;
        final List<String> channels;
        int awaiting;

        Sent(boolean subscribe, List<String> channels) {
            this.subscribe = subscribe;
            this.channels = channels;
            this.awaiting = channels.size();
        }
    }

    private final RespEndpoint endpoint;
    private final int timeoutMs;
    private final String clientName;
    private final SessionTransport.Events events;
    private final Deque<Sent> inFlight = new ConcurrentLinkedDeque<>();
    private volatile RespConnection connection;

    /**
     * @param endpoint where to connect
     * @param timeoutMs the connect and log-in timeout (then it waits for messages without one)
     * @param clientName the connection's name
     * @param events where the session's confirmations and messages go
     */
    RespSubscriber(RespEndpoint endpoint, int timeoutMs, String clientName, SessionTransport.Events events) {
        this.endpoint = endpoint;
        this.timeoutMs = timeoutMs;
        this.clientName = clientName;
        this.events = events;
    }

    /** Rules 1.5.1 (one connection for every channel) and 1.5.4 (a break throws; the helper reconnects). */
    @Override
    public void run(List<String> initial) {
        try (RespConnection c = RespConnection.open(endpoint, timeoutMs, clientName)) {
            c.waitForRepliesForever();
            connection = c;
            send(true, initial);
            readUntilNoChannelIsLeft(c);
        } catch (IOException e) {
            throw new RedisUnavailableException("the pub/sub connection to " + endpoint + " broke: " + e, e);
        } finally {
            connection = null;
        }
    }

    private void readUntilNoChannelIsLeft(RespConnection c) throws IOException {
        long count = 0; // channels Redis counts on this connection
        do {
            Object reply = c.read();
            if (reply instanceof LockException error) { // rule 28.3: only that command fails
                Sent refused = inFlight.poll();
                if (refused == null || !refused.subscribe) {
                    throw error;
                }
                events.refused(refused.channels, error);
                continue;
            }
            if (reply instanceof List<?> pong && pong.size() == 2 && "pong".equals(pong.get(0))) {
                events.pong(); // rules 28.10, 28.11: the link is alive
                continue;
            }
            if (!(reply instanceof List<?> frame) || frame.size() != 3) {
                throw new IOException("not a pub/sub frame: " + reply);
            }
            String kind = (String) frame.get(0);
            String channel = (String) frame.get(1);
            switch (kind) {
                case "subscribe" -> {
                    count = (Long) frame.get(2);
                    confirmed(true, count);
                    events.subscribed(channel);
                }
                case "unsubscribe" -> {
                    count = (Long) frame.get(2);
                    confirmed(false, count);
                    if (channel != null) { // UNSUBSCRIBE of nothing answers a null channel
                        events.unsubscribed(channel);
                    }
                }
                case "message" -> events.message(channel, (String) frame.get(2));
                default -> throw new IOException("unknown pub/sub frame: " + kind);
            }
        } while (count > 0 || !inFlight.isEmpty());
    }

    /** Counts a confirmation against the oldest command; an UNSUBSCRIBE of all is done at zero. */
    private void confirmed(boolean subscribe, long count) {
        Sent head = inFlight.peek();
        if (head == null || head.subscribe != subscribe) {
            return;
        }
        boolean answered = head.channels.isEmpty() ? count == 0 : --head.awaiting == 0;
        if (answered) {
            inFlight.poll();
        }
    }

    @Override
    public void subscribe(List<String> channels) {
        send(true, channels);
    }

    @Override
    public void unsubscribe(List<String> channels) {
        send(false, channels);
    }

    @Override
    public void unsubscribeAll() {
        send(false, List.of());
    }

    /**
     * Rules 28.10 and 28.11: a connection that only reads never learns that a NAT or load balancer
     * dropped its flow without a reset, so {@link SessionPubSub} probes it: {@code PING} in
     * subscribed mode, answered with a {@code ["pong", ""]} frame the reader reports.
     */
    @Override
    public boolean ping() {
        RespConnection c = connection;
        if (c == null) {
            throw new RedisUnavailableException("the pub/sub connection to " + endpoint + " is not open");
        }
        try {
            c.send(List.of("PING"));
        } catch (IOException e) {
            c.close(); // the reader sees the break and ends the session
            throw new RedisUnavailableException("sending PING to " + endpoint + " failed: " + e, e);
        }
        return true;
    }

    /** No pong in time: closes the socket (never pooled), so the reader throws and the helper reconnects. */
    @Override
    public void abort() {
        RespConnection c = connection;
        if (c != null) {
            c.close();
        }
    }

    /** Records the command before it goes out, so the reader never sees an answer it cannot place. */
    private void send(boolean subscribe, List<String> channels) {
        RespConnection c = connection;
        if (c == null) {
            throw new RedisUnavailableException("the pub/sub connection to " + endpoint + " is not open");
        }
        List<String> command = new ArrayList<>(channels.size() + 1);
        command.add(subscribe ? "SUBSCRIBE" : "UNSUBSCRIBE");
        command.addAll(channels);
        Sent sent = new Sent(subscribe, List.copyOf(channels));
        inFlight.add(sent);
        try {
            c.send(command);
        } catch (IOException e) {
            inFlight.remove(sent);
            c.close(); // the reader sees the break and ends the session
            throw new RedisUnavailableException("sending " + command.get(0) + " to " + endpoint + " failed: " + e, e);
        }
    }
}
