package io.github.relock.api;

import java.util.Objects;

/**
 * Tells a holder that it no longer owns a lock it believed it held.
 *
 * <p>Thread-safety: immutable.
 *
 * @param lockName the lock's name as given to {@link LockClient#getLock(String)}
 * @param ownerId the owner field that held it, {@code <clientId>:<threadId>}
 * @param threadId the thread id (or a lease's synthetic id) that held it
 * @param reason why the hold is considered lost
 */
public record LockLostEvent(String lockName, String ownerId, long threadId, Reason reason) {

    /** Why a hold was lost. */
    public enum Reason {
        /** Renewal found the key gone or owned by someone else (expired, force-unlocked, deleted). */
        NOT_HELD,
        /**
         * No renewal was confirmed (Redis unreachable, erroring or silent) for nine tenths of the
         * watchdog timeout since the last confirmed one was sent: reported before the key can
         * expire, so before anyone else can be granted the lock.
         */
        RENEWAL_FAILED,
        /** An explicit lease ran out before the holder released the lock. */
        LEASE_EXPIRED,
        /** The client was closed while the hold was still registered; renewal stopped. */
        CLIENT_CLOSED
    }

    /** Validates the components. */
    public LockLostEvent {
        Objects.requireNonNull(lockName, "lockName");
        Objects.requireNonNull(ownerId, "ownerId");
        Objects.requireNonNull(reason, "reason");
    }
}
