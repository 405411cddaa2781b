package io.github.relock.benchmarks;

import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * One contender's live client: hands out its locks by name. Opened once per benchmark trial,
 * closed after it.
 *
 * <p>Thread-safety: safe for use by several threads (as each library's client is).
 */
interface LockSource extends AutoCloseable {

    /** @param name the lock's Redis key @return its reentrant, thread-bound lock */
    Lock lock(String name);

    /** @param name the lock's Redis key @return its fair lock, or empty when the contender has none */
    Optional<Lock> fairLock(String name);

    /**
     * @param name the lock's Redis key
     * @return its read-write lock (Redisson's {@code RReadWriteLock} wire format; both halves
     *     reentrant and thread-bound), or empty when the contender has none
     */
    Optional<ReadWriteLock> readWriteLock(String name);

    /**
     * @param name the lock's Redis key
     * @return its async form
     * @throws UnsupportedOperationException when the contender has no async API (the floor)
     */
    AsyncLock asyncLock(String name);

    @Override
    void close();
}
