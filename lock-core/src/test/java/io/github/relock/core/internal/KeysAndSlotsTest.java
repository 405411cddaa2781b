package io.github.relock.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Key, channel and field names (spec 1.3/1.4) and cluster hash slots (CRC16, hash tags). */
class KeysAndSlotsTest {

    @Test
    void prefixName_plainName_wrapsTheNameInBraces() {
        assertEquals("redisson_lock_queue:{orders}", Keys.prefixName("redisson_lock_queue", "orders"));
        assertEquals("redisson_lock__channel:{orders}", Keys.lockChannel("orders"));
    }

    @Test
    void prefixName_nameWithBrace_keepsItAsIs_theOnlyTestIsTheBrace() {
        assertEquals("redisson_lock_queue:{tenant}:orders", Keys.prefixName("redisson_lock_queue", "{tenant}:orders"));
        assertEquals("redisson_lock_queue:odd{", Keys.prefixName("redisson_lock_queue", "odd{"));
    }

    @Test
    void suffixName_plainAndBraced() {
        assertEquals("{orders}:suffix", Keys.suffixName("orders", "suffix"));
        assertEquals("{t}:orders:suffix", Keys.suffixName("{t}:orders", "suffix"));
    }

    @Test
    void ownerField_isClientIdColonOwnerId() {
        assertEquals("c1:42", Keys.ownerField("c1", 42));
        assertEquals("c1:-7", Keys.ownerField("c1", -7));
    }

    @Test
    void slot_knownRedisVectors() {
        assertEquals(12182, Slots.slot("foo")); // CLUSTER KEYSLOT foo, from the Redis cluster specification
        assertEquals(5061, Slots.slot("bar"));
        assertEquals(0x31C3, Slots.slot("123456789")); // CRC16/XMODEM check value, below 16384
    }

    @Test
    void slot_hashTags_followTheClusterSpecification() {
        assertEquals(Slots.slot("{user1000}.following"), Slots.slot("{user1000}.followers"));
        assertEquals(Slots.slot("user1000"), Slots.slot("{user1000}.following"));
        assertEquals(Slots.slot("bar"), Slots.slot("foo{bar}{zap}")); // the first tag only
        assertEquals(Slots.slot("{bar"), Slots.slot("foo{{bar}}zap")); // from the first '{' to the next '}'
        assertEquals(Slots.slot("foo{}{bar}"), Slots.slot("foo{}{bar}")); // an empty tag hashes the whole key
        assertEquals(crcOfWholeKey("foo{}{bar}"), Slots.slot("foo{}{bar}"));
    }

    @Test
    void slot_derivedKeysOfOneLock_shareTheLocksSlot() {
        String name = "orders";
        int slot = Slots.slot(name);
        assertEquals(slot, Slots.slot(Keys.prefixName("redisson_lock_queue", name)));
        assertEquals(slot, Slots.slot(Keys.prefixName("redisson_lock_timeout", name)));
        assertEquals(slot, Slots.slot(Keys.lockChannel(name)));
    }

    /** A bitwise CRC16/XMODEM, independent of Slots' table, over the whole key. */
    private static int crcOfWholeKey(String key) {
        int crc = 0;
        for (byte b : key.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            crc ^= (b & 0xFF) << 8;
            for (int i = 0; i < 8; i++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xFFFF;
        }
        return crc & 16383;
    }
}
