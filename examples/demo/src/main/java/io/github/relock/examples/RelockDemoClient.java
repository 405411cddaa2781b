package io.github.relock.examples;

import io.github.relock.api.LockClient;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.core.RedisLocks;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import redis.clients.jedis.RedisClient;

/**
 * relock on the application's own client, exactly as an application would set it up:
 * {@code RedisLocks.create(jedisOrLettuceClient)}; the driver is picked by the client's type.
 *
 * <p>Thread-safety: safe for use by several threads (the relock client and both native clients are).
 */
final class RelockDemoClient implements DemoClient {
    private final String id;
    private final LockClient locks;
    private final UnaryOperator<String> get;
    private final BiConsumer<String, String> set;
    private final Runnable closeNative;

    private RelockDemoClient(String id, LockClient locks, UnaryOperator<String> get, BiConsumer<String, String> set,
            Runnable closeNative) {
        this.id = id;
        this.locks = locks;
        this.get = get;
        this.set = set;
        this.closeNative = closeNative;
    }

    /** @return relock over a Jedis {@code RedisClient} (a pooled {@code UnifiedJedis}) */
    static RelockDemoClient overJedis(RedisTarget target) {
        RedisClient jedis = target.jedis();
        try {
            LockClient locks = RedisLocks.create(jedis);
            return new RelockDemoClient("jedis", locks, jedis::get, jedis::set, jedis::close);
        } catch (RuntimeException e) {
            jedis.close();
            throw e;
        }
    }

    /** @return relock over a Lettuce {@code RedisClient} */
    static RelockDemoClient overLettuce(RedisTarget target) {
        io.lettuce.core.RedisClient lettuce = target.lettuce();
        try {
            StatefulRedisConnection<String, String> conn = lettuce.connect(); // for the counter only
            LockClient locks = RedisLocks.create(lettuce);
            return new RelockDemoClient("lettuce", locks, k -> conn.sync().get(k), (k, v) -> conn.sync().set(k, v),
                    () -> {
                        conn.close();
                        lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(5));
                    });
        } catch (RuntimeException e) {
            lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(5));
            throw e;
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String displayName() {
        return "relock/" + id;
    }

    @Override
    public Lock reentrantLock(String name) {
        return locks.getLock(name);
    }

    @Override
    public Lock fairLock(String name) {
        return locks.getFairLock(name);
    }

    @Override
    public ReadWriteLock readWriteLock(String name) {
        ReadWriteDistributedLock rw = locks.getReadWriteLock(name);
        return new ReadWriteLock() {
            @Override
            public Lock readLock() {
                return rw.readLock();
            }

            @Override
            public Lock writeLock() {
                return rw.writeLock();
            }
        };
    }

    @Override
    public String holderField(long threadId) {
        return locks.clientId() + ":" + threadId;
    }

    @Override
    public String get(String key) {
        return get.apply(key);
    }

    @Override
    public void set(String key, String value) {
        set.accept(key, value);
    }

    @Override
    public void close() {
        try {
            locks.close();
        } finally {
            closeNative.run();
        }
    }
}
