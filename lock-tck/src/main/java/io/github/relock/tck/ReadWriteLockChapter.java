package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * Chapter 14: the read-write lock (spec 2.3, 2.4) — readers share, a writer excludes everyone, the
 * writer's owner may downgrade but a reader may not upgrade, and every reader's per-acquisition
 * timeout key is written, released and renewed exactly as Redisson's read release expects.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("read-write-lock")
public abstract class ReadWriteLockChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected ReadWriteLockChapter(DriverKit kit) {
        super(kit);
    }

    private static String field(LockClient c) {
        return c.clientId() + ":" + Thread.currentThread().getId();
    }

    /**
     * Rule 14.1: readers of two clients share the lock; a writer is excluded until both leave, and
     * excludes readers.
     * When it fails: readers of different clients must share (mode read, a field each) and a writer
     * must wait for all of them: look at the mode checks of the read and write acquire scripts.
     */
    @Test
    void rule14_1_readersShare_writerExcludesAndIsExcluded() throws Exception {
        ReadWriteDistributedLock a = client().getReadWriteLock("tck:rw");
        ReadWriteDistributedLock b = client().getReadWriteLock("tck:rw");
        a.readLock().lock();
        assertTrue(otherThreadReturns(() -> {
            boolean ok = b.readLock().tryLock();
            b.readLock().unlock();
            return ok;
        }), "a second reader was refused");
        assertFalse(otherThreadReturns(() -> b.writeLock().tryLock()), "a writer took a read-held lock");
        a.readLock().unlock();
        b.writeLock().lock();
        assertFalse(otherThreadReturns(() -> a.readLock().tryLock()), "a reader took a write-held lock");
        assertFalse(otherThreadReturns(() -> a.writeLock().tryLock()), "a second writer took a write-held lock");
        b.writeLock().unlock();
        assertEquals(0L, redis("EXISTS", "tck:rw"));
    }

    /**
     * Rule 14.2: the wire format is Redisson's: hash {@code mode}=read and the reader field = "1"
     * with timeout key {@code {N}:<field>:rwlock_timeout:1}; a writer writes mode=write and
     * {@code <field>:write}; re-entered reads count up with one timeout key each.
     * When it fails: the hash fields, mode and per-read timeout keys must be Redisson's byte for
     * byte: compare with the keys Redisson's read and write locks write.
     */
    @Test
    void rule14_2_wireFormat_modeFieldsAndTimeoutKeys() throws Exception {
        LockClient c = client();
        ReadWriteDistributedLock rw = c.getReadWriteLock("tck:rw-wire");
        String f = field(c);
        rw.readLock().lock();
        rw.readLock().lock();
        assertEquals("read", redis("HGET", "tck:rw-wire", "mode"));
        assertEquals("2", redis("HGET", "tck:rw-wire", f));
        long t1 = pttl("{tck:rw-wire}:" + f + ":rwlock_timeout:1");
        long t2 = pttl("{tck:rw-wire}:" + f + ":rwlock_timeout:2");
        assertTrue(t1 > 20_000 && t2 > 20_000, "timeout keys should carry the 30 s watchdog TTL, were " + t1 + ", " + t2);
        assertEquals(2, rw.readLock().getHoldCount());
        rw.readLock().unlock();
        assertEquals(-2L, pttl("{tck:rw-wire}:" + f + ":rwlock_timeout:2"), "the released read's timeout key stayed");
        rw.readLock().unlock();
        assertEquals(0L, redis("EXISTS", "tck:rw-wire", "{tck:rw-wire}:" + f + ":rwlock_timeout:1"));
        rw.writeLock().lock();
        assertEquals(Map.of("mode", "write", f + ":write", "1"), hash("tck:rw-wire"));
        assertTrue(rw.writeLock().isLocked());
        assertFalse(rw.readLock().isLocked());
        rw.writeLock().unlock();
    }

    /**
     * Rule 14.3: the writer's owner may read (downgrade); releasing the write keeps its read, mode
     * read.
     * When it fails: a writer that also reads must keep its read after its write is released (mode
     * read, its read field kept).
     */
    @Test
    void rule14_3_downgrade_writerReads_writeReleaseKeepsTheRead() throws Exception {
        ReadWriteDistributedLock rw = client().getReadWriteLock("tck:rw-down");
        ReadWriteDistributedLock other = client().getReadWriteLock("tck:rw-down");
        rw.writeLock().lock();
        rw.readLock().lock();
        assertTrue(rw.readLock().isLocked(), "a writer that also reads makes the read half locked");
        rw.writeLock().unlock();
        assertEquals("read", redis("HGET", "tck:rw-down", "mode"));
        assertTrue(rw.readLock().isHeldByCurrentThread());
        assertFalse(otherThreadReturns(() -> other.writeLock().tryLock()), "a writer got in past a downgraded reader");
        assertTrue(otherThreadReturns(() -> {
            boolean ok = other.readLock().tryLock();
            other.readLock().unlock();
            return ok;
        }), "a reader was refused after the downgrade");
        rw.readLock().unlock();
        assertEquals(0L, redis("EXISTS", "tck:rw-down"));
    }

    /**
     * Rule 14.4: an owner holding only the read lock cannot upgrade. {@code writeLock().lock()} is
     * refused at once with IllegalMonitorStateException (Redisson would wait on itself forever);
     * {@code tryLock()} answers false at once and {@code tryLock(wait)} false after the wait, as
     * Redisson 4.7.0 and the JDK's ReentrantReadWriteLock do; the read hold is kept throughout.
     * When it fails: an upgrade must be refused at once ({@code lock()} with {@code
     * IllegalMonitorStateException}; {@code tryLock()} false, the timed one after its wait) and the
     * read kept.
     */
    @Test
    void rule14_4_upgrade_lockRefusedAtOnce_tryLockFalse_readKept() throws Exception {
        ReadWriteDistributedLock rw = client().getReadWriteLock("tck:rw-up");
        rw.readLock().lock();
        long start = System.nanoTime();
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, () -> rw.writeLock().lock());
        assertTrue(e.getMessage().contains("upgraded"), e.getMessage());
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 10, "a refused upgrade waited");
        assertFalse(rw.writeLock().tryLock(), "tryLock() of the write lock by a read holder");
        long waited = System.nanoTime();
        assertFalse(rw.writeLock().tryLock(300, TimeUnit.MILLISECONDS), "tryLock(300 ms) of the write lock by a read holder");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - waited);
        assertTrue(ms >= 290 && ms < 10_000, "tryLock(300 ms) answered after " + ms + " ms");
        assertEquals(1, rw.readLock().getHoldCount());
        rw.readLock().unlock();
        assertEquals(0L, redis("EXISTS", "tck:rw-up"));
    }

    /**
     * Rule 14.5: a write release ("1") wakes every waiting reader, not just one.
     * When it fails: a write release publishes "1" on the read-write channel, and every waiting
     * reader must attempt again on it, not just one.
     */
    @Test
    void rule14_5_writeRelease_wakesEveryWaitingReader() throws Exception {
        ReadWriteDistributedLock rw = client().getReadWriteLock("tck:rw-wake");
        rw.writeLock().lock();
        List<CompletableFuture<Void>> readers = new ArrayList<>();
        for (long id = 1; id <= 3; id++) {
            readers.add(rw.readLock().lockAsync(9000 + id));
        }
        Await.until(Duration.ofSeconds(10), () -> channels().contains("redisson_rwlock:{tck:rw-wake}"),
                () -> "the readers never subscribed to redisson_rwlock:{tck:rw-wake}");
        Await.holdsFor(Duration.ofMillis(200), () -> readers.stream().noneMatch(CompletableFuture::isDone),
                () -> "a reader got in while the writer held the lock");
        rw.writeLock().unlock();
        CompletableFuture.allOf(readers.toArray(CompletableFuture[]::new))
                .get(Await.scaled(Duration.ofSeconds(10)).toSeconds(), TimeUnit.SECONDS);
        assertEquals(4L, (Long) redis("HLEN", "tck:rw-wake"), "mode and three readers");
        for (long id = 1; id <= 3; id++) {
            rw.readLock().unlockAsync(9000 + id).get(10, TimeUnit.SECONDS);
        }
        assertEquals(0L, redis("EXISTS", "tck:rw-wake"));
    }

    /**
     * Rule 14.6: the watchdog renews a reader and its timeout keys, so after several watchdog
     * periods another reader's release still finds it alive and keeps the hash (a reader whose
     * timeout keys lapsed would make that release delete the whole lock).
     * When it fails: the watchdog must renew a reader's timeout keys with the hash; a lapsed
     * timeout key makes another reader's release delete the whole lock.
     */
    @Test
    void rule14_6_watchdog_renewsReaderAndItsTimeoutKeys() throws Exception {
        LockClient c = client(Duration.ofMillis(1500));
        ReadWriteDistributedLock rw = c.getReadWriteLock("tck:rw-renew");
        ReadWriteDistributedLock other = client().getReadWriteLock("tck:rw-renew");
        rw.readLock().lock();
        String f = field(c);
        // two timeouts (six renewal periods): an unrenewed timeout key is gone after one
        Await.holdsFor(Duration.ofMillis(3000), () -> (Long) redis("EXISTS", "{tck:rw-renew}:" + f + ":rwlock_timeout:1") == 1,
                () -> "the reader's timeout key lapsed while it was held");
        assertTrue(otherThreadReturns(() -> {
            boolean ok = other.readLock().tryLock();
            other.readLock().unlock();
            return ok;
        }));
        assertEquals("1", redis("HGET", "tck:rw-renew", f), "another reader's release deleted a live reader");
        assertTrue(rw.readLock().isHeldByCurrentThread());
        rw.readLock().unlock();
        assertEquals(0L, redis("EXISTS", "tck:rw-renew"));
    }

    /**
     * Rule 14.7: writers of two clients incrementing under the write lock, beside readers, lose no
     * update.
     * When it fails: as rule 6.1 under the write lock: a lost update means a writer got in beside a
     * reader or another writer.
     */
    @Test
    void rule14_7_writers_contention_noLostUpdate() throws Exception {
        ReadWriteDistributedLock a = client().getReadWriteLock("tck:rw-count");
        ReadWriteDistributedLock b = client().getReadWriteLock("tck:rw-count");
        List<Lock> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            workers.add((t % 2 == 0 ? a : b).writeLock());
        }
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 50; i++) {
                a.readLock().lock();
                a.readLock().unlock();
            }
        });
        assertEquals(6 * 100, incrementUnderLocks(workers, 100, "tck:rw-counter"));
        reader.get(60, TimeUnit.SECONDS);
    }

    /**
     * Rule 14.8: a read lease runs out on its own, and then a writer gets in.
     * When it fails: a read lease must set the TTL of its timeout key and of the hash, so that it
     * runs out by itself.
     */
    @Test
    void rule14_8_readLease_expires_thenWriterAcquires() throws Exception {
        ReadWriteDistributedLock rw = client().getReadWriteLock("tck:rw-lease");
        LockLease lease = rw.readLock().acquire(Duration.ZERO, Duration.ofMillis(300));
        assertTrue(lease.isValid());
        assertTrue(otherThreadReturns(() -> {
            boolean ok = rw.writeLock().tryLock(10, TimeUnit.SECONDS);
            rw.writeLock().unlock();
            return ok;
        }), "the writer never got in after the read lease ran out");
        assertFalse(lease.isValid());
    }

    /**
     * Rule 14.9: force unlock deletes only in its own mode: the read half cannot break a write and
     * vice versa.
     * When it fails: the read half's force unlock may delete only a lock in read mode, and the
     * write half's only one in write mode.
     */
    @Test
    void rule14_9_forceUnlock_onlyInItsOwnMode() throws Exception {
        ReadWriteDistributedLock rw = client().getReadWriteLock("tck:rw-force");
        rw.writeLock().lock();
        assertFalse(rw.readLock().forceUnlock(), "the read half force-unlocked a write");
        assertTrue(rw.writeLock().isHeldByCurrentThread());
        assertTrue(rw.writeLock().forceUnlock());
        rw.readLock().lock(2, TimeUnit.SECONDS);
        assertFalse(rw.writeLock().forceUnlock(), "the write half force-unlocked a read");
        assertTrue(rw.readLock().forceUnlock());
        assertEquals(List.of(), redis("KEYS", "tck:rw-force"));
        Await.until(Duration.ofSeconds(10), () -> ((List<?>) redis("KEYS", "*rwlock_timeout*")).isEmpty(),
                () -> "timeout keys left by the forced read never expired");
    }

    /**
     * Rule 14.10: a name that contains '{' keeps its own hash tag (spec 1.3): timeout key
     * {@code <N>:<field>:rwlock_timeout:1} and channel {@code redisson_rwlock:<N>}, no braces added.
     * When it fails: a name with '{' in it must be used as it is: no braces added for the timeout
     * key or the channel.
     */
    @Test
    void rule14_10_braceName_timeoutKeyAndChannelKeepTheNamesTag() throws Exception {
        LockClient c = client();
        ReadWriteDistributedLock rw = c.getReadWriteLock("{tck}:rw-tag");
        ReadWriteDistributedLock other = client().getReadWriteLock("{tck}:rw-tag");
        rw.readLock().lock();
        String key = "{tck}:rw-tag:" + field(c) + ":rwlock_timeout:1";
        assertEquals(1L, redis("EXISTS", key), "no timeout key " + key + " in " + redis("KEYS", "*"));
        CompletableFuture<Void> writer = other.writeLock().lockAsync(77);
        Await.until(Duration.ofSeconds(10), () -> channels().contains("redisson_rwlock:{tck}:rw-tag"),
                () -> "the writer did not wait on redisson_rwlock:{tck}:rw-tag but on " + channels());
        rw.readLock().unlock();
        writer.get(Await.scaled(Duration.ofSeconds(10)).toSeconds(), TimeUnit.SECONDS);
        other.writeLock().unlockAsync(77).get(10, TimeUnit.SECONDS);
        assertEquals(0L, redis("EXISTS", "{tck}:rw-tag", key));
    }

    private Map<String, String> hash(String key) {
        List<?> all = (List<?>) redis("HGETALL", key);
        Map<String, String> m = new java.util.HashMap<>();
        for (int i = 0; i + 1 < all.size(); i += 2) {
            m.put(String.valueOf(all.get(i)), String.valueOf(all.get(i + 1)));
        }
        return m;
    }

    /**
     * Rule 14.11: a read-write lock is a {@code java.util.concurrent.locks.ReadWriteLock}, as
     * Redisson's {@code RReadWriteLock} is: code written against the JDK interface takes its
     * halves, and they exclude as they should.
     * When it fails: the read-write lock must be a {@code java.util.concurrent.locks.ReadWriteLock}
     * whose halves exclude as the JDK's do.
     */
    @Test
    void rule14_11_isAJdkReadWriteLock_halvesExcludeThroughTheJdkInterface() throws Exception {
        java.util.concurrent.locks.ReadWriteLock jdk = client().getReadWriteLock("tck:rw-jdk");
        java.util.concurrent.locks.ReadWriteLock other = client().getReadWriteLock("tck:rw-jdk");
        jdk.writeLock().lock();
        assertFalse(otherThreadReturns(() -> other.readLock().tryLock()), "a reader got in while a writer held it");
        jdk.writeLock().unlock();
        jdk.readLock().lock();
        assertTrue(otherThreadReturns(() -> {
            boolean ok = other.readLock().tryLock();
            if (ok) {
                other.readLock().unlock();
            }
            return ok;
        }), "readers must share");
        assertFalse(otherThreadReturns(() -> other.writeLock().tryLock()), "a writer got in while a reader held it");
        jdk.readLock().unlock();
        assertEquals(0L, redis("EXISTS", "tck:rw-jdk"));
    }
}
