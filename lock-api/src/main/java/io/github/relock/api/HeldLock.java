package io.github.relock.api;

import java.util.Objects;

/**
 * One hold a {@link LockClient} keeps, as {@link LockClient#heldLocks()} read it from the client's
 * own bookkeeping (no Redis call): which lock, which owner, and how its renewal stands. For
 * operators and health checks; it can change the moment after it was read.
 *
 * <p>Thread-safety: immutable.
 *
 * @param name the lock's name in Redis (after {@link LockOptions#nameMapper()}), as
 *     {@link LockInspection#name()} shows it
 * @param ownerField the owner field in the lock hash, {@code <clientId>:<threadId>} (a write lock's
 *     ends in {@code :write})
 * @param threadId the owning thread's id; negative for a lease or an async call
 * @param holdCount how many times the owner holds it (reentrancy), at least 1
 * @param renewed whether the watchdog renews it (taken without a lease); false for a hold taken for a
 *     fixed time
 * @param heldMillis how long since the first acquisition of this hold was sent
 * @param sinceConfirmedMillis how long since the last command that Redis confirmed for this hold
 *     was sent (the acquisition, or the last successful renewal): for a renewed hold, the renewal
 *     lag. Renewal runs every third of the watchdog timeout, so a healthy hold stays below about a
 *     third of it; at nine tenths the hold is reported lost
 * @param remainingMillis how long the key is known to be held from now: for a renewed hold, the
 *     watchdog timeout after the last confirmed send; for a fixed-time hold, the end of its lease;
 *     0 once that moment has passed (the hold leaves at the watchdog's next check)
 * @since 0.1.0
 */
public record HeldLock(String name, String ownerField, long threadId, int holdCount, boolean renewed,
        long heldMillis, long sinceConfirmedMillis, long remainingMillis) {

    /**
     * Checks the components.
     *
     * @throws NullPointerException if {@code name} or {@code ownerField} is null
     * @throws IllegalArgumentException if {@code holdCount} is below 1 or a duration is negative
     */
    public HeldLock {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ownerField, "ownerField");
        if (holdCount < 1 || heldMillis < 0 || sinceConfirmedMillis < 0 || remainingMillis < 0) {
            throw new IllegalArgumentException("HeldLock of '" + name + "': holdCount must be >= 1 and durations >= 0,"
                    + " were holdCount=" + holdCount + ", heldMillis=" + heldMillis + ", sinceConfirmedMillis="
                    + sinceConfirmedMillis + ", remainingMillis=" + remainingMillis);
        }
    }
}
