package io.github.relock.spi;

/**
 * Optional abilities a driver declares in {@link CommandExecutor#capabilities()}. Core never
 * guesses: an undeclared capability is not used, and asking for it fails loudly.
 */
public enum Capability {
    /** The client talks to a Redis Cluster; core groups multi-key work by hash slot. */
    CLUSTER,
    /** {@link CommandExecutor#subscribe} honours {@code sharded = true} with {@code SSUBSCRIBE}. */
    SHARDED_PUBSUB,
    /** {@link CommandExecutor#evalShaWithWait} pipelines a script and {@code WAIT} on one connection. */
    REPLICA_WAIT
}
