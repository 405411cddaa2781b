package io.github.relock.core.internal.multi;

import io.github.relock.api.RedissonValueCodec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/*
 * Design: the bytes a Redisson 4.7.0 client's codec writes for a grouped multi-lock value (spec
 * 2.8), for the types whose encoding is fixed. StringCodec writes toString() in UTF-8. Kryo5Codec
 * (Kryo 5.6, references on, registration not required) writes writeClassAndObject: the class's
 * registration id plus 2 as a varint (Integer 0 -> 0x02, String 1 -> 0x03, Long 7 -> 0x09; no
 * reference byte for these types), then the object: a number as a zig-zag varint (Integer, up to 5
 * bytes) or Kryo's varlong (Long: 7 bits per byte, the ninth byte all 8 bits); a string of 2 to 32
 * ASCII chars as its bytes with the top bit of the last set, any other string as its char count
 * plus 1 in a "flagged" varint (first byte 0x80, 6 bits of value, 0x40 to continue) then each
 * UTF-16 char in one to three bytes (surrogates separately, CESU-8 style). Read from Kryo's
 * Output.writeString/writeVarInt/writeVarLong and checked against Redisson's own field names
 * (HighwayHashTest, rule 11.8).
 */

/**
 * A grouped multi-lock value's bytes under a Redisson codec.
 *
 * <p>Thread-safety: stateless.
 */
final class ValueBytes {
    private ValueBytes() {
    }

    /** @return the types {@code codec} takes, for messages */
    static String allowed(RedissonValueCodec codec) {
        return codec == RedissonValueCodec.KRYO5 ? "String, Integer or Long (RedissonValueCodec.KRYO5, Redisson's default"
                + " Kryo5Codec)"
                : "String, Integer, Long, Short, Byte, Character, Boolean or UUID (RedissonValueCodec.STRING, Redisson's"
                + " StringCodec)";
    }

    /** @return whether {@code codec} takes {@code v} (not null) */
    static boolean takes(RedissonValueCodec codec, Object v) {
        if (v instanceof String || v instanceof Integer || v instanceof Long) {
            return true;
        }
        return codec == RedissonValueCodec.STRING && (v instanceof Short || v instanceof Byte
                || v instanceof Character || v instanceof Boolean || v instanceof UUID);
    }

    /** @return {@code v}'s bytes under {@code codec}; {@code v} is a type it {@link #takes} */
    static byte[] of(RedissonValueCodec codec, Object v) {
        if (codec == RedissonValueCodec.STRING) {
            return v.toString().getBytes(StandardCharsets.UTF_8);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (v instanceof Integer i) {
            out.write(0x02);
            long zz = Integer.toUnsignedLong((i << 1) ^ (i >> 31));
            while (zz >= 0x80) {
                out.write((int) (zz & 0x7f) | 0x80);
                zz >>>= 7;
            }
            out.write((int) zz);
        } else if (v instanceof Long l) {
            out.write(0x09);
            long zz = (l << 1) ^ (l >> 63);
            for (int i = 0; i < 8 && (zz & ~0x7fL) != 0; i++) {
                out.write((int) (zz & 0x7f) | 0x80);
                zz >>>= 7;
            }
            out.write((int) zz); // the ninth byte carries 8 bits
        } else {
            out.write(0x03);
            kryoString((String) v, out);
        }
        return out.toByteArray();
    }

    private static void kryoString(String s, ByteArrayOutputStream out) {
        int n = s.length();
        if (n > 1 && n <= 32 && s.chars().allMatch(c -> c <= 127)) {
            for (int i = 0; i < n - 1; i++) {
                out.write(s.charAt(i));
            }
            out.write(s.charAt(n - 1) | 0x80);
            return;
        }
        int count = n + 1;
        if (count < 0x40) {
            out.write(0x80 | count);
        } else {
            out.write(0x80 | 0x40 | (count & 0x3f));
            int rest = count >>> 6;
            while (rest >= 0x80) {
                out.write((rest & 0x7f) | 0x80);
                rest >>>= 7;
            }
            out.write(rest);
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c <= 0x7f) {
                out.write(c);
            } else if (c > 0x7ff) {
                out.write(0xe0 | (c >> 12) & 0x0f);
                out.write(0x80 | (c >> 6) & 0x3f);
                out.write(0x80 | c & 0x3f);
            } else {
                out.write(0xc0 | (c >> 6) & 0x1f);
                out.write(0x80 | c & 0x3f);
            }
        }
    }
}
