package io.github.relock.core.internal;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.ReadWriteDistributedLock;

/**
 * A read-write lock of one name: two {@link RedisLock}s over the one hash, through
 * {@link ReadWriteProtocol}'s read and write halves.
 *
 * <p>Thread-safety: immutable.
 */
final class RedisReadWriteLock implements ReadWriteDistributedLock {
    private final String name;
    private final RedisLock read;
    private final RedisLock write;

    RedisReadWriteLock(DefaultLockClient client, String name) {
        this.name = name;
        this.read = new RedisLock(client, name, ReadWriteProtocol.read(client, name));
        this.write = new RedisLock(client, name, ReadWriteProtocol.write(client, name));
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public String toString() {
        return "ReadWriteLock[" + name + "]";
    }
}
