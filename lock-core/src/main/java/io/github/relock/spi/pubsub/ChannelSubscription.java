package io.github.relock.spi.pubsub;

import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.util.concurrent.CompletableFuture;

/**
 * What every helper's {@link Subscription} carries: the channel, core's listener, and the two
 * futures handed to core; subclasses add their bookkeeping and {@link #unsubscribe()}.
 *
 * <p>Thread-safety: the fields here are final and the futures thread-safe; subclasses say what
 * guards theirs.
 */
abstract class ChannelSubscription implements Subscription {
    final String channel;
    final MessageListener listener;
    /** Completed with this subscription when Redis confirmed it, or exceptionally. */
    final CompletableFuture<Subscription> subscribed = new CompletableFuture<>();
    /** Completed when the unsubscribe is confirmed (or the connection is gone). */
    final CompletableFuture<Void> unsubscribed = new CompletableFuture<>();

    ChannelSubscription(String channel, MessageListener listener) {
        this.channel = channel;
        this.listener = listener;
    }

    @Override
    public final String channel() {
        return channel;
    }

    /** Completes the unsubscribe, and a still pending subscribe: subscribed, then unsubscribed, nothing failed. */
    final void finished() {
        subscribed.complete(this);
        unsubscribed.complete(null);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + channel + "]";
    }
}
