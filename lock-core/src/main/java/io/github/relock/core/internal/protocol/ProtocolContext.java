package io.github.relock.core.internal.protocol;

/**
 * What the protocols need to know of their client: how releases publish, the fair lock's wait,
 * the spin lock's back-off, and which subscriptions of its own the client holds on a lock channel
 * (so a release can tell another client's waiter from its own).
 *
 * <p>Thread-safety: immutable.
 *
 * @param publishMode PUBLISH (one server), or BOTH on a cluster (classic and sharded subscribers)
 * @param fairWaitMs the fair lock's fairLockWaitTimeout in ms
 * @param spinInitialMs the spin lock's first pause
 * @param spinMaxMs the spin lock's longest pause
 * @param ownShardedSubscriptions 1 when the client also subscribes sharded (a cluster whose
 *     driver declares sharded pub/sub), else 0
 */
public record ProtocolContext(String publishMode, long fairWaitMs, long spinInitialMs, long spinMaxMs,
                              int ownShardedSubscriptions) {
}
