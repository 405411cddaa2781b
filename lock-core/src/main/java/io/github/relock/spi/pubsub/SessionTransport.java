package io.github.relock.spi.pubsub;

import java.util.List;

/**
 * A driver's raw pub/sub in the <em>session</em> style of Jedis, run by {@link SessionPubSub}: a
 * session's {@link Link#run} opens a connection with its first channels and reads it on the
 * calling (reader) thread until the server counts zero channels or the connection breaks; other
 * threads add and remove channels on the running session. The transport only talks to Redis:
 * which channels are wanted, which command a confirmation answers, reconnects and futures are
 * {@link SessionPubSub}'s.
 *
 * <p>Errors: {@link Link#run} and the sends throw what the client threw, translated by the driver:
 * a Redis error reply (e.g. an ACL refusing a channel) as
 * {@link io.github.relock.api.RedisErrorException}; anything else is taken as the connection being
 * unusable. A link that can read on after an error reply reports it with {@link Events#refused}
 * instead, and only that command's channels fail.
 *
 * <p>Thread-safety: a transport is shared and must be safe for use by several threads. A
 * {@link Link} belongs to one session: {@link Link#run} runs on the reader thread, the other
 * methods on any thread but one at a time (under {@link SessionPubSub}'s lock) and only after the
 * link reported its first confirmation.
 */
@FunctionalInterface
public interface SessionTransport {

    /**
     * @param events where the session reports Redis's confirmations and messages
     * @return a new, unopened link for one session
     */
    Link open(Events events);

    /** One session's connection. */
    interface Link {
        /**
         * Opens a connection (from the client's pool or provider, with its credentials), subscribes
         * {@code initial} and reads, calling {@link Events} on this thread, until the server counts
         * zero channels (returns) or the connection breaks (throws). Gives the connection up at the
         * end so that no reply is left unread on a pooled connection.
         *
         * @param initial the first channels, never empty; with {@link ShardedPubSub}, of one hash slot
         */
        void run(List<String> initial);

        /** Subscribes more channels on the running session (with {@link ShardedPubSub}, of one slot). */
        void subscribe(List<String> channels);

        /** Unsubscribes channels on the running session (with {@link ShardedPubSub}, of one slot). */
        void unsubscribe(List<String> channels);

        /** Unsubscribes every channel, so that {@link #run} returns. */
        void unsubscribeAll();

        /**
         * Sends {@code PING} on the running session; a subscribed connection answers with a pong,
         * which the link reports with {@link Events#pong}. {@link SessionPubSub} probes an idle
         * link so, and calls {@link #abort()} when no pong comes within the command timeout: a
         * connection that only reads never learns that a NAT or load balancer dropped its flow.
         *
         * @return false when this link cannot ping or cannot {@link #abort()} (the default): the
         *     session is then never probed
         */
        default boolean ping() {
            return false;
        }

        /**
         * Breaks the running session's connection (closes its socket; it never goes back into a
         * pool), so that {@link #run} throws soon and {@link SessionPubSub} opens a new session.
         * Called from any thread, under {@link SessionPubSub}'s lock, when a {@code PING} went
         * unanswered, or when the session's first confirmation did not come in time (before the
         * link reported one: a link that does not hold its connection yet does nothing).
         */
        default void abort() {
        }
    }

    /** A session's callbacks, called on the reader thread from inside {@link Link#run}. */
    interface Events {
        /** Redis confirmed a subscription of {@code channel}. */
        void subscribed(String channel);

        /** Redis confirmed an unsubscription of {@code channel}, or dropped it unasked (sharded: slot moved). */
        void unsubscribed(String channel);

        /** A message arrived on {@code channel}; the payload decoded as UTF-8. */
        void message(String channel, String message);

        /** Redis answered a {@link Link#ping()}. */
        default void pong() {
        }

        /**
         * Redis answered the subscribe command that carried {@code channels} with an error reply
         * ({@code MOVED} for a slot that moved, an ACL refusing a channel) and the session goes
         * on: a RESP2 subscription survives an error reply, and the other channels stay
         * subscribed. Those channels' subscribes fail with {@code error} (the sharded router
         * routes a redirected one again). A link whose client cannot read on after an error reply
         * throws it from {@link Link#run} instead, which ends the session ({@link SessionPubSub}
         * takes it for the answer to the oldest command in flight); one whose first command was
         * refused returns from {@link Link#run} once nothing else is in flight. Redis refuses a
         * command of several channels whole when it refuses one of them, so {@link SessionPubSub}
         * sends each channel in its own command after such a refusal.
         *
         * @param channels the channels of the refused command, in the order sent
         * @param error the reply, as {@link io.github.relock.api.RedisErrorException}
         */
        default void refused(List<String> channels, RuntimeException error) {
            throw new UnsupportedOperationException("refused " + channels + ": " + error);
        }
    }
}
