package io.github.relock.api;

import java.util.Objects;

/**
 * What a thread blocked in a lock call of a {@link LockClient} is parked for, published as its
 * park blocker: while the thread sleeps between attempts,
 * {@link java.util.concurrent.locks.LockSupport#getBlocker(Thread)} returns one (and a thread dump
 * shows "parking to wait for ... (a io.github.relock.api.WaitingForLock)"). At other moments
 * (sending an attempt, subscribing, running) the thread has another blocker or none. For
 * diagnostics, and for the compatibility kit, which recognises parked waiters by it.
 *
 * <p>Thread-safety: immutable.
 *
 * @param lockName the lock's name as given to {@link LockClient#getLock(String)}
 * @param handoffOffered whether the thread waits with a local hand-off offer armed
 *     ({@link LockOptions#localHandoffEnabled()}): a release by another owner of the same client may make
 *     it the owner in the same step, without a message or another attempt
 * @since 0.1.0
 */
public record WaitingForLock(String lockName, boolean handoffOffered) {

    /** Validates the components. */
    public WaitingForLock {
        Objects.requireNonNull(lockName, "lockName");
    }
}
