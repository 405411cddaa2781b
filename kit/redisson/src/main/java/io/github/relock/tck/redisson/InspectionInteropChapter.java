package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockInspection;
import io.github.relock.api.LockInspection.Kind;
import io.github.relock.api.LockInspection.Mode;
import io.github.relock.api.LockOptions;
import io.github.relock.api.OwnerInfo;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.TckChapter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

/**
 * Chapter 31 with Redisson: {@code LockClient.inspect} reads locks that Redisson clients hold, in
 * Redisson's own keys and field format {@code <uuid>:<threadId>}, and shows no owner info for them
 * (Redisson registers none), also when a relock client that registered some inspects.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("redisson-interop")
@Tag("inspection")
public abstract class InspectionInteropChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected InspectionInteropChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 31.9: a reentrant lock and a read-write lock held by a Redisson client show Redisson's
     * client id, the holding thread's id, the hold count and mode, and no owner info.
     * When it fails: the inspection must parse Redisson's fields as its own (spec 1.1), and take
     * owner info only from {@code relock:{clients}:<clientId>}.
     */
    @Test
    void rule31_9_lockHeldByRedisson_showsRedissonsIdAndThreadWithoutOwnerInfo() throws Exception {
        RedissonClient redisson = RedissonConfigs.clientFor(kit, Duration.ofSeconds(30));
        LockClient relock = kit.newLockClient(LockOptions.builder().ownerInfo(OwnerInfo.of("tck", "")).build());
        long tid = Thread.currentThread().getId();
        RLock lock = redisson.getLock("tck:inspect:redisson");
        lock.lock(60, TimeUnit.SECONDS);
        lock.lock(60, TimeUnit.SECONDS);
        try {
            LockInspection s = relock.inspect("tck:inspect:redisson");
            assertEquals(Kind.REENTRANT, s.kind(), s::toString);
            assertEquals(1, s.holders().size(), s::toString);
            LockInspection.Holder h = s.holders().get(0);
            assertEquals(redisson.getId() + ":" + tid, h.field());
            assertEquals(redisson.getId(), h.clientId());
            assertEquals(tid, h.threadId());
            assertEquals(2, h.holdCount());
            assertEquals(Mode.EXCLUSIVE, h.mode());
            assertTrue(h.owner().isEmpty(), "Redisson registers no owner info: " + h);
            assertTrue(s.ttlMillis() > 50_000, s::toString);
        } finally {
            lock.unlock();
            lock.unlock();
        }
        RReadWriteLock rw = redisson.getReadWriteLock("tck:inspect:redisson-rw");
        rw.writeLock().lock();
        rw.readLock().lock();
        try {
            LockInspection s = relock.inspect("tck:inspect:redisson-rw");
            assertEquals(Kind.READ_WRITE, s.kind(), s::toString);
            assertEquals(Mode.WRITE, s.lockMode().orElseThrow());
            assertEquals(2, s.holders().size(), s::toString);
            for (LockInspection.Holder h : s.holders()) {
                assertEquals(redisson.getId(), h.clientId());
                assertEquals(tid, h.threadId());
                assertTrue(h.owner().isEmpty());
            }
            assertEquals(1, s.readHolds().size(), s::toString);
            assertEquals("{tck:inspect:redisson-rw}:" + redisson.getId() + ":" + tid + ":rwlock_timeout:1",
                    s.readHolds().get(0).key());
        } finally {
            rw.readLock().unlock();
            rw.writeLock().unlock();
        }
        relock.close();
    }
}
