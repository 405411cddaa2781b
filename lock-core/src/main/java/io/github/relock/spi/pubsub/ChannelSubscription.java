package io.github.relock.spi.pubsub;

import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;

/**
 * What every helper's {@link Subscription} carries: the channel, core's listener, the two futures
 * handed to core, and whether core asked to unsubscribe; subclasses add their bookkeeping and
 * {@link #unsubscribe()}.
 *
 * <p>Thread-safety: the fields here are final, volatile or thread-safe futures;
 * {@link #unsubscribeRequested} is written under the owning helper's lock; subclasses say what
 * guards theirs.
 */
abstract class ChannelSubscription implements Subscription {
    private static final System.Logger LOG = System.getLogger(ChannelSubscription.class.getName());

    final String channel;
    final MessageListener listener;
    /** Completed with this subscription when Redis confirmed it, or exceptionally. */
    final CompletableFuture<Subscription> subscribed = new CompletableFuture<>();
    /** Completed when the unsubscribe is confirmed (or the connection is gone). */
    final CompletableFuture<Void> unsubscribed = new CompletableFuture<>();
    /** Core asked to unsubscribe: no message reaches the listener any more. Written under the owner's lock. */
    volatile boolean unsubscribeRequested;

    ChannelSubscription(String channel, MessageListener listener) {
        this.channel = channel;
        this.listener = listener;
    }

    @Override
    public final String channel() {
        return channel;
    }

    /**
     * Under the owner's lock: marks that core asked to unsubscribe.
     *
     * @return false when it had asked already (the caller then returns {@link #unsubscribed})
     */
    final boolean requestUnsubscribe() {
        if (unsubscribeRequested) {
            return false;
        }
        unsubscribeRequested = true;
        return true;
    }

    /** Hands a message of the channel to core's listener, unless core asked to unsubscribe; logs what it throws. */
    final void deliver(String message) {
        if (unsubscribeRequested) {
            return;
        }
        try {
            listener.onMessage(channel, message);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "MessageListener for channel '" + channel + "' threw", e);
        }
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
