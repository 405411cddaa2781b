package io.github.relock.api;

/**
 * A read-write lock (Redisson {@code RReadWriteLock}): any number of readers, or one writer.
 * Both halves are full {@link DistributedLock}s over one Redis hash, on Redisson's wire format,
 * so relock and Redisson readers share the lock and writers of either library exclude everyone.
 *
 * <ul>
 *   <li>Readers may join while the lock is read, even while a writer waits (not fair, as in
 *       Redisson).</li>
 *   <li>Downgrade: the writer's owner may take the read lock while it writes; releasing the write
 *       lock then leaves its reads held.</li>
 *   <li>Upgrade is refused: an owner holding only the read lock that asks for the write lock gets
 *       an {@link IllegalMonitorStateException} at once, instead of waiting forever on itself.</li>
 *   <li>The watchdog renews readers and their per-acquisition timeout keys, which Redisson's read
 *       release relies on.</li>
 * </ul>
 *
 * <pre>{@code
 * ReadWriteDistributedLock rw = locks.getReadWriteLock("doc:7");
 * rw.readLock().lock();
 * try { render(); } finally { rw.readLock().unlock(); }
 * }</pre>
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public interface ReadWriteDistributedLock extends java.util.concurrent.locks.ReadWriteLock {

    /** @return the lock's name: the Redis key of its hash */
    String getName();

    /** @return the read half: shared with other readers, excluded by a writer */
    @Override
    DistributedLock readLock();

    /** @return the write half: exclusive */
    @Override
    DistributedLock writeLock();
}
