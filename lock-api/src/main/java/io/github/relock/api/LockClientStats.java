package io.github.relock.api;

/**
 * What a {@link LockClient} is doing right now, as {@link LockClient#stats()} read it: three
 * counters of the client's own state, read without a Redis call. For gauges and health checks; the
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
 */
public record LockClientStats(int heldLocks, int waiters, int subscriptions) {

    /** The stats of a client that holds nothing and waits for nothing. */
    public static final LockClientStats IDLE = new LockClientStats(0, 0, 0);

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
}
