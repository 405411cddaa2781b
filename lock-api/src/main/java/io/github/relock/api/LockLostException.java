package io.github.relock.api;

import java.util.Objects;

/**
 * A lock its holder believed it held was lost before the holder was done: its lease ran out, it
 * was deleted or force-unlocked, another owner holds it, or renewal could not keep it. Thrown by
 * {@link LockLease#close()} when the release finds the lock gone and the loss was not reported
 * before, and by the helpers that cancel work on loss ({@link DistributedLock#withLock}, the
 * reactive {@code withLock}, the coroutine {@code withLease}), so the caller can roll back work
 * that may not have been exclusive.
 *
 * <p>It extends {@link IllegalMonitorStateException}, not {@link LockException}: a release of a
 * lost lock threw {@code IllegalMonitorStateException} before this type existed (as Redisson's
 * {@code unlock()} does), so code that catches that keeps working, while new code can catch this
 * narrower type. Catch {@code LockException} and {@code LockLostException} to handle every
 * failure relock reports.
 *
 * <p>Thread-safety: immutable once thrown.
 *
 * @since 0.1.0
 */
public class LockLostException extends IllegalMonitorStateException {
    private static final long serialVersionUID = 1L;

    /** @serial the lost lock's name */
    private final String lockName;
    /** @serial why it was lost */
    private final LockLostEvent.Reason reason;

    /**
     * @param lockName the lost lock's name
     * @param reason why it was lost
     * @param message what happened, naming the lock
     */
    public LockLostException(String lockName, LockLostEvent.Reason reason, String message) {
        super(message);
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * @param event the loss as reported to {@link LockLease#onLost}
     * @param message what happened, naming the lock
     */
    public LockLostException(LockLostEvent event, String message) {
        this(event.lockName(), event.reason(), message);
    }

    /** @return the lost lock's name */
    public String lockName() {
        return lockName;
    }

    /** @return why the lock was lost */
    public LockLostEvent.Reason reason() {
        return reason;
    }
}
