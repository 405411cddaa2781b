package io.github.relock.examples;

import java.util.List;

/**
 * What Redis holds for one lock name, whichever library wrote it (wire-format spec §2.1–2.4).
 * Thread-safety: immutable.
 *
 * @param name the lock name
 * @param kind what the keys say the lock is
 * @param reason for {@link Kind#ABSENT} and {@link Kind#NOT_A_LOCK}: the one-line answer
 * @param mode for {@link Kind#READ_WRITE}: {@code read} or {@code write}; else null
 * @param ttlMs {@code PTTL} of the lock hash: -2 absent, -1 no expiry
 * @param holders the hash's holder fields, in field order
 * @param queue the fair queue, head first (empty for other kinds)
 * @param unqueuedDeadlines fair-lock deadline entries whose owner is not in the queue (a sign of a
 *     half-applied script; normally empty)
 * @param readTimeouts each reader hold's own timeout key (read/write locks only)
 * @param fencingToken for {@link Kind#FENCED}: the last token granted ({@code redisson_lock_token:{N}}); else null
 */
record LockState(String name, Kind kind, String reason, String mode, long ttlMs, List<Holder> holders,
        List<Waiter> queue, List<Waiter> unqueuedDeadlines, List<ReadTimeout> readTimeouts, Long fencingToken) {

    /** The lock types the inspector recognises. */
    enum Kind {
        /** No lock hash, no fair queue, no deadlines. */
        ABSENT("none"),
        /** A key of that name exists but is not a lock hash. */
        NOT_A_LOCK("not-a-lock"),
        /**
         * Hash of {@code clientId:threadId → count}; a fair lock with an empty queue, a spin lock
         * and a non-reentrant lock look the same.
         */
        REENTRANT("reentrant"),
        /** A reentrant lock's hash (or none) beside a token counter {@code redisson_lock_token:{N}}. */
        FENCED("fenced"),
        /** A lock hash with a queue {@code redisson_lock_queue:{N}} and deadlines {@code redisson_lock_timeout:{N}}. */
        FAIR("fair"),
        /** A lock hash with a {@code mode} field (read or write). */
        READ_WRITE("read-write");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    /**
     * One holder field of the lock hash.
     *
     * @param field the raw field, {@code clientId:threadId} or {@code clientId:threadId:write}
     * @param clientId the client's id (a Redisson id or relock's {@code LockClient.clientId()})
     * @param threadId the thread id; negative ids are relock leases; null if the field has no id
     * @param holdCount how many times it is held (reentrancy)
     * @param role {@code exclusive} (reentrant and fair locks), {@code write} or {@code read}
     */
    record Holder(String field, String clientId, Long threadId, long holdCount, String role) {
    }

    /**
     * One fair-lock waiter.
     *
     * @param position 1 for the head
     * @param field {@code clientId:threadId}
     * @param clientId the client's id
     * @param threadId the thread id
     * @param deadlineEpochMs its score in the timeout zset: after this wall-clock time (epoch ms) it
     *     is dropped from the queue; null when the zset has no entry for it
     */
    record Waiter(int position, String field, String clientId, Long threadId, Long deadlineEpochMs) {
    }

    /**
     * One read hold's timeout key.
     *
     * @param key the key, {@code {N}:clientId:threadId:rwlock_timeout:k}
     * @param holder the reader's field
     * @param index k, from 1
     * @param ttlMs its PTTL: -2 when missing (Redisson's read unlock then treats that hold as expired)
     */
    record ReadTimeout(String key, String holder, long index, long ttlMs) {
    }

    boolean found() {
        return kind != Kind.ABSENT && kind != Kind.NOT_A_LOCK;
    }

    static LockState absent(String name, String reason) {
        return new LockState(name, Kind.ABSENT, reason, null, -2, List.of(), List.of(), List.of(), List.of(), null);
    }

    static LockState notALock(String name, String reason) {
        return new LockState(name, Kind.NOT_A_LOCK, reason, null, -2, List.of(), List.of(), List.of(), List.of(), null);
    }
}
