package io.github.relock.benchmarks;

import io.github.relock.spi.Script;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import redis.clients.jedis.RedisClient;

/**
 * The floor: relock's own acquire and release Lua scripts sent as raw Jedis {@code EVALSHA}
 * calls, with the key, owner field and arguments built once. No waiting, no watchdog registry, no
 * reply translation: two round trips and nothing else, which is what a lock+unlock of this wire
 * format costs at the least on this client.
 *
 * <p>Only meaningful without contention: {@link Lock#lock()} fails instead of waiting when the
 * lock is held, so it is never run in the contended scenarios.
 *
 * <p>Thread-safety: the source is safe for use by several threads; each {@link Lock} it returns
 * belongs to the thread that asked for it (its owner field is that thread's).
 */
final class FloorSource implements LockSource {
    /** Exactly the scripts relock runs. */
    static final String ACQUIRE = script("LOCK_ACQUIRE");
    static final String RELEASE = script("LOCK_RELEASE");

    private final RedisClient jedis;
    private final String clientId = UUID.randomUUID().toString();
    private final String ttl;
    private final String acquireSha;
    private final String releaseSha;

    private FloorSource(RedisClient jedis, Duration watchdog) {
        this.jedis = jedis;
        this.ttl = Long.toString(watchdog.toMillis());
        this.acquireSha = jedis.scriptLoad(ACQUIRE);
        this.releaseSha = jedis.scriptLoad(RELEASE);
    }

    static FloorSource open(String host, int port, Duration watchdog) {
        RedisClient jedis = RedisClient.builder().hostAndPort(host, port).poolConfig(RelockSource.jedisPool()).build();
        try {
            return new FloorSource(jedis, watchdog);
        } catch (RuntimeException e) {
            jedis.close();
            throw e;
        }
    }

    /**
     * The text relock sends for one of its scripts: read from lock-core's internal {@code Scripts}
     * holder (reachable on the class path), so includes are resolved exactly as relock resolves
     * them and the floor sends the very same SHA-1.
     */
    static String script(String field) {
        try {
            Field f = Class.forName("io.github.relock.core.internal.util.Scripts").getDeclaredField(field);
            f.setAccessible(true);
            return ((Script) f.get(null)).text();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read relock's script " + field + " from lock-core's internal "
                    + "Scripts class (the benchmarks run on the class path); was it renamed?", e);
        }
    }

    @Override
    public Lock lock(String name) {
        return new FloorLock(name, clientId + ":" + Thread.currentThread().getId());
    }

    @Override
    public Optional<Lock> fairLock(String name) {
        return Optional.empty();
    }

    /** The floor runs only the plain lock's scripts. */
    @Override
    public Optional<ReadWriteLock> readWriteLock(String name) {
        return Optional.empty();
    }

    @Override
    public AsyncLock asyncLock(String name) {
        throw new UnsupportedOperationException("the floor is raw blocking Jedis: it has no async form");
    }

    @Override
    public void close() {
        jedis.close();
    }

    /** One EVALSHA to acquire, one to release; arguments prebuilt. */
    private final class FloorLock implements Lock {
        private final String name;
        private final List<String> acquireKeys;
        private final List<String> releaseKeys;
        private final List<String> acquireArgs;
        private final List<String> releaseArgs;

        FloorLock(String name, String field) {
            this.name = name;
            this.acquireKeys = List.of(name);
            this.releaseKeys = List.of(name, "redisson_lock__channel:{" + name + "}");
            this.acquireArgs = List.of(ttl, field);
            this.releaseArgs = List.of(ttl, field, "PUBLISH");
        }

        @Override
        public void lock() {
            if (!tryLock()) {
                throw new IllegalStateException("the floor does not wait, and '" + name + "' is held");
            }
        }

        @Override
        public boolean tryLock() {
            return jedis.evalsha(acquireSha, acquireKeys, acquireArgs) == null;
        }

        @Override
        public void unlock() {
            Object reply = jedis.evalsha(releaseSha, releaseKeys, releaseArgs);
            Object code = reply instanceof List<?> l && !l.isEmpty() ? l.get(0) : reply; // {code, heard}
            if (!Long.valueOf(1).equals(code) && !Long.valueOf(0).equals(code)) {
                throw new IllegalMonitorStateException("floor unlock of '" + name + "' answered " + reply);
            }
        }

        @Override
        public void lockInterruptibly() {
            lock();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            return tryLock();
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }
}
