package io.github.relock.core.internal.protocol;

/**
 * A read-only view of a lock, for {@code isLocked}, {@code isHeldByThread}, {@code getHoldCount}
 * and {@code remainTimeToLive}.
 *
 * <p>Thread-safety: immutable.
 *
 * @param locked whether the lock (or, for a read-write lock's half, that half) is held
 * @param count the asking owner's hold count (0 if none)
 * @param pttl the lock key's PTTL in ms (-2 absent, -1 no expiry)
 */
public record LockState(boolean locked, int count, long pttl) {
}
