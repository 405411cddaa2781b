package io.github.relock.driver.jedis;

import io.github.relock.api.RedisErrorException;
import io.github.relock.spi.pubsub.SessionTransport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Function;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/*
 * Design: one sharded pub/sub session on one node, read by relock's own loop rather than
 * JedisShardedPubSub's. Jedis' loop throws at the first error reply and so ends the session: one
 * SSUBSCRIBE answered MOVED (a slot that moved behind the client's stale slot cache) dropped every
 * other channel of the node, which core then routed again with a wake-all. A RESP2 subscription
 * survives an error reply, so this loop keeps reading: the commands it sent wait in a FIFO (Redis
 * answers in order), an error reply settles the oldest one, whose channels core fails
 * (Events.refused: the router routes a MOVED one again), and every other channel stays.
 *
 * The session ends when Redis counts no channel and no command of ours is in flight (Jedis ends at
 * a count of zero even with an SSUBSCRIBE unanswered), or when the connection breaks (throws). The
 * connection is always marked broken at the end, so the pool never lends it again.
 *
 * Writers (subscribe, unsubscribe: core calls them one at a time, only after the first
 * confirmation, so they need no lock of their own) append to the FIFO before the command is
 * flushed, so the reader never sees an answer before its command.
 */
/**
 * One sharded pub/sub session on one cluster node, read by relock's own loop
 * ({@link PubSubTransport#sharded}); used when {@link JedisVersions#flush} can flush a connection.
 *
 * <p>Thread-safety: {@link #run} on the reader thread; the other methods from any thread, one at a
 * time, as {@link SessionTransport.Link} says.
 */
final class ShardedLink implements SessionTransport.Link {
    private enum Kind { SUB, UNSUB, UNSUB_ALL }

    /** One command sent and the answers it still waits for (reader thread only, after it was added). */
    private static final class Command {
        final Kind kind;
        final List<String> channels;
        int awaiting;

        Command(Kind kind, List<String> channels) {
            this.kind = kind;
            this.channels = channels;
            this.awaiting = channels.size();
        }
    }

    private final HostAndPort node;
    private final Function<HostAndPort, Connection> borrow;
    private final SessionTransport.Events events;
    private final Deque<Command> inFlight = new ConcurrentLinkedDeque<>();
    private volatile Connection connection;

    ShardedLink(HostAndPort node, Function<HostAndPort, Connection> borrow, SessionTransport.Events events) {
        this.node = node;
        this.borrow = borrow;
        this.events = events;
    }

    @Override
    public void run(List<String> initial) {
        Connection c = borrow.apply(node);
        try {
            c.setTimeoutInfinite();
            connection = c;
            send(Kind.SUB, Protocol.Command.SSUBSCRIBE, initial);
            read(c);
        } finally {
            c.setBroken(); // never back into the pool: it may still be subscribed
            c.close();
        }
    }

    private void read(Connection c) {
        int count = 0;
        while (true) {
            Object reply;
            try {
                reply = c.getUnflushedObject();
            } catch (JedisDataException error) {
                Command refused = inFlight.poll(); // Redis answers in order: the oldest command
                if (refused == null || refused.kind != Kind.SUB) {
                    throw new RedisErrorException(error.getMessage(), error);
                }
                events.refused(refused.channels, new RedisErrorException(error.getMessage(), error));
                if (count == 0 && inFlight.isEmpty()) {
                    return;
                }
                continue;
            }
            if (!(reply instanceof List<?> frame) || frame.size() < 3) {
                throw new JedisException("Unexpected sharded pub/sub reply from " + node + ": " + reply);
            }
            String kind = text(frame.get(0));
            switch (kind) {
                case "ssubscribe" -> {
                    count = ((Long) frame.get(2)).intValue();
                    answered(Kind.SUB, null, count);
                    events.subscribed(text(frame.get(1)));
                }
                case "sunsubscribe" -> {
                    String channel = frame.get(1) == null ? null : text(frame.get(1));
                    count = ((Long) frame.get(2)).intValue();
                    answered(Kind.UNSUB, channel, count); // or a push: the slot moved away
                    if (channel != null) {
                        events.unsubscribed(channel);
                    }
                }
                case "smessage" -> events.message(text(frame.get(1)), text(frame.get(2)));
                default -> throw new JedisException("Unknown sharded pub/sub message from " + node + ": " + kind);
            }
            if (count == 0 && inFlight.isEmpty()) {
                return;
            }
        }
    }

    /** Settles the oldest command if this confirmation answers it. */
    private void answered(Kind kind, String channel, int count) {
        Command head = inFlight.peek();
        if (head == null) {
            return;
        }
        if (kind == Kind.SUB && head.kind == Kind.SUB) {
            if (--head.awaiting <= 0) {
                inFlight.poll();
            }
        } else if (kind == Kind.UNSUB && head.kind == Kind.UNSUB && head.channels.contains(channel)) {
            if (--head.awaiting <= 0) {
                inFlight.poll();
            }
        } else if (kind == Kind.UNSUB && head.kind == Kind.UNSUB_ALL && count == 0) {
            inFlight.poll();
        }
    }

    @Override
    public void subscribe(List<String> channels) {
        send(Kind.SUB, Protocol.Command.SSUBSCRIBE, channels);
    }

    @Override
    public void unsubscribe(List<String> channels) {
        send(Kind.UNSUB, Protocol.Command.SUNSUBSCRIBE, channels);
    }

    @Override
    public void unsubscribeAll() {
        send(Kind.UNSUB_ALL, Protocol.Command.SUNSUBSCRIBE, List.of());
    }

    /**
     * Records the command, then sends and flushes it. No lock: the session's first command goes
     * out before any other, and core sends the others one at a time (under its own lock).
     */
    private void send(Kind kind, Protocol.Command command, List<String> channels) {
        Connection c = connection;
        if (c == null) {
            throw new IllegalStateException("the sharded session on " + node + " has no connection yet");
        }
        Command sent = new Command(kind, new ArrayList<>(channels));
        inFlight.add(sent);
        try {
            c.sendCommand(command, channels.toArray(new String[0]));
            JedisVersions.flush(c);
        } catch (RuntimeException e) {
            inFlight.remove(sent);
            throw e;
        }
    }

    private static String text(Object raw) {
        return raw instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(raw);
    }
}
