package io.github.relock.api;

/**
 * What a {@link LockClient} is doing right now, as {@link LockClient#stats()} read it: three
 * counters and the pub/sub link of the client's own state, read without a Redis call. For gauges and health checks; the
 * numbers can change the moment after they were read.
 *
 * <p>Thread-safety: immutable.
 *
 * @param heldLocks the holds this client keeps: one per lock and owner (a thread, an async call's
 *     thread id, or a lease), whether renewed by the watchdog or taken for a fixed time; a read lock
 *     held by two threads counts two, reentrant acquisitions by one owner count one. A hold taken
 *     for a fixed time counts until it is released or the watchdog's next check (within a third of
 *     the watchdog timeout) finds it expired
 * @param waiters the calls now waiting for a lock held elsewhere, blocking or async, of any lock type;
 *     a call counts from its first failed attempt until it acquires or gives up, and a multi-lock
 *     counts as each of its locks' clients sees it
 * @param subscriptions the pub/sub channels this client listens on (or is subscribing) for its
 *     waiters, one per lock name with waiters; 0 when nobody waits. On a cluster whose driver
 *     declares sharded pub/sub each channel is subscribed both ways and still counts once
 * @param pubSubReconnecting whether the client's pub/sub connection is broken and being reopened,
 *     as its driver last reported: true from the break until the connection is back with every
 *     channel subscribed again (or no channel is wanted any more). Meanwhile waiters are not woken by
 *     releases; they poll within the lock's TTL, and locking, renewal and release, which do not use
 *     the pub/sub connection, go on. A driver that keeps no pub/sub connection while nobody waits
 *     reports no break then; one that does not report breaks (an older driver) leaves it false
 * @since 0.1.0
 */
public record LockClientStats(int heldLocks, int waiters, int subscriptions, boolean pubSubReconnecting) {

    /** The stats of a client that holds nothing, waits for nothing, and whose pub/sub link is not broken. */
    public static final LockClientStats IDLE = new LockClientStats(0, 0, 0, false);

    /**
     * Validates the counts.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public LockClientStats {
        if (heldLocks < 0 || waiters < 0 || subscriptions < 0) {
            throw new IllegalArgumentException("LockClientStats counts must be >= 0, were heldLocks=" + heldLocks
                    + ", waiters=" + waiters + ", subscriptions=" + subscriptions);
        }
    }

    /**
     * The stats of a client whose pub/sub link is not broken.
     *
     * @param heldLocks the holds this client keeps
     * @param waiters the calls now waiting for a lock
     * @param subscriptions the pub/sub channels this client listens on
     * @throws IllegalArgumentException if a count is negative
     */
    public LockClientStats(int heldLocks, int waiters, int subscriptions) {
        this(heldLocks, waiters, subscriptions, false);
    }
}
