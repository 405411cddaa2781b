package io.github.relock.api;

/**
 * What a {@link LockClient} does instead when the Redis server it talks to lacks a feature the
 * engine would use; reported once per client and fallback through
 * {@link LockEventListener#serverFallback}. Locking stays correct under every fallback; what
 * changes is its cost or how soon a waiter hears of a release. {@code docs/guide/supported-servers.md}
 * lists which servers need which.
 *
 * <p>Thread-safety: an enum; immutable.
 */
public enum ServerFallback {
    /**
     * The server refuses script flags ({@code #!lua flags=allow-cross-slot-keys}, Redis 7): on a
     * cluster the watchdog renews its locks with one script per hash slot instead of one per node
     * (Redis 6.2).
     */
    PER_SLOT_RENEWAL,
    /**
     * The server has no sharded pub/sub ({@code SSUBSCRIBE}, Redis 7), or the driver does not
     * declare it ({@code Capability.SHARDED_PUBSUB}): on a cluster, waiters listen
     * on classic pub/sub only. relock's releases and Redisson 3's publish classic too; a Redisson 4
     * client's release (sharded only) then reaches a waiter at the latest when it polls again, at
     * the TTL the lock showed (Redis 6.2).
     */
    CLASSIC_PUBSUB,
    /**
     * The server refuses to subscribe the lock's channel (an ACL without that channel or without
     * {@code SUBSCRIBE}, a proxy without pub/sub): the waiter polls instead, parked at most the TTL
     * the lock showed at its last attempt, so a release reaches it within that TTL rather than at once.
     */
    TTL_POLLING
}
