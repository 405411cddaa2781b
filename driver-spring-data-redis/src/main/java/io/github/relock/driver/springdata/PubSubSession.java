package io.github.relock.driver.springdata;

/**
 * One pub/sub connection of {@link SpringPubSub}, from its first {@code SUBSCRIBE} to its end:
 * Spring's subscription API on a Lettuce-backed factory ({@link SpringSession}), a connection of
 * the session's own on a Jedis-backed one (until those moved to core's pub/sub).
 *
 * <p>Thread-safety: {@link #start} runs on the session's reader thread; every other method on
 * {@link SpringPubSub}'s control thread, one at a time.
 */
interface PubSubSession {

    /**
     * Subscribes the first channels. On Jedis this reads the connection until Redis counts zero
     * channels (returns) or the connection breaks (throws); on Lettuce it returns on Redis's
     * confirmation.
     */
    void start(byte[][] first);

    /** @return whether more channels can join: the session still has a channel and was not ended */
    boolean isSubscribed();

    /** Subscribes one more channel; Redis's confirmation reaches {@link SpringPubSub}. */
    void join(byte[] channel);

    /**
     * Unsubscribes one channel. When it is the last one the session sends nothing more, so no
     * reply can arrive after Jedis' reading loop stopped.
     */
    void leave(byte[] channel);

    /**
     * Stops the session and gives up its connection for good: a Jedis connection is destroyed,
     * never handed back to a pool with a reply still unread on it. A reader still reading ends.
     */
    void end();

    /** @return whether {@link #end} was called: a reader ending now was stopped, not broken */
    boolean ended();

    /** Opens sessions on the factory the executor wraps. */
    @FunctionalInterface
    interface Opener {
        /**
         * @param sink where the session hands Redis's confirmations and messages
         * @return a session on a connection of its own, not started
         */
        PubSubSession open(SpringPubSub sink);
    }
}
