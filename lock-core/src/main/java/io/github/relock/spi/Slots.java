package io.github.relock.spi;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster hash slots: CRC16/XMODEM of the key, or of its hash tag (the bytes between the first
 * '{' and the first '}' after it, when not empty), modulo 16384. For drivers that route by slot (the
 * pub/sub helpers group channels by it) and for the engine, which batches renewals by it.
 *
 * <p>Thread-safety: stateless; safe for use by several threads.
 */
public final class Slots {
    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int j = 0; j < 8; j++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[i] = crc & 0xFFFF;
        }
    }

    private Slots() {
    }

    /**
     * @param key a key or channel name
     * @return its hash slot, 0 to 16383
     */
    public static int slot(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                key = key.substring(open + 1, close);
            }
        }
        int crc = 0;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ b) & 0xFF]) & 0xFFFF;
        }
        return crc & 16383;
    }
}
