package io.github.relock.core.internal.protocol;

/**
 * What one acquire attempt found: one type for every lock type's acquire script, so the wait
 * machine decides on outcomes, never on reply codes.
 *
 * <p>Thread-safety: immutable.
 */
public sealed interface Acquire {
    /** The token of an acquisition of a lock type that grants none (all but the fenced lock). */
    long NO_TOKEN = Long.MIN_VALUE;

    /** The shared answer of an acquisition without a token. */
    Acquired ACQUIRED = new Acquired(NO_TOKEN);

    /**
     * The owner holds the lock now (acquired, re-entered, or a lost grant found in resolve mode).
     *
     * @param token the fencing token of this grant, or {@link #NO_TOKEN}
     */
    record Acquired(long token) implements Acquire {
    }

    /**
     * Someone else holds the lock (or it is another waiter's turn).
     *
     * @param ttlMs how long to wait at most before asking again: the holder's PTTL, -1 for a key
     *     without expiry, 0 when the lock is free but another waiter goes first (a fair queue's head)
     */
    record Busy(long ttlMs) implements Acquire {
    }

    /**
     * The script refused the owner: a non-reentrant lock's holder asked again, or a read holder
     * asked for the write lock.
     *
     * @param upgrade true for a read holder asking for the write lock: a timed wait may go on (the
     *     read hold may end by lease), an untimed one would wait on itself forever and fails at once
     */
    record Refused(boolean upgrade) implements Acquire {
    }
}
