package io.github.relock.spi.pubsub;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one lock of a pub/sub helper, and the work to run once it is released. Future completions
 * and listener calls are collected under the lock and run after the outermost {@link #unlock()}:
 * their dependants (core's callbacks) may subscribe or unsubscribe again, which must not happen
 * while the helper is half-way through a change, nor on a thread holding its lock.
 *
 * <p>Thread-safety: safe for use by several threads; {@link #defer} only with the lock held. A
 * {@link ReentrantLock}, so a virtual thread never pins.
 */
final class DeferringLock {
    private static final System.Logger LOG = System.getLogger(DeferringLock.class.getName());

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}. */
    private final List<Runnable> deferred = new ArrayList<>();

    void lock() {
        lock.lock();
    }

    Condition newCondition() {
        return lock.newCondition();
    }

    /** Under the lock: runs {@code work} after the outermost {@link #unlock()}. */
    void defer(Runnable work) {
        deferred.add(work);
    }

    /** Releases the lock, then runs what was deferred (if this was the outermost hold). */
    void unlock() {
        List<Runnable> run = null;
        if (lock.getHoldCount() == 1 && !deferred.isEmpty()) {
            run = new ArrayList<>(deferred);
            deferred.clear();
        }
        lock.unlock();
        if (run != null) {
            for (Runnable r : run) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "a subscription callback threw", e);
                }
            }
        }
    }
}
