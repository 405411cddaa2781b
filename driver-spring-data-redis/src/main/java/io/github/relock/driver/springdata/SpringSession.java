package io.github.relock.driver.springdata;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.Subscription;

/**
 * A pub/sub session through Spring's own subscription API on one factory connection, for a
 * Lettuce-backed factory: Lettuce's {@code SUBSCRIBE}/{@code UNSUBSCRIBE} return on Redis's
 * confirmation, its event loop delivers, and closing the connection never leaves a reply behind
 * for another borrower.
 *
 * <p>Thread-safety: as {@link PubSubSession} says.
 */
final class SpringSession implements PubSubSession {

    private final RedisConnection connection;
    private final SpringPubSub sink;
    private volatile boolean ended;

    SpringSession(RedisConnection connection, SpringPubSub sink) {
        this.connection = connection;
        this.sink = sink;
    }

    @Override
    public void start(byte[][] first) {
        connection.subscribe(sink, first);
    }

    @Override
    public boolean isSubscribed() {
        return !ended && connection.isSubscribed() && connection.getSubscription() != null;
    }

    @Override
    public void join(byte[] channel) {
        subscription().subscribe(channel);
    }

    @Override
    public void leave(byte[] channel) {
        subscription().unsubscribe(channel);
    }

    private Subscription subscription() {
        Subscription sub = connection.getSubscription();
        if (sub == null) {
            throw new IllegalStateException("the pub/sub connection has no subscription");
        }
        return sub;
    }

    @Override
    public void end() {
        ended = true;
        try {
            Subscription sub = connection.getSubscription();
            if (sub != null && sub.isAlive()) {
                sub.close();
            }
        } catch (RuntimeException ignored) {
            // the connection is gone anyway
        }
        try {
            connection.close();
        } catch (RuntimeException ignored) {
            // already closed by a break
        }
    }

    @Override
    public boolean ended() {
        return ended;
    }
}
