package io.github.relock.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis Cluster hash slots: CRC16/XMODEM of the key, or of its hash tag (the bytes between the first
 * '{' and the first '}' after it, when not empty), modulo 16384.
 */
class SlotsTest {

    /**
     * Every value was read from {@code CLUSTER KEYSLOT <key>} on redis-server 7.0.15 (the binary in
     * org.signal:embedded-redis 0.9.1, started with --cluster-enabled yes).
     */
    static Stream<Arguments> clusterKeyslotVectors() {
        return Stream.of(
                Arguments.of("foo", 12182),
                Arguments.of("bar", 5061),
                Arguments.of("123456789", 12739), // 0x31C3, the CRC16/XMODEM check value
                Arguments.of("", 0),
                Arguments.of("user1000", 3443),
                Arguments.of("{user1000}.following", 3443),
                Arguments.of("{user1000}.followers", 3443),
                Arguments.of("foo{bar}{zap}", 5061), // the first tag only: "bar"
                Arguments.of("foo{{bar}}zap", 4015), // from the first '{' to the next '}': "{bar"
                Arguments.of("{bar", 4015), // no closing brace: the whole key
                Arguments.of("foo{}{bar}", 8363), // an empty first tag: the whole key
                Arguments.of("{}", 15257),
                Arguments.of("{}{x}", 3257),
                Arguments.of("}{", 12793),
                Arguments.of("a}{b}", 3300), // a '}' before the first '{' does not count
                Arguments.of("a{b", 13340),
                Arguments.of("é", 10180), // UTF-8 bytes c3 a9
                Arguments.of("clé{é}", 10180),
                Arguments.of("\uD83D\uDD12", 15505)); // U+1F512, four UTF-8 bytes
    }

    @ParameterizedTest(name = "CLUSTER KEYSLOT \"{0}\" = {1}")
    @MethodSource("clusterKeyslotVectors")
    void slot_knownKey_equalsRedisClusterKeyslot(String key, int expected) {
        assertEquals(expected, Slots.slot(key));
    }

    @Test
    void slot_crc16CheckString_is0x31C3() {
        assertEquals(0x31C3, Slots.slot("123456789"));
        assertEquals(0x31C3, bitwiseCrc16("123456789".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void slot_sameHashTag_sameSlotAsTheTagAlone() {
        assertEquals(Slots.slot("{user1000}.following"), Slots.slot("{user1000}.followers"));
        assertEquals(Slots.slot("user1000"), Slots.slot("{user1000}.following"));
        assertEquals(Slots.slot("bar"), Slots.slot("foo{bar}{zap}"));
        assertEquals(Slots.slot("{bar"), Slots.slot("foo{{bar}}zap"));
    }

    @Test
    void slot_emptyFirstTag_hashesTheWholeKey() {
        assertEquals(bitwiseCrc16("foo{}{bar}".getBytes(StandardCharsets.UTF_8)) & 16383, Slots.slot("foo{}{bar}"));
    }

    @Test
    void slot_randomKeysWithBracesAndNonAscii_matchAReferenceWrittenFromTheClusterSpec() {
        String[] pieces = {"a", "b", "z", "0", ":", "{", "}", "é", "\uD83D\uDD12", "ключ"};
        Random random = new Random(20_240_601L);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder key = new StringBuilder();
            int length = random.nextInt(12);
            for (int j = 0; j < length; j++) {
                key.append(pieces[random.nextInt(pieces.length)]);
            }
            String k = key.toString();
            int slot = Slots.slot(k);
            assertEquals(referenceKeyHashSlot(k.getBytes(StandardCharsets.UTF_8)), slot, () -> "key '" + k + "'");
            assertTrue(slot >= 0 && slot < 16384, () -> "slot " + slot + " of '" + k + "' is out of range");
        }
    }

    /** The cluster specification's keyHashSlot, over bytes, with a bitwise CRC (no table). */
    private static int referenceKeyHashSlot(byte[] key) {
        int s = -1;
        for (int i = 0; i < key.length; i++) {
            if (key[i] == '{') {
                s = i;
                break;
            }
        }
        if (s < 0) {
            return bitwiseCrc16(key) & 16383;
        }
        int e = -1;
        for (int i = s + 1; i < key.length; i++) {
            if (key[i] == '}') {
                e = i;
                break;
            }
        }
        if (e < 0 || e == s + 1) {
            return bitwiseCrc16(key) & 16383;
        }
        byte[] tag = new byte[e - s - 1];
        System.arraycopy(key, s + 1, tag, 0, tag.length);
        return bitwiseCrc16(tag) & 16383;
    }

    /** CRC16/XMODEM (polynomial 0x1021, initial value 0), one bit at a time. */
    private static int bitwiseCrc16(byte[] bytes) {
        int crc = 0;
        for (byte b : bytes) {
            crc ^= (b & 0xFF) << 8;
            for (int i = 0; i < 8; i++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xFFFF;
        }
        return crc;
    }
}
