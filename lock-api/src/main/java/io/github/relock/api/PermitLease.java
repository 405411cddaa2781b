package io.github.relock.api;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * One permit of a {@link PermitExpirableSemaphore}, as a value, told of its loss as a
 * {@link LockLease} is: {@link #onLost} runs when the permit's lease ran out before it was released
 * ({@link LockLostEvent.Reason#LEASE_EXPIRED}, from this client's clock: any client may then
 * reclaim it), when an update found it gone ({@link LockLostEvent.Reason#NOT_HELD}), or when the
 * client closed while it was held ({@link LockLostEvent.Reason#CLIENT_CLOSED}: the permit stays
 * taken in Redis until its lease ends, but this client can no longer release it). The client's
 * {@link LockClient#addLockLostListener} listeners hear the same events. The event's
 * {@code lockName} is the semaphore's name, its {@code ownerId} the permit id, its {@code threadId} 0.
 *
 * <pre>{@code
 * try (PermitLease permit = semaphore.acquireLease(Duration.ofSeconds(5), Duration.ofMinutes(1))) {
 *     permit.onLost(e -> abortWork());
 *     doWork();
 * }
 * }</pre>
 *
 * <p>Thread-safety: safe for use by several threads; {@link #close()} is idempotent.
 *
 * @since 0.1.0
 */
public interface PermitLease extends AutoCloseable {

    /** @return the semaphore's name */
    String semaphoreName();

    /** @return the permit's id (32 hex characters, as Redisson shows ids) */
    String permitId();

    /** @return true while it was not released, its lease has not run out, and no loss was reported (local: no Redis call) */
    boolean isValid();

    /**
     * Registers a callback run once when the permit is lost (see the class comment); at once on the
     * calling thread if it already is. Not run after a normal release.
     *
     * @param callback receives the event; exceptions it throws are logged and ignored
     * @return this lease
     */
    PermitLease onLost(Consumer<LockLostEvent> callback);

    /**
     * Restarts the permit's lease from now ({@code updateLeaseTime}).
     *
     * @param leaseTime positive, or {@code null} for a permit that never expires
     * @return true if the permit was still held; false (and reported lost, NOT_HELD) if not
     */
    boolean updateLeaseTime(Duration leaseTime);

    /** Releases the permit if this lease still holds it; idempotent; never throws for a permit already gone. */
    @Override
    void close();
}
