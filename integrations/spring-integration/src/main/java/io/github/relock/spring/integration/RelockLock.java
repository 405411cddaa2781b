package io.github.relock.spring.integration;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * A lock of a {@link RelockLockRegistry}: the {@link java.util.concurrent.locks.Lock} contract over
 * a relock {@code DistributedLock}, owned by the acquiring thread and reentrant for it.
 *
 * <ul>
 *   <li>{@code lock()} waits uninterruptibly; {@code lockInterruptibly()} throws
 *       {@link InterruptedException} when interrupted before or while waiting.</li>
 *   <li>{@code tryLock()} makes one attempt; {@code tryLock(time, unit)} waits up to {@code time},
 *       and a time of zero or less makes one attempt (after checking the interrupt status).</li>
 *   <li>{@code unlock()} releases one hold, and throws {@link IllegalMonitorStateException} if the
 *       calling thread does not hold the lock.</li>
 *   <li>{@code newCondition()} throws {@link UnsupportedOperationException}.</li>
 * </ul>
 *
 * <p>Thread-safety: safe for use by several threads; holds belong to the thread that acquired them.
 */
public final class RelockLock implements DistributedLock {
    private final io.github.relock.api.DistributedLock delegate;
    private final Duration leaseTime; // null: held until unlocked

    RelockLock(io.github.relock.api.DistributedLock delegate, Duration leaseTime) {
        this.delegate = delegate;
        this.leaseTime = leaseTime;
    }

    /** @return the relock lock this lock delegates to (its name is the Redis key) */
    public io.github.relock.api.DistributedLock delegate() {
        return delegate;
    }

    @Override
    public void lock() {
        if (leaseTime == null) {
            delegate.lock();
        } else {
            delegate.lock(leaseTime);
        }
    }

    /** @param ttl positive lease of this acquisition */
    @Override
    public void lock(Duration ttl) {
        delegate.lock(Objects.requireNonNull(ttl, "ttl must not be null"));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + delegate.getName());
        }
        if (leaseTime == null) {
            delegate.lockInterruptibly();
        } else {
            delegate.lockInterruptibly(leaseTime.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public boolean tryLock() {
        return leaseTime == null ? delegate.tryLock() : tryOnce(leaseTime);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit must not be null");
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + delegate.getName());
        }
        Duration wait = time <= 0 ? Duration.ZERO : Duration.ofNanos(unit.toNanos(time));
        return leaseTime == null ? delegate.tryLock(wait) : delegate.tryLock(wait, leaseTime);
    }

    /**
     * @param waitTime longest wait; zero or negative makes one attempt
     * @param ttl positive lease of this acquisition
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        Objects.requireNonNull(ttl, "ttl must not be null");
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + delegate.getName());
        }
        return delegate.tryLock(waitTime.isNegative() ? Duration.ZERO : waitTime, ttl);
    }

    private boolean tryOnce(Duration ttl) {
        try {
            return delegate.tryLock(0, ttl.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) { // one attempt never waits; keep the status for the caller
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** @throws IllegalMonitorStateException if the calling thread does not hold this lock */
    @Override
    public void unlock() {
        delegate.unlock();
    }

    /** @throws UnsupportedOperationException always: a distributed condition needs its own protocol */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("RelockLock '" + delegate.getName() + "' does not support "
                + "conditions: relock has no distributed Condition; use Spring Integration messaging to signal instead");
    }

    @Override
    public String toString() {
        return "RelockLock[" + delegate.getName() + ']';
    }
}
