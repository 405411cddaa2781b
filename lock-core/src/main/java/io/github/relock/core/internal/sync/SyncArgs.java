package io.github.relock.core.internal.sync;

import io.github.relock.core.internal.util.Args;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The synchronizers' argument checks, each naming what was passed and what is allowed, and the
 * permit ids and deadlines of the permit-expirable semaphore (sync spec 3.1, 3.2).
 *
 * <p>Thread-safety: stateless.
 */
final class SyncArgs {
    /** A lease of "none": the permit never expires. */
    static final long NO_LEASE = -1;

    private SyncArgs() {
    }

    /** @return {@code permits}, if at least {@code min} */
    static int permits(int permits, int min, String method) {
        if (permits < min) {
            throw new IllegalArgumentException(method + ": permits must be at least " + min + ", was " + permits);
        }
        return permits;
    }

    /** @return a lease in ms, or {@link #NO_LEASE} for {@code -1} */
    static long leaseMs(long leaseTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit must not be null");
        if (leaseTime == -1) {
            return NO_LEASE;
        }
        long ms = leaseTime <= 0 ? 0 : unit.toMillis(leaseTime);
        if (ms <= 0) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms, or -1 for a permit that never expires,"
                    + " was " + leaseTime + " " + unit);
        }
        return ms;
    }

    /** @return a lease in ms, or {@link #NO_LEASE} for null */
    static long leaseMs(Duration lease) {
        if (lease == null) {
            return NO_LEASE;
        }
        long ms = lease.isNegative() || lease.isZero() ? 0 : saturatedMillis(lease);
        if (ms <= 0) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms, or null for a permit that never"
                    + " expires, was " + lease);
        }
        return ms;
    }

    /** @return the epoch-ms deadline of a lease taken at {@code now}, as Redisson writes it */
    static long deadline(long now, long leaseMs) {
        if (leaseMs == NO_LEASE) {
            return SyncCalls.NEVER;
        }
        if (leaseMs >= SyncCalls.NEVER - now) {
            throw new IllegalArgumentException("leaseTime must end before epoch ms " + SyncCalls.NEVER
                    + " (Redisson's 'never'), was " + leaseMs + " ms; use -1 (or null) for a permit that never expires");
        }
        return now + leaseMs;
    }

    /** @return a positive time to live in ms */
    static long ttlMs(Duration ttl, String method) {
        Objects.requireNonNull(ttl, () -> method + ": timeToLive must not be null");
        long ms = ttl.isNegative() || ttl.isZero() ? 0 : saturatedMillis(ttl);
        if (ms <= 0) {
            throw new IllegalArgumentException(method + ": timeToLive must be at least 1 ms, was " + ttl);
        }
        return ms;
    }

    /** @return a time to live for {@code expire…}: 1 ms to 2^53 - 1 ms */
    static long expireMs(Duration ttl, String method) {
        String allowed = "from 1 ms to " + Args.MAX_LEASE_MS + " ms (2^53 - 1)";
        Objects.requireNonNull(ttl, () -> method + ": timeToLive must not be null; allowed: " + allowed);
        long ms = ttl.isNegative() || ttl.isZero() ? 0 : saturatedMillis(ttl);
        if (ms <= 0 || ms > Args.MAX_LEASE_MS) {
            throw new IllegalArgumentException(method + ": timeToLive must be " + allowed + ", was " + ttl);
        }
        return ms;
    }

    /** @return an epoch ms for {@code expire…(Instant)}: from the epoch to 2^53 - 1 ms after it */
    static long expireAtMs(Instant time, String method) {
        String allowed = "an instant from the epoch to " + Args.MAX_LEASE_MS + " ms (2^53 - 1) after it";
        Objects.requireNonNull(time, () -> method + ": time must not be null; allowed: " + allowed);
        long ms = time.isBefore(Instant.EPOCH) ? -1 : saturatedMillis(Duration.between(Instant.EPOCH, time));
        if (ms < 0 || ms > Args.MAX_LEASE_MS) {
            throw new IllegalArgumentException(method + ": time must be " + allowed + ", was " + time);
        }
        return ms;
    }

    /** @return {@code id}, if it is a permit id: 32 hex characters (16 bytes), as relock and Redisson make them */
    static String permitId(String id) {
        Objects.requireNonNull(id, "permitId must not be null");
        if (id.length() != 32 || !id.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("a permit id is 32 hex characters (16 bytes), as relock and Redisson"
                    + " make them; was '" + (id.length() > 64 ? id.substring(0, 64) + "..." : id) + "'");
        }
        return id;
    }

    /** @return the ids, each checked; at least one */
    static List<String> permitIds(List<String> ids) {
        Objects.requireNonNull(ids, "permitIds must not be null");
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("permitIds must hold at least one id, was empty");
        }
        ids.forEach(SyncArgs::permitId);
        return List.copyOf(ids);
    }

    /** @return {@code n} new random permit ids, 16 bytes each as 32 lowercase hex characters */
    static List<String> newIds(int n) {
        String[] ids = new String[n];
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int i = 0; i < n; i++) {
            ids[i] = String.format("%016x%016x", r.nextLong(), r.nextLong());
        }
        return List.of(ids);
    }

    /** @return {@code count}, if at least 1 */
    static long count(long count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        return count;
    }

    private static long saturatedMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
