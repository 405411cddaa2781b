package io.github.relock.core.internal.multi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.api.RedissonValueCodec;
import org.junit.jupiter.api.Test;

/** HighwayHash-128 against the reference's golden values, and field names against Redisson's. */
class HighwayHashTest {
    /** The reference test's key (google/highwayhash, highwayhash_test.cc). */
    private static final long[] TEST_KEY = {0x0706050403020100L, 0x0F0E0D0C0B0A0908L, 0x1716151413121110L,
        0x1F1E1D1C1B1A1918L};

    /** Input length, then the reference's kExpected128 for the bytes 0, 1, ..., length - 1. */
    private static final long[][] GOLDEN = {
        {0, 0x0FED268F9D8FFEC7L, 0x33565E767F093E6FL},
        {1, 0xD6B0A8893681E7A8L, 0xDC291DF9EB9CDCB4L},
        {3, 0x0607621B295F0BEBL, 0xBFE69A0FD9CEDD79L},
        {4, 0x26399EB46DACE49EL, 0x2E922AD039319208L},
        {16, 0x414460FFD5A401ADL, 0x029EA3D5019F18C8L},
        {17, 0xC52A4B96C51C9962L, 0xECB878B1169B5EA0L},
        {31, 0x06E7B465E8A57C29L, 0x52415E3A07F5D446L},
        {32, 0x1984DF66C1434AAAL, 0x16FC1958F9B3E4B9L},
        {33, 0x111678AFE0C6C36CL, 0xF958B59DE5A2849DL},
        {34, 0x773FBC8440FB0490L, 0xC96ED5D243658536L},
        {63, 0x74BD7018022F3EF0L, 0x3AEA94A8AD5F4BCBL},
        {64, 0x98BB1F7198D4C4F2L, 0xE0BC0571DE918FC8L},
    };

    @Test
    void hash128_matchesTheReferenceGoldenValues_forEveryTailShape() {
        for (long[] g : GOLDEN) {
            byte[] data = new byte[(int) g[0]];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) i;
            }
            assertArrayEquals(new long[] {g[1], g[2]}, HighwayHash.hash128(data, TEST_KEY), "length " + g[0]);
        }
    }

    /**
     * Value, then the field name Redisson 4.7.0 writes for it (Hash.hash128toBase64 of the codec's
     * bytes, printed by Redisson itself): every string shape Kryo writes apart (one char, 2 to 32
     * ASCII, 33, a NUL, a surrogate pair, 2- and 3-byte chars, a two-byte length) and numbers at
     * their widest.
     */
    private static final Object[][] REDISSON_KRYO5 = {
        {"a", "Jon6GCcO+0QSJkhre5wXYA"},
        {"abcdefghijklmnopqrstuvwxyz012345", "2pB9f2ym8fRH74M0RSeu2Q"},
        {"abcdefghijklmnopqrstuvwxyz0123456", "ICw4wVUW4FpMl+jMxPJhlg"},
        {"x\u0000", "kQRiSQs8/e+3NqtYbNhjcA"},
        {"\uD83D\uDE00", "x8RNEAwQ8KZSMhraJs6dXA"},
        {"\u20AC", "oPcmzPPaduhqmwahUwvvsw"},
        {"\u00e9".repeat(70), "o5TnV5yXo0rTnAuaH1t1hw"},
        {42, "Y5MJ+mge9H+XMmohFCsrTg"},
        {-7, "V2Y7uorS4IviNUOgYRDQrA"},
        {Integer.MIN_VALUE, "R1kKuDeBmc0eqIAvhdu5Tw"},
        {1L << 40, "CWfHLs90hnG/fGpULLZd5A"},
        {Long.MIN_VALUE, "8wAGzfg3roSo3NdLNkzw7w"},
    };

    /** As {@link #REDISSON_KRYO5}, under Redisson's StringCodec. */
    private static final Object[][] REDISSON_STRING = {
        {"a", "qwvAS12pR0CgRitaypEjUw"},
        {"order-1", "X+ODZqEUAwhv6+bZ/SNNzw"},
        {"", "t6rZwibGo2uy1OSmNVe8pg"},
        {"h\u00e9llo w\u00f6rld \u00fcn\u00efc\u00f6d\u00e9 and more than thirty-two bytes!", "O8UTrbrPLdFeSeVwKEJCLQ"},
        {42L, "RE0IojEvPTY8Dofe3IkBNA"},
    };

    @Test
    void fieldNames_areRedissons_underKryo5AndStringCodec() {
        for (Object[] v : REDISSON_KRYO5) {
            assertEquals(v[1], GroupedMultiLock.fieldName(v[0], "g", RedissonValueCodec.KRYO5), "KRYO5 F(" + v[0] + ")");
        }
        for (Object[] v : REDISSON_STRING) {
            assertEquals(v[1], GroupedMultiLock.fieldName(v[0], "g", RedissonValueCodec.STRING), "STRING F(" + v[0] + ")");
        }
    }
}
