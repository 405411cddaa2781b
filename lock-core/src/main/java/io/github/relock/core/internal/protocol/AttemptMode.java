package io.github.relock.core.internal.protocol;

/**
 * How an acquire attempt is sent.
 *
 * <p>Thread-safety: immutable.
 */
public enum AttemptMode {
    /** One attempt that never queues (tryLock with no wait). */
    TRY,
    /** An attempt of a wait: a fair lock's waiter joins (or keeps its place in) the queue. */
    QUEUE,
    /**
     * An attempt of a wait after an acquisition or a hand-off of this owner may have landed with
     * its reply lost: a waiting owner holds nothing of the lock, so the script takes a field it
     * finds already there for that grant (setting its TTL) instead of counting it again.
     */
    RESOLVE
}
