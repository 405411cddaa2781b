package io.github.relock.spi;

/**
 * Told by a driver when its pub/sub connection came back after a break and every channel was
 * subscribed again, and optionally when it broke. Messages published while it was down are lost, so core makes every waiter
 * poll again at once.
 *
 * <p>Thread-safety: called on the driver's pub/sub thread; implementations must not block.
 */
@FunctionalInterface
public interface ConnectionListener {

    /** The pub/sub connection was re-established and all channels are subscribed again. */
    void onReconnect();

    /**
     * The pub/sub connection broke and is being reopened: what {@code LockClientStats.pubSubReconnecting()}
     * reports until {@link #onReconnect()} follows. A driver that calls this calls
     * {@link #onReconnect()} once the connection is back, or once no channel is wanted any more,
     * even when nothing was subscribed. The default does nothing (core then never reports a
     * break). Must not block.
     */
    default void onDisconnect() {
    }
}
