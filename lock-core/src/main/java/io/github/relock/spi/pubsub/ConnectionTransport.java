package io.github.relock.spi.pubsub;

import java.util.concurrent.CompletableFuture;

/**
 * A driver's raw pub/sub in the <em>connection</em> style of Lettuce, run by
 * {@link ConnectionPubSub}: one long-lived pub/sub connection whose commands return futures that
 * complete on Redis's confirmation, and which the client reconnects (and resubscribes) by itself.
 * The transport only talks to Redis: which channels are wanted, which listener gets a message,
 * timeouts, resubscribing after a break or a slot move, and telling core are
 * {@link ConnectionPubSub}'s.
 *
 * <p>The driver reports what its client sees to the {@link Events} given to
 * {@link ConnectionPubSub}'s constructor's factory: messages, the connection coming back, and a
 * sharded channel the server dropped (its slot moved).
 *
 * <p>Errors: the futures fail with what the client failed with, translated by the driver: a Redis
 * error reply as {@link io.github.relock.api.RedisErrorException}, anything else as
 * {@link io.github.relock.api.RedisUnavailableException}. A method may also throw instead of
 * returning a failed future; what it throws counts as a failed future, and anything but those two
 * types as {@link io.github.relock.api.RedisUnavailableException}.
 *
 * <p>Thread-safety: a transport must be safe for use by several threads; its methods are called
 * from callers' threads and from the client's I/O threads, always under {@link ConnectionPubSub}'s
 * lock (that keeps the commands of one channel in order): a send only hands the command to the
 * client, it never waits for Redis.
 */
public interface ConnectionTransport extends AutoCloseable {

    /**
     * Sends {@code SUBSCRIBE} (or {@code SSUBSCRIBE} when {@code sharded}) of one channel.
     *
     * @return completes when Redis confirmed the subscription
     */
    CompletableFuture<Void> subscribe(String channel, boolean sharded);

    /**
     * Sends {@code UNSUBSCRIBE} (or {@code SUNSUBSCRIBE}) of one channel; sharded on a cluster, to
     * every node the channel may be subscribed on.
     *
     * @return completes when Redis confirmed, or the connection is gone (and the subscription with
     *     it); {@link ConnectionPubSub} stops waiting at its timeout
     */
    CompletableFuture<Void> unsubscribe(String channel, boolean sharded);

    /**
     * Sends {@code PING} on the pub/sub connection. {@link ConnectionPubSub} probes the connection
     * so while channels are subscribed, and calls {@link #reconnect()} when the answer does not
     * come within its timeout: a connection that only reads never learns that a NAT or load
     * balancer dropped its flow.
     *
     * @return completes when Redis answered; null when this transport cannot ping or cannot
     *     {@link #reconnect()} (the default): the connection is then never probed
     */
    default CompletableFuture<Void> ping() {
        return null;
    }

    /**
     * Breaks the pub/sub connection without closing the transport, so that the client opens a new
     * one and resubscribes by itself, and {@link Events#reconnected()} follows. Called on a
     * transport whose {@link #ping()} went unanswered; the default does nothing.
     */
    default void reconnect() {
    }

    /** Closes the pub/sub connection; no event is reported after it returns. Idempotent. */
    @Override
    void close();

    /**
     * What the driver tells {@link ConnectionPubSub}, from the client's I/O threads.
     *
     * <p>Thread-safety: safe for use by several threads.
     */
    interface Events {
        /** A message arrived on {@code channel} ({@code sharded}: an {@code smessage}). */
        void message(String channel, String message, boolean sharded);

        /** The connection is back after a break (not called for the first connect). */
        void reconnected();

        /**
         * The connection broke; the client is reopening it and calls {@link #reconnected()} when
         * it is back. Optional: without it core learns of the break only when it is over.
         */
        default void disconnected() {
        }

        /**
         * A {@code sunsubscribe} of {@code channel} arrived: the server dropped the sharded channel
         * unasked (its slot moved), or confirmed a {@code SUNSUBSCRIBE}. The transport need not
         * tell the two apart: {@link ConnectionPubSub} subscribes the channel again only while it
         * is wanted, and its own unsubscribe stops wanting it before the command is sent.
         *
         * <p>Also called for every sharded channel whose node link broke, when the client keeps
         * one pub/sub connection per cluster node and reports no {@link #reconnected()} for them:
         * a node that died is never heard again on that link, and its channel must be routed to
         * the slot's new owner.
         */
        void shardDropped(String channel);
    }
}
