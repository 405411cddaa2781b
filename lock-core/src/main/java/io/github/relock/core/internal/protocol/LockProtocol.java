package io.github.relock.core.internal.protocol;

/**
 * One lock type's protocol on the wire: the calls it makes (each a {@link Call} carrying its own
 * reply decoder), the channel a waiter listens on, how a waiter polls, and what a waiter that
 * gives up must undo. The engine runs every protocol the same way; a new lock type is a new
 * protocol, not a change to the engine. One instance per lock name.
 *
 * <p>Thread-safety: implementations are immutable and safe for use by several threads.
 */
public interface LockProtocol extends WaitPolicy {


    /**
     * @param field the owner field ({@link #ownerField})
     * @param ttlMs the TTL to set, in ms (never a sentinel)
     * @param mode single try, a wait's attempt, or a wait's attempt resolving a lost reply
     * @return the attempt
     */
    Call<Acquire> acquire(String field, long ttlMs, AttemptMode mode);

    /**
     * @param field the owner field
     * @param ttlMs the TTL the key keeps when holds remain, in ms
     * @param transferTo a waiting owner of this client to hand the lock to if this release empties
     *     it (asked only when {@link #handoffFamily()} is not null), or null for an ordinary release
     * @return the release
     */
    Call<Release> release(String field, long ttlMs, Candidate transferTo);

    /** @return the call deleting the lock whoever holds it; true if there was one */
    Call<Boolean> forceRelease();

    /** @return the call setting owner {@code field}'s TTL while it holds the lock; true if it does */
    Call<Boolean> expire(String field, long ttlMs);

    /** @return the read-only view of the lock for owner {@code field} (may be "": no owner) */
    Call<LockState> state(String field);

    /** @return what a waiter that gives up must undo on the server (a fair waiter leaves the queue), or null: nothing */
    default Call<Void> giveUp(String field) {
        return null;
    }


    /**
     * @return the prefix of a hold's per-acquisition timeout keys, renewed with the hold (read
     *     lock: {@code {N}}), or null when the lock type has none
     */
    default String timeoutKeyPrefix() {
        return null;
    }


    /**
     * @return true where an unlock of a lock nobody holds any more returns normally (Redisson's
     *     fair unlock answers true when the lock is gone, spec 2.2); false where it throws
     *     IllegalMonitorStateException, as Redisson's RLock does
     */
    default boolean unlockOfFreeLockReturns() {
        return false;
    }
}
