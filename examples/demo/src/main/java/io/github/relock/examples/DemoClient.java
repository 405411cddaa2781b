package io.github.relock.examples;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * One client of the demo's fleet: a library on its own Redis connections, with the locks it offers
 * and the plain GET/SET the workers use for the shared counter (through the same library, so the
 * read-modify-write really is done by three different clients).
 *
 * <p>Thread-safety: implementations are safe for use by several worker threads.
 */
interface DemoClient extends AutoCloseable {

    /** @return the short name used in {@code --clients} and worker labels: jedis, lettuce, redisson */
    String id();

    /** @return the name shown in the progress and summary, e.g. {@code relock/jedis} */
    String displayName();

    /** @return the library's reentrant lock ({@code getLock}) */
    Lock reentrantLock(String name);

    /** @return the library's fair lock ({@code getFairLock}) */
    Lock fairLock(String name);

    /** @return the library's read-write lock ({@code getReadWriteLock}) */
    ReadWriteLock readWriteLock(String name);

    /**
     * @param threadId a worker thread's id
     * @return the hash field this client writes for a hold by that thread: {@code clientId:threadId}
     */
    String holderField(long threadId);

    /** @return the string at {@code key}, or null */
    String get(String key);

    /** Sets {@code key} to {@code value}. */
    void set(String key, String value);

    /** Releases the library's connections and threads. */
    @Override
    void close();
}
