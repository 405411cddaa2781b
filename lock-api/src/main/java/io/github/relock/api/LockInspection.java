package io.github.relock.api;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What Redis holds under one name, as {@link LockClient#inspect(String)} read it in one atomic
 * read: which kind of lock or synchronizer it is, who holds it (relock or Redisson clients alike),
 * its TTL, a fair lock's queue with each waiter's deadline, a read-write lock's read holds, a fenced
 * lock's last token, and a semaphore's or latch's count and held permits. A snapshot: it may be
 * stale the moment it is returned.
 *
 * <p>Thread-safety: immutable.
 *
 * @param name the name in Redis (after {@link LockOptions#nameMapper()})
 * @param kind what the keys say it is
 * @param redisType Redis's {@code TYPE} of the key {@code name}: {@code none}, {@code hash},
 *     {@code string}, or another type (then {@code kind} is {@link Kind#OTHER})
 * @param ttlMillis {@code PTTL} of the key {@code name}: -2 when it is missing, -1 when it never expires
 * @param lockMode for {@link Kind#READ_WRITE}: the hash's {@code mode}, {@link Mode#READ} or
 *     {@link Mode#WRITE}; else empty
 * @param holders the lock hash's owners, in hash order; empty when it is free or not a lock
 * @param queue a fair lock's waiters, head first; empty for other kinds
 * @param unqueuedDeadlines fair-lock deadlines whose waiter is not in the queue (normally none)
 * @param readHolds each read hold's own timeout key (read-write locks only)
 * @param fencingToken the last fencing token granted under this name ({@code redisson_lock_token:{name}}),
 *     which outlives the holds; empty when none was ever granted
 * @param count the string count under {@code name}: a semaphore's available permits or a latch's
 *     count-downs to go; empty when the key is not a string
 * @param heldPermits a permit-expirable semaphore's held permits, earliest deadline first (at most
 *     1000 are listed; {@code heldPermitCount} has them all)
 * @param heldPermitCount how many permits a permit-expirable semaphore has handed out
 * @since 0.1.0
 */
public record LockInspection(String name, Kind kind, String redisType, long ttlMillis, Optional<Mode> lockMode,
        List<Holder> holders, List<Waiter> queue, List<Waiter> unqueuedDeadlines, List<ReadHold> readHolds,
        OptionalLong fencingToken, OptionalLong count, List<HeldPermit> heldPermits, long heldPermitCount) {

    /**
     * Copies the lists.
     *
     * @throws NullPointerException if a component is null
     */
    public LockInspection {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(redisType, "redisType");
        Objects.requireNonNull(lockMode, "lockMode");
        holders = List.copyOf(holders);
        queue = List.copyOf(queue);
        unqueuedDeadlines = List.copyOf(unqueuedDeadlines);
        readHolds = List.copyOf(readHolds);
        Objects.requireNonNull(fencingToken, "fencingToken");
        Objects.requireNonNull(count, "count");
        heldPermits = List.copyOf(heldPermits);
    }

    /** @return whether anything of a lock or synchronizer is stored under the name */
    public boolean found() {
        return kind != Kind.NONE && kind != Kind.OTHER;
    }

    /** @return whether a lock of a lock kind has at least one holder */
    public boolean locked() {
        return !holders.isEmpty();
    }

    /**
     * What the keys under a name say it is. Some kinds look alike in Redis and cannot be told
     * apart: a spin lock, a non-reentrant lock and a fair lock with an empty queue all look like
     * {@link #REENTRANT}; a semaphore and a count-down latch keep the same string count.
     */
    public enum Kind {
        /** Nothing under the name: no lock hash, no fair queue, no token, no count, no permits. */
        NONE,
        /**
         * A lock hash of {@code <clientId>:<threadId> → hold count}; also a spin lock, a non-reentrant
         * lock, and a fair lock nobody waits for.
         */
        REENTRANT,
        /** A lock hash (or none) beside a non-empty fair queue {@code redisson_lock_queue:{name}} or its deadlines. */
        FAIR,
        /** A lock hash with a {@code mode} field. */
        READ_WRITE,
        /** A reentrant lock hash (or none) beside a fencing-token counter {@code redisson_lock_token:{name}}. */
        FENCED,
        /** A string count: a semaphore's available permits, or a count-down latch's count. */
        SEMAPHORE_OR_LATCH,
        /** Held permits in <code>&#123;name&#125;:timeout</code>, beside the available count. */
        PERMIT_EXPIRABLE_SEMAPHORE,
        /** A key of another type, or a hash that is not a lock (a field whose value is no hold count). */
        OTHER
    }

    /** How a holder holds a lock. */
    public enum Mode {
        /** The only holder of a reentrant, fair, fenced, spin or non-reentrant lock. */
        EXCLUSIVE,
        /** A reader of a read-write lock. */
        READ,
        /** The writer of a read-write lock. */
        WRITE
    }

    /**
     * One owner of a lock: a relock or Redisson client's thread, or a relock lease.
     *
     * <p>Thread-safety: immutable.
     *
     * @param field the raw hash field, {@code <clientId>:<threadId>} or {@code <clientId>:<threadId>:write}
     * @param clientId the client's id (Redisson's UUID, or relock's {@link LockClient#clientId()})
     * @param threadId the thread id; negative for a relock lease or async call
     * @param holdCount how many times it is held (reentrancy), at least 1
     * @param mode exclusive, read or write
     * @param owner what the client registered about itself ({@link LockOptions.Builder#ownerInfo});
     *     empty for Redisson clients and for relock clients that registered nothing
     * @param cohortOwner present when the inspecting client itself holds the lock through a cohort
     *     run ({@link LockOptions.Builder#cohort()}): Redis keeps the run's first holder's field
     *     ({@code field}, {@code threadId}) while this owner of the same client holds it now: its
     *     thread id (negative for a lease or async call). Empty otherwise, and always empty when
     *     another client inspects: only the holding client knows of the pass
     */
    public record Holder(String field, String clientId, long threadId, long holdCount, Mode mode,
            Optional<OwnerInfo> owner, OptionalLong cohortOwner) {
        /**
         * Checks the components.
         *
         * @throws NullPointerException if a component is null
         */
        public Holder {
            Objects.requireNonNull(field, "field");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(cohortOwner, "cohortOwner");
        }

        /**
         * A holder as Redis shows it, not held through a cohort run.
         *
         * @throws NullPointerException if a component is null
         */
        public Holder(String field, String clientId, long threadId, long holdCount, Mode mode,
                Optional<OwnerInfo> owner) {
            this(field, clientId, threadId, holdCount, mode, owner, OptionalLong.empty());
        }

        /**
         * @return whether the inspecting client holds it through a cohort run: Redis shows
         *     {@code threadId}, {@link #cohortOwner()} holds it now
         */
        public boolean cohort() {
            return cohortOwner.isPresent();
        }

        /** @return the thread id that holds it now: {@link #cohortOwner()} in a cohort run, else {@code threadId} */
        public long currentThreadId() {
            return cohortOwner.orElse(threadId);
        }
    }

    /**
     * One fair-lock waiter (or a deadline without a queue entry).
     *
     * <p>Thread-safety: immutable.
     *
     * @param position 1 for the head; 0 for a deadline without a queue entry
     * @param field {@code <clientId>:<threadId>}
     * @param clientId the client's id
     * @param threadId the thread id, or empty if the field has none
     * @param deadlineEpochMillis the waiter's deadline (wall clock, epoch ms): after it, it is dropped
     *     from the queue; empty when it has no deadline entry
     */
    public record Waiter(int position, String field, String clientId, OptionalLong threadId,
            OptionalLong deadlineEpochMillis) {
        /**
         * Checks the components.
         *
         * @throws NullPointerException if a component is null
         */
        public Waiter {
            Objects.requireNonNull(field, "field");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(threadId, "threadId");
            Objects.requireNonNull(deadlineEpochMillis, "deadlineEpochMillis");
        }
    }

    /**
     * One read hold's timeout key, whose TTL is that hold's own lease.
     *
     * <p>Thread-safety: immutable.
     *
     * @param key <code>&#123;name&#125;:&lt;clientId&gt;:&lt;threadId&gt;:rwlock_timeout:&lt;k&gt;</code>
     * @param holderField the reader's field
     * @param index k, from 1
     * @param ttlMillis its PTTL; -2 when missing (the hold then counts as expired)
     */
    public record ReadHold(String key, String holderField, long index, long ttlMillis) {
        /**
         * Checks the components.
         *
         * @throws NullPointerException if a component is null
         */
        public ReadHold {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(holderField, "holderField");
        }
    }

    /**
     * One held permit of a permit-expirable semaphore.
     *
     * <p>Thread-safety: immutable.
     *
     * @param id the permit id as the Java APIs show it (lowercase hex)
     * @param deadlineEpochMillis when its lease ends (epoch ms); empty if it never does
     */
    public record HeldPermit(String id, OptionalLong deadlineEpochMillis) {
        /**
         * Checks the components.
         *
         * @throws NullPointerException if a component is null
         */
        public HeldPermit {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(deadlineEpochMillis, "deadlineEpochMillis");
        }
    }
}
