package io.github.relock.examples;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Redisson itself, unchanged: the library relock is compatible with.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class RedissonDemoClient implements DemoClient {
    private final RedissonClient redisson;

    RedissonDemoClient(RedisTarget target) {
        this.redisson = target.redisson();
    }

    @Override
    public String id() {
        return "redisson";
    }

    @Override
    public String displayName() {
        return "redisson";
    }

    @Override
    public Lock reentrantLock(String name) {
        return redisson.getLock(name);
    }

    @Override
    public Lock fairLock(String name) {
        return redisson.getFairLock(name);
    }

    @Override
    public ReadWriteLock readWriteLock(String name) {
        return redisson.getReadWriteLock(name);
    }

    @Override
    public String holderField(long threadId) {
        return redisson.getId() + ":" + threadId;
    }

    @Override
    public String get(String key) {
        return redisson.<String>getBucket(key, StringCodec.INSTANCE).get();
    }

    @Override
    public void set(String key, String value) {
        redisson.<String>getBucket(key, StringCodec.INSTANCE).set(value);
    }

    @Override
    public void close() {
        RedisTarget.shutdown(redisson);
    }
}
