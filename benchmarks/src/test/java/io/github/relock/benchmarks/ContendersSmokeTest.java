package io.github.relock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RespClient;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The harness works against a real Redis: every contender takes and releases a lock, fails a
 * tryLock on a lock held by someone else, and (where it has them) runs an async pair and a read and a
 * write cycle on its read-write lock. No timings.
 */
class ContendersSmokeTest {
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.startEmbedded();
    }

    @AfterAll
    static void stopRedis() {
        redis.stop();
    }

    @ParameterizedTest
    @EnumSource(Contender.class)
    void lockUnlock_writesAndDeletesTheLockHash(Contender contender) {
        String name = "smoke:" + contender.id();
        try (LockSource source = contender.open(redis.host(), redis.port());
             RespClient admin = new RespClient(redis.host(), redis.port(), 5000)) {
            Lock lock = source.lock(name);
            lock.lock();
            assertEquals(1L, admin.call("EXISTS", name), "held: the lock hash exists");
            assertEquals(1L, admin.call("HLEN", name), "one owner field");
            lock.unlock();
            assertEquals(0L, admin.call("EXISTS", name), "released: the lock hash is gone");
        }
    }

    @ParameterizedTest
    @EnumSource(Contender.class)
    void tryLock_heldByAnotherOwner_returnsFalse(Contender contender) {
        String name = "smoke:held:" + contender.id();
        try (LockSource source = contender.open(redis.host(), redis.port());
             RespClient admin = new RespClient(redis.host(), redis.port(), 5000)) {
            admin.call("HSET", name, "another-client:1", "1");
            admin.call("PEXPIRE", name, "60000");
            assertFalse(source.lock(name).tryLock());
            assertEquals("1", admin.call("HGET", name, "another-client:1"), "the holder is untouched");
            admin.call("DEL", name);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Contender.class, names = "FLOOR", mode = EnumSource.Mode.EXCLUDE)
    void asyncPair_completesAndLeavesNoKey(Contender contender) throws Exception {
        String name = "smoke:async:" + contender.id();
        try (LockSource source = contender.open(redis.host(), redis.port());
             RespClient admin = new RespClient(redis.host(), redis.port(), 5000)) {
            AsyncLock lock = source.asyncLock(name);
            lock.lock(7).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(1L, admin.call("EXISTS", name));
            lock.unlock(7).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(0L, admin.call("EXISTS", name));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Contender.class, names = {"RELOCK_JEDIS", "RELOCK_LETTUCE", "REDISSON"})
    void fairLock_whenTheContenderHasOne_locksAndUnlocks(Contender contender) {
        String name = "smoke:fair:" + contender.id();
        try (LockSource source = contender.open(redis.host(), redis.port());
             RespClient admin = new RespClient(redis.host(), redis.port(), 5000)) {
            var fair = source.fairLock(name);
            assertEquals(true, fair.isPresent(), contender + " has a fair lock");
            if (fair.isPresent()) {
                fair.get().lock();
                assertEquals(1L, admin.call("EXISTS", name));
                fair.get().unlock();
                assertEquals(0L, admin.call("EXISTS", name));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Contender.class, names = {"RELOCK_JEDIS", "RELOCK_LETTUCE", "REDISSON"})
    void readWriteLock_whenTheContenderHasOne_readsThenWrites(Contender contender) {
        String name = "smoke:rw:" + contender.id();
        try (LockSource source = contender.open(redis.host(), redis.port());
             RespClient admin = new RespClient(redis.host(), redis.port(), 5000)) {
            var rw = source.readWriteLock(name);
            assertTrue(rw.isPresent(), contender + " has a read-write lock");
            ReadWriteLock lock = rw.get();
            lock.readLock().lock();
            assertEquals("read", admin.call("HGET", name, "mode"), "read held: Redisson's mode field");
            lock.readLock().unlock();
            assertEquals(0L, admin.call("EXISTS", name), "read released: the lock hash is gone");
            lock.writeLock().lock();
            assertEquals("write", admin.call("HGET", name, "mode"), "write held: Redisson's mode field");
            lock.writeLock().unlock();
            assertEquals(0L, admin.call("EXISTS", name), "write released: the lock hash is gone");
        }
    }

    @Test
    void readWriteLock_floor_hasNone() {
        try (LockSource source = Contender.FLOOR.open(redis.host(), redis.port())) {
            assertFalse(source.readWriteLock("smoke:rw:floor").isPresent());
        }
    }
}
