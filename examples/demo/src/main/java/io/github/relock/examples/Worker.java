package io.github.relock.examples;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread of the fleet. Until the phase stops: take the lock, GET the counter, re-enter the
 * lock (hold count 2), think, SET the counter to the value read plus one, release twice, then work
 * a little outside the lock. Without a lock that excludes the other clients, the think time loses
 * updates at once. A reader (read-write phase) does the same under the read lock but only reads.
 *
 * <p>Thread-safety: each instance runs on one thread.
 */
final class Worker implements Runnable {
    /** How long one acquisition may wait before it counts as a failure. */
    static final long MAX_WAIT_MS = 30_000;
    /**
     * On the read-write lock, one wait is at most this long, then the worker asks again (until
     * {@link #MAX_WAIT_MS} in all). Redisson's waiters can miss a write release's "1" message (it
     * wakes only the threads already parked) and then sleep until the holder's TTL, up to 30 s; as
     * the phase ends no later release comes to wake them.
     */
    static final long READ_WRITE_WAIT_SLICE_MS = 1_000;
    private static final long THINK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Work between acquisitions, as real callers have; it also gives waiters a chance to win. */
    private static final long OUTSIDE_NANOS = TimeUnit.MILLISECONDS.toNanos(3);

    private final String label;
    private final DemoClient client;
    private final Lock lock;
    private final Phase phase;
    private final boolean reader;

    Worker(String label, DemoClient client, Lock lock, Phase phase) {
        this(label, client, lock, phase, false);
    }

    /** @param reader whether this worker only reads (under a read lock) and never writes the counter */
    Worker(String label, DemoClient client, Lock lock, Phase phase, boolean reader) {
        this.label = label;
        this.client = client;
        this.lock = lock;
        this.phase = phase;
        this.reader = reader;
    }

    String label() {
        return label;
    }

    /** @return whether the lock was taken within {@link #MAX_WAIT_MS} (read-write lock: or the phase stopped first) */
    private boolean acquire(long start) throws InterruptedException {
        if (!phase.readWrite) {
            // milliseconds on purpose: Redisson's fair lock reads a watchdog-mode wait as ms
            return lock.tryLock(MAX_WAIT_MS, TimeUnit.MILLISECONDS);
        }
        long left = MAX_WAIT_MS;
        while (left > 0) {
            if (lock.tryLock(Math.min(left, READ_WRITE_WAIT_SLICE_MS), TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (phase.stopped()) {
                return false;
            }
            left = MAX_WAIT_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        }
        return false;
    }

    @Override
    public void run() {
        String me = client.holderField(Thread.currentThread().getId());
        phase.register(me, label);
        String name = client.displayName();
        try {
            while (!phase.stopped()) {
                long start = System.nanoTime();
                if (!acquire(start)) {
                    if (phase.readWrite && phase.stopped()) {
                        break;
                    }
                    phase.timedOut(label, MAX_WAIT_MS);
                    continue;
                }
                try {
                    if (reader) {
                        phase.readEntered(name, me, System.nanoTime() - start);
                    } else {
                        phase.entered(name, me, System.nanoTime() - start);
                    }
                    long before = Long.parseLong(client.get(phase.counterKey));
                    boolean reentered = lock.tryLock();
                    if (!reentered) {
                        phase.reentryFailed(label);
                    }
                    try {
                        LockSupport.parkNanos(THINK_NANOS);
                        if (reader) {
                            phase.readCompleted(name);
                        } else {
                            client.set(phase.counterKey, Long.toString(before + 1));
                            phase.completed(name);
                        }
                    } finally {
                        if (reentered) {
                            lock.unlock();
                        }
                    }
                } finally {
                    try {
                        if (reader) {
                            phase.readLeaving();
                        } else {
                            phase.leaving(me);
                        }
                    } finally {
                        lock.unlock();
                    }
                }
                LockSupport.parkNanos(OUTSIDE_NANOS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            phase.failed(label, e);
        }
    }
}
