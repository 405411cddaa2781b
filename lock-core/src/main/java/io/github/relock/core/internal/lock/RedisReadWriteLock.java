package io.github.relock.core.internal.lock;

import io.github.relock.core.internal.protocol.ReadWriteProtocol;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.ReadWriteDistributedLock;

/**
 * A read-write lock of one name: two {@link RedisLock}s over the one hash, through
 * {@link ReadWriteProtocol}'s read and write halves.
 *
 * <p>Thread-safety: immutable.
 */
public final class RedisReadWriteLock implements ReadWriteDistributedLock {
    private final String name;
    private final RedisLock read;
    private final RedisLock write;

    /**
     * @param services the client's services
     * @param name the lock's name
     */
    public RedisReadWriteLock(ClientServices services, String name) {
        this.name = name;
        this.read = new RedisLock(services, ReadWriteProtocol.read(services.protocols(), name));
        this.write = new RedisLock(services, ReadWriteProtocol.write(services.protocols(), name));
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
