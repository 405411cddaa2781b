package io.github.relock.api;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Leader election on one lock name: of all candidates that {@link #join() joined} under a name,
 * across clients and processes, at most one leads at a time. A tenure is a hold of the
 * {@linkplain LockClient#getFencedLock(String) fenced lock} of that name, kept by the watchdog;
 * its {@linkplain #epoch() epoch} is the hold's fencing token, so epochs strictly increase across
 * tenures, and a resource that rejects writes with a lower epoch than it has seen cannot be
 * written by a deposed leader.
 *
 * <p>A leader learns it lost its tenure when renewal finds the lock gone, held by another, or not
 * renewable for nine tenths of the watchdog timeout, which is before the key can expire and so
 * before anyone else can be granted: {@link #onRevoked} runs with {@link Reason#LOST}, and the
 * candidate campaigns again. {@link #leave()} (or closing the client) ends a tenure with
 * {@link Reason#LEFT} and stops campaigning.
 *
 * <p>Campaigning parks no thread: it waits for the lock with {@link DistributedLock#acquireAsync}.
 * Listeners run one at a time, in the order of the events, on a thread of the client (its timer,
 * or {@link LockOptions#lockLostExecutor()} if set), never on the caller's thread or a driver I/O
 * thread and never while the election holds an internal lock; exceptions they throw are logged
 * and ignored.
 *
 * <p>Thread-safety: safe for use by several threads.
 *
 * @since 0.1.0
 */
public interface LeaderElection {

    /** @return the name of the election: the lock name it campaigns on */
    String name();

    /**
     * Starts campaigning in the background and returns at once. Does nothing while this candidate
     * campaigns or leads; after {@link #leave()} it campaigns again.
     *
     * @return this election
     * @throws IllegalStateException if the client is closed
     */
    LeaderElection join();

    /**
     * Gives up leadership or candidacy: stops campaigning and, when leading, releases the lock
     * (before this returns, unless Redis cannot be reached; the key then expires within the watchdog
     * timeout) and tells {@link #onRevoked} listeners with {@link Reason#LEFT}. A grant that lands
     * after this call is released at once, never reported. Does nothing when not campaigning.
     */
    void leave();

    /**
     * Registers a listener told each time this candidate becomes leader.
     *
     * @param listener receives the tenure
     * @return this election
     */
    LeaderElection onGranted(Consumer<Leadership> listener);

    /**
     * Registers a listener told each time a tenure of this candidate ends.
     *
     * @param listener receives the tenure that ended and why
     * @return this election
     */
    LeaderElection onRevoked(Consumer<Revocation> listener);

    /** @return whether this candidate leads, as far as it knows (its lease was valid at the last renewal) */
    boolean isLeader();

    /** @return the fencing token of this candidate's current tenure; empty when it does not lead */
    OptionalLong epoch();

    /**
     * Asks Redis who leads now, whichever candidate it is ({@link LockClient#inspect(String)}).
     *
     * @return the holder of the election's lock, with its client id and, when that client registered
     *     it, its {@link OwnerInfo}; empty when nobody leads
     * @throws RedisUnavailableException if Redis cannot be reached
     */
    Optional<LockInspection.Holder> currentLeader();

    /** Why a tenure ended. */
    enum Reason {
        /** The lease was lost: renewal failed, or found the key gone or held by another owner. */
        LOST,
        /** {@link #leave()} was called, or the client was closed. */
        LEFT
    }

    /**
     * One tenure.
     *
     * <p>Thread-safety: immutable.
     *
     * @param name the election's name
     * @param epoch the tenure's fencing token
     */
    record Leadership(String name, long epoch) {
        /**
         * Checks the components.
         *
         * @throws NullPointerException if {@code name} is null
         */
        public Leadership {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * The end of a tenure.
     *
     * <p>Thread-safety: immutable.
     *
     * @param name the election's name
     * @param epoch the epoch of the tenure that ended
     * @param reason why it ended
     */
    record Revocation(String name, long epoch, Reason reason) {
        /**
         * Checks the components.
         *
         * @throws NullPointerException if {@code name} or {@code reason} is null
         */
        public Revocation {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
