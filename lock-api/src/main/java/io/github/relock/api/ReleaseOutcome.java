package io.github.relock.api;

/**
 * What {@link LockLease#releaseIfHeld()} found: a release that says what happened as a value, so a
 * {@code finally} block need not throw when the lock is already gone.
 *
 * <p>Thread-safety: immutable.
 *
 * @since 0.1.0
 */
public enum ReleaseOutcome {
    /** The lease held the lock and released it (now, or with an earlier call). */
    RELEASED,
    /**
     * The lock was already free: its lease ran out, or it was deleted or force-unlocked; or the
     * lease was lost before it was handed out. Nothing was changed in Redis.
     */
    ALREADY_EXPIRED,
    /** Another owner holds the lock now: this lease lost it earlier. Nothing was changed in Redis. */
    HELD_BY_ANOTHER
}
