package io.github.relock.core.internal.multi;

/*
 * Design: HighwayHash-128 (J. Alakuijala, B. Cox, J. Wassenberg, "Fast keyed hash/pseudo-random
 * function using SIMD multiply and permute", 2016; the frozen reference is google/highwayhash),
 * written here from the published algorithm because lock-core depends on nothing but the JDK.
 * State: four lanes each of v0, v1, mul0, mul1 (64-bit). Every 32-byte packet (four little-endian
 * lanes) goes through one update round; a last partial packet is padded as the reference says
 * (its length added to v0, v1's 32-bit halves rotated by it, the tail bytes placed at fixed
 * offsets); the 128-bit result takes six more rounds of the state's own permuted v0. Redisson
 * hashes each grouped multi-lock value this way under a fixed key (spec 2.8); HighwayHashTest
 * checks the reference's golden values.
 */

/**
 * HighwayHash-128 of a byte array under a 256-bit key.
 *
 * <p>Thread-safety: stateless; every call works on its own state.
 */
final class HighwayHash {
    private static final long[] MUL0_INIT = {
        0xdbe6d5d5fe4cce2fL, 0xa4093822299f31d0L, 0x13198a2e03707344L, 0x243f6a8885a308d3L};
    private static final long[] MUL1_INIT = {
        0x3bd39e10cb0ef593L, 0xc0acf169b5f18a8cL, 0xbe5466cf34e90c6cL, 0x452821e638d01377L};

    private final long[] v0 = new long[4];
    private final long[] v1 = new long[4];
    private final long[] mul0 = MUL0_INIT.clone();
    private final long[] mul1 = MUL1_INIT.clone();

    private HighwayHash(long[] key) {
        for (int i = 0; i < 4; i++) {
            v0[i] = mul0[i] ^ key[i];
            v1[i] = mul1[i] ^ Long.rotateLeft(key[i], 32);
        }
    }

    /**
     * @param data the bytes to hash (any length, 0 included)
     * @param key the four 64-bit words of the key
     * @return the two 64-bit words of the hash, in the reference's order
     */
    static long[] hash128(byte[] data, long[] key) {
        if (key.length != 4) {
            throw new IllegalArgumentException("a HighwayHash key is four longs, got " + key.length);
        }
        HighwayHash h = new HighwayHash(key);
        int full = data.length & ~31;
        for (int at = 0; at < full; at += 32) {
            h.update(lane(data, at), lane(data, at + 8), lane(data, at + 16), lane(data, at + 24));
        }
        int rest = data.length & 31;
        if (rest != 0) {
            h.updateTail(data, full, rest);
        }
        for (int i = 0; i < 6; i++) {
            h.update(Long.rotateLeft(h.v0[2], 32), Long.rotateLeft(h.v0[3], 32),
                    Long.rotateLeft(h.v0[0], 32), Long.rotateLeft(h.v0[1], 32));
        }
        return new long[] {
            h.v0[0] + h.mul0[0] + h.v1[2] + h.mul1[2],
            h.v0[1] + h.mul0[1] + h.v1[3] + h.mul1[3]};
    }

    private static long lane(byte[] b, int at) {
        long r = 0;
        for (int i = 7; i >= 0; i--) {
            r = (r << 8) | (b[at + i] & 0xffL);
        }
        return r;
    }

    private void update(long a0, long a1, long a2, long a3) {
        long[] a = {a0, a1, a2, a3};
        for (int i = 0; i < 4; i++) {
            v1[i] += mul0[i] + a[i];
            mul0[i] ^= (v1[i] & 0xffffffffL) * (v0[i] >>> 32);
            v0[i] += mul1[i];
            mul1[i] ^= (v0[i] & 0xffffffffL) * (v1[i] >>> 32);
        }
        v0[0] += mergeLow(v1[1], v1[0]);
        v0[1] += mergeHigh(v1[1], v1[0]);
        v0[2] += mergeLow(v1[3], v1[2]);
        v0[3] += mergeHigh(v1[3], v1[2]);
        v1[0] += mergeLow(v0[1], v0[0]);
        v1[1] += mergeHigh(v0[1], v0[0]);
        v1[2] += mergeLow(v0[3], v0[2]);
        v1[3] += mergeHigh(v0[3], v0[2]);
    }

    /** The byte shuffle ("zipper merge") of the pair (hi, lo) added to the low lane. */
    private static long mergeLow(long hi, long lo) {
        return (((lo & 0xff000000L) | (hi & 0xff00000000L)) >>> 24)
                | (((lo & 0xff0000000000L) | (hi & 0xff000000000000L)) >>> 16)
                | (lo & 0xff0000L) | ((lo & 0xff00L) << 32)
                | ((hi & 0xff00000000000000L) >>> 8) | (lo << 56);
    }

    /** The byte shuffle of the pair (hi, lo) added to the high lane. */
    private static long mergeHigh(long hi, long lo) {
        return (((hi & 0xff000000L) | (lo & 0xff00000000L)) >>> 24)
                | (hi & 0xff0000L) | ((hi & 0xff0000000000L) >>> 16)
                | ((hi & 0xff00L) << 24) | ((lo & 0xff000000000000L) >>> 8)
                | ((hi & 0xffL) << 48) | (lo & 0xff00000000000000L);
    }

    /** The last 1..31 bytes, padded to one packet. */
    private void updateTail(byte[] data, int from, int size) {
        for (int i = 0; i < 4; i++) {
            v0[i] += ((long) size << 32) + size;
            int low = Integer.rotateLeft((int) v1[i], size);
            int high = Integer.rotateLeft((int) (v1[i] >>> 32), size);
            v1[i] = (low & 0xffffffffL) | ((long) high << 32);
        }
        byte[] packet = new byte[32];
        int whole = size & ~3;
        System.arraycopy(data, from, packet, 0, whole);
        int mod4 = size & 3;
        int tail = from + whole;
        if ((size & 16) != 0) {
            for (int i = 0; i < 4; i++) {
                packet[28 + i] = data[tail + i + mod4 - 4];
            }
        } else if (mod4 != 0) {
            packet[16] = data[tail];
            packet[17] = data[tail + (mod4 >> 1)];
            packet[18] = data[tail + mod4 - 1];
        }
        update(lane(packet, 0), lane(packet, 8), lane(packet, 16), lane(packet, 24));
    }
}
