package io.github.relock.spi;

/**
 * Receives pub/sub messages from a driver (connection events go to {@link ConnectionListener}). Called on the driver's pub/sub
 * thread: implementations must not block.
 *
 * <p>Thread-safety: implementations must tolerate calls from the driver's pub/sub thread
 * concurrently with their own callers.
 */
public interface MessageListener {

    /**
     * @param channel the channel the message came on, exactly as subscribed
     * @param message the payload, decoded as UTF-8
     */
    void onMessage(String channel, String message);
}
