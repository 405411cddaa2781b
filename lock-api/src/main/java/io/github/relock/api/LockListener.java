package io.github.relock.api;

/**
 * Hears a lock go away ({@link DistributedLock#addListener}): Redisson's
 * {@code DeletedObjectListener} and {@code ExpiredObjectListener} for locks.
 *
 * <p>How it hears: the listening client subscribes the lock's channel (shared with its waiters on
 * that lock, so no second subscription). A release that frees the lock, or a force unlock,
 * publishes there (relock's and Redisson's alike), so {@link Deleted} hears it at once. Nobody
 * publishes when a key expires, so the client also reads the lock's TTL when it would run out (a
 * renewed lock is read again at its new TTL), and {@link Expired} hears it then. A fair lock's
 * release publishes only on its queue head's own channel (or nowhere, with an empty queue), and a
 * spin lock's nowhere: for those the client reads the lock every second, and a lock found gone
 * before its TTL ran out was deleted, one found gone after it expired; a hold by another client
 * shorter than a second may go unheard. Releases and force unlocks by the listening client itself
 * are heard at once, for every lock type. A release that hands the lock straight to a waiting
 * owner (local hand-off) never frees it: nothing is heard. Every release is heard once, however
 * close to the next (on a cluster a relock release arrives twice, classic and sharded, and the
 * copies are paired). The listening client's own acquisitions are read at once, so its short
 * leases are heard expiring; another client's lease taken and run out between two reads of a free
 * lock (a third of the watchdog timeout apart) may expire unheard.
 *
 * <p>Cost: one subscription per listened lock name per client (none when the client already
 * waits on it; none for fair and spin locks), and one state read per TTL period (about one every
 * 20 to 30 seconds for a lock held under the watchdog), one per release heard, and one per 10
 * seconds while the lock is free; a fair or spin lock's listener reads it once a second. A
 * listener of another client on a lock's channel counts as one of its waiters: releases of that lock are then ordinary ones, not local hand-offs.
 *
 * <p>Thread-safety: implementations must be thread-safe; they are called on relock's timer or
 * pub/sub threads, one event at a time per listener.
 *
 * @since 0.1.0
 */
public sealed interface LockListener permits LockListener.Deleted, LockListener.Expired {

    /** Hears the lock released (freed) or force-unlocked. */
    @FunctionalInterface
    non-sealed interface Deleted extends LockListener {
        /**
         * @param name the lock's name
         */
        void onDeleted(String name);
    }

    /** Hears the lock's key expire (a lease ran out, or its holder died). */
    @FunctionalInterface
    non-sealed interface Expired extends LockListener {
        /**
         * @param name the lock's name
         */
        void onExpired(String name);
    }
}
