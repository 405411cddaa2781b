package io.github.relock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The harness works against a real Redis: every contender takes and releases a lock, fails a
 * tryLock on a lock held by someone else, and (where it has them) runs an async pair and a read and a
 * write cycle on its read-write lock; scenario (h)'s two JVMs pass one lock between them. No timings.
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

    @Test
    void crossJvmProbe_twoJvmsOnOneLock_bothAcquire_andCrossJvmHandOffsAreRecorded(@TempDir Path dir) throws Exception {
        Path shared = dir.resolve("shared");
        CrossJvmProbe.createSharedFile(shared);
        List<ProgramRun> sides = new ArrayList<>();
        List<Path> histograms = new ArrayList<>();
        try {
            for (int side = 0; side < 2; side++) {
                Path histogram = dir.resolve("jvm" + side + ".hlog");
                histograms.add(histogram);
                sides.add(ProgramRun.start(List.of("-Xmx256m"), CrossJvmProbe.class, List.of(redis.host(),
                        Integer.toString(redis.port()), Contender.RELOCK_JEDIS.id(), "2", "200", "1000",
                        shared.toString(), Integer.toString(side), histogram.toString()), dir.resolve("jvm" + side + ".log")));
            }
            long handOffs = 0;
            for (int side = 0; side < 2; side++) {
                Map<String, String> kv = sides.get(side).result(Duration.ofMinutes(2));
                long acquisitions = Long.parseLong(kv.get("acquisitions"));
                assertTrue(acquisitions > 0, "JVM " + side + " acquired the lock in the measured second: " + kv);
                HandOffRecorder.Summary h = HandOffRecorder.Summary.readFrom(histograms.get(side));
                assertEquals(acquisitions, h.acquisitions(), "the log holds the acquisitions the JVM printed");
                assertTrue(h.handOffs() <= h.acquisitions(), "a hand-off is an acquisition: " + kv);
                handOffs += h.handOffs();
            }
            assertTrue(handOffs > 0, "the lock passed between the JVMs at least once");
        } finally {
            sides.forEach(ProgramRun::destroy);
        }
        try (RespClient admin = new RespClient(redis.host(), redis.port(), 5000)) {
            assertEquals(0L, admin.call("EXISTS", "bench:relock-jedis:cross-jvm"), "the lock is free afterwards");
        }
        assertEquals(CrossJvmProbe.FILE_BYTES, Files.size(shared), "the shared file kept its size");
    }
}
