package io.github.relock.core.internal.lock;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner ids for leases: negative, so never a live thread's id, and JVM-wide, so a multi-lock's
 * lease id is unused on every client it spans.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class Leases {
    private static final AtomicLong IDS = new AtomicLong();

    private Leases() {
    }

    /** @return a fresh owner id for a lease */
    public static long nextId() {
        return -IDS.incrementAndGet();
    }
}
