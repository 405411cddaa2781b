package io.github.relock.spi;

import java.util.concurrent.CompletableFuture;

/**
 * One channel subscribed on the driver's shared pub/sub connection.
 *
 * <p>Thread-safety: safe for use by several threads; {@link #unsubscribe()} is idempotent.
 */
public interface Subscription {

    /** @return the channel name */
    String channel();

    /**
     * Unsubscribes the channel. No message is delivered to the listener after the returned
     * future completes.
     *
     * @return completes when Redis confirmed the unsubscribe (or the connection is gone)
     */
    CompletableFuture<Void> unsubscribe();
}
