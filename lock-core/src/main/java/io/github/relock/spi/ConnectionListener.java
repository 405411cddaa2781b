package io.github.relock.spi;

/**
 * Told by a driver when its pub/sub connection came back after a break and every channel was
 * subscribed again. Messages published while it was down are lost, so core makes every waiter
 * poll again at once.
 *
 * <p>Thread-safety: called on the driver's pub/sub thread; implementations must not block.
 */
@FunctionalInterface
public interface ConnectionListener {

    /** The pub/sub connection was re-established and all channels are subscribed again. */
    void onReconnect();
}
