package io.github.relock.core.internal.protocol;

import static io.github.relock.core.internal.protocol.ReentrantProtocolTest.ONE_SERVER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.core.internal.util.Scripts;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The read-write lock's halves (see read-*.lua, write-*.lua and rw-*.lua for KEYS and ARGV). */
class ReadWriteProtocolTest {
    private static final String CHANNEL = "redisson_rwlock:{orders}";
    private final LockProtocol read = ReadWriteProtocol.read(ONE_SERVER, "orders");
    private final LockProtocol write = ReadWriteProtocol.write(ONE_SERVER, "orders");

    // ---------------------------------------------------------------- read half

    @Test
    void readAcquire_sendsTimeoutPrefixKeyWriterFieldAndModeAtArgv4() {
        Call<Acquire> queue = read.acquire("c:1", 30_000, AttemptMode.QUEUE);
        Call<Acquire> resolve = read.acquire("c:1", 30_000, AttemptMode.RESOLVE);

        assertEquals(Scripts.READ_ACQUIRE, queue.script());
        assertEquals(List.of("orders", "{orders}:c:1:rwlock_timeout"), queue.keys());
        assertEquals(List.of("30000", "c:1", "c:1:write", ""), queue.args());
        assertEquals(List.of("30000", "c:1", "c:1:write", "resolve"), resolve.args());
        assertEquals(new Acquire.Busy(1_000), queue.decode(1_000L));
    }

    @Test
    void timeoutKeyPrefix_readHalf_isTheNamesHashTagOrTheTaggedNameItself() {
        assertEquals("{orders}", read.timeoutKeyPrefix());
        assertEquals("a{t}b", ReadWriteProtocol.read(ONE_SERVER, "a{t}b").timeoutKeyPrefix());
        assertNull(write.timeoutKeyPrefix());
    }

    @Test
    void readRelease_sendsChannelTimeoutPrefixAndKeyPrefix() {
        Call<Release> c = read.release("c:1", 30_000, null);

        assertEquals(Scripts.READ_RELEASE, c.script());
        assertEquals(List.of("orders", CHANNEL, "{orders}:c:1:rwlock_timeout", "{orders}"), c.keys());
        assertEquals(List.of("30000", "c:1", "PUBLISH"), c.args());
        assertEquals(new Release.Released(0), c.decode(List.of(1L, 0L)), "released, the hash stayed for other readers");
    }

    @Test
    void readExpire_setsTheReadersTimeoutKeysToo() {
        Call<Boolean> c = read.expire("c:1", 5_000);

        assertEquals(Scripts.READ_EXPIRE, c.script());
        assertEquals(List.of("orders", "{orders}:c:1:rwlock_timeout", "{orders}"), c.keys());
        assertEquals(List.of("5000", "c:1"), c.args());
    }

    // ---------------------------------------------------------------- write half

    @Test
    void ownerField_writeHalf_hasWriteSuffix_readHalfHasNone() {
        assertEquals("client:7:write", write.ownerField("client", 7));
        assertEquals("client:7", read.ownerField("client", 7));
    }

    @Test
    void writeAcquire_sendsReaderFieldAndModeAndDecodesMinusThreeAsUpgrade() {
        Call<Acquire> c = write.acquire("c:1:write", 30_000, AttemptMode.RESOLVE);

        assertEquals(Scripts.WRITE_ACQUIRE, c.script());
        assertEquals(List.of("orders"), c.keys());
        assertEquals(List.of("30000", "c:1:write", "c:1", "resolve"), c.args());
        assertEquals(new Acquire.Refused(true), c.decode(-3L));
    }

    @Test
    void refusal_writeHalf_namesTheReadingOwnerAndSaysUpgradeIsImpossible() {
        String message = write.refusal("c:1:write");

        assertEquals("cannot take the write lock of 'orders': this owner (c:1) holds its read lock, and a read lock"
                + " cannot be upgraded; release the read lock first", message);
    }

    @Test
    void writeRelease_sendsChannelAndPublishMode() {
        Call<Release> c = write.release("c:1:write", 30_000, null);

        assertEquals(Scripts.WRITE_RELEASE, c.script());
        assertEquals(List.of("orders", CHANNEL), c.keys());
        assertEquals(List.of("30000", "c:1:write", "PUBLISH"), c.args());
    }

    // ---------------------------------------------------------------- both halves

    @Test
    void stateAndForceRelease_sendTheirHalfsMode() {
        assertEquals(List.of("read", "c:1"), read.state("c:1").args());
        assertEquals(List.of("write", "c:1:write"), write.state("c:1:write").args());
        assertEquals(Scripts.RW_STATE, read.state("c:1").script());
        assertEquals(List.of("read", "0", "PUBLISH"), read.forceRelease().args());
        assertEquals(List.of("write", "1", "PUBLISH"), write.forceRelease().args());
        assertEquals(List.of("orders", CHANNEL), write.forceRelease().keys());
    }

    @Test
    void halves_shareOneChannelAndNeverHandOff() {
        assertEquals(CHANNEL, read.waitChannel("c:1"));
        assertEquals(CHANNEL, write.waitChannel("c:1:write"));
        assertNull(read.handoffFamily());
        assertNull(write.handoffFamily());
        assertNull(read.giveUp("c:1"));
        assertFalse(write.unlockOfFreeLockReturns());
        assertEquals("ReadLock", read.kind());
        assertEquals("WriteLock", write.kind());
        assertTrue(read.maxPollIntervalMs() == Long.MAX_VALUE && write.maxPollIntervalMs() == Long.MAX_VALUE);
    }
}
