package io.github.relock.core.internal.protocol;

import java.util.function.ToIntFunction;

/**
 * What the protocols need to know of their client: how releases publish, the fair lock's wait,
 * the spin lock's back-off, and which subscriptions of its own the client holds on a lock channel
 * as the node running a lock's release script counts them (so a release can tell another client's
 * waiter from its own).
 *
 * <p>Thread-safety: immutable; {@code ownClassicSubscriptions} is safe for use by several threads.
 *
 * @param publishMode PUBLISH (one server), or BOTH on a cluster (classic and sharded subscribers)
 * @param fairWaitMs the fair lock's fairLockWaitTimeout in ms
 * @param spinInitialMs the spin lock's first pause
 * @param spinMaxMs the spin lock's longest pause
 * @param ownShardedSubscriptions 1 when the client also subscribes sharded (a cluster whose
 *     driver declares sharded pub/sub), else 0: a sharded subscription sits on the channel's node
 * @param ownClassicSubscriptions for a lock key, how many of the client's classic subscriptions
 *     to the key's channel the key's node counts: 1 on one server; on a cluster 1 only when the
 *     client's classic pub/sub connection is on that node (or the driver cannot tell), else 0
 * @param wakeId the client's id when directed wake-ups are on (issue 37 item 4, fragments/wake.lua:
 *     one server only), else null
 * @param localWaiters for a lock channel, how many of the client's waits are joined on it now
 * @param listening for a lock channel, 1 if the client listens on it for directed wake-ups (a wait
 *     joined, or a lingering subscription), else 0: a wait's failed attempt then registers the client
 */
public record ProtocolContext(String publishMode, long fairWaitMs, long spinInitialMs, long spinMaxMs,
                              int ownShardedSubscriptions, ToIntFunction<String> ownClassicSubscriptions,
                              String wakeId, ToIntFunction<String> localWaiters, ToIntFunction<String> listening) {

    /** A client with directed wake-ups that listens exactly while a wait is joined (no lingering). */
    public ProtocolContext(String publishMode, long fairWaitMs, long spinInitialMs, long spinMaxMs,
                           int ownShardedSubscriptions, ToIntFunction<String> ownClassicSubscriptions,
                           String wakeId, ToIntFunction<String> localWaiters) {
        this(publishMode, fairWaitMs, spinInitialMs, spinMaxMs, ownShardedSubscriptions, ownClassicSubscriptions,
                wakeId, localWaiters, localWaiters);
    }

    /** A client without directed wake-ups. */
    public ProtocolContext(String publishMode, long fairWaitMs, long spinInitialMs, long spinMaxMs,
                           int ownShardedSubscriptions, ToIntFunction<String> ownClassicSubscriptions) {
        this(publishMode, fairWaitMs, spinInitialMs, spinMaxMs, ownShardedSubscriptions, ownClassicSubscriptions,
                null, channel -> 0);
    }

    /** A client whose classic subscriptions are always on the node a script runs on (one server). */
    public ProtocolContext(String publishMode, long fairWaitMs, long spinInitialMs, long spinMaxMs,
                           int ownShardedSubscriptions) {
        this(publishMode, fairWaitMs, spinInitialMs, spinMaxMs, ownShardedSubscriptions, key -> 1);
    }
}
