package io.github.relock.core.internal.util;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Argument checks and conversions, shared by every lock type. The public API follows Redisson's
 * conventions (a wait of -1 tries once, a lease of -1 means the watchdog); inside the engine,
 * waits and TTLs are milliseconds with named sentinels that no public value converts to:
 * {@link #WAIT_FOREVER}, {@link #TRY_ONCE}, {@link #TTL_WATCHDOG}.
 */
public final class Args {
    /** An internal wait: wait until acquired (lock(), lockInterruptibly(), acquire()). */
    public static final long WAIT_FOREVER = Long.MIN_VALUE;
    /** An internal wait: one attempt, never queued (tryLock(), a public wait of -1). */
    public static final long TRY_ONCE = 0;
    /** An internal TTL: the watchdog's, renewed until unlocked (a public lease of -1, or none). */
    public static final long TTL_WATCHDOG = Long.MIN_VALUE;
    /**
     * The longest lease, 2^53 - 1 ms (about 285,000 years): the largest whole number Lua's numbers
     * hold exactly, and far inside PEXPIRE's limit. A longer lease would make PEXPIRE fail after the
     * hold was written, leaving a lock key without a TTL.
     */
    public static final long MAX_LEASE_MS = (1L << 53) - 1;

    private Args() {
    }

    /**
     * A lock name: not null, not blank, and text that UTF-8 can encode. An unpaired surrogate has
     * no UTF-8 form: drivers send it as {@code '?'}, so "a" + U+D800 and "a" + U+DBFF
     * would silently share the key {@code "a?"}. Any other text is allowed, of any length, with
     * or without a {@code {hash tag}}.
     */
    public static String name(String name) {
        Objects.requireNonNull(name, "lock name must not be null");
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank (a Redis key of at least one"
                    + " non-whitespace character), was '" + shown(name) + "' (" + name.length() + " chars)");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++; // a pair: one supplementary character, which UTF-8 encodes
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(String.format("lock name must be text UTF-8 can encode, but has an"
                        + " unpaired surrogate \\u%04X at index %d, which drivers would send as '?' (so distinct names"
                        + " would share one key): '%s'", (int) c, i, shown(name)));
            }
        }
        return name;
    }

    /** The start of a name for a message, so a huge one does not make a huge message. */
    public static String shown(String name) {
        return name.length() <= 100 ? name : name.substring(0, 100) + "...";
    }

    /** Public wait (Redisson convention: -1 = one attempt) to internal ms ({@link #TRY_ONCE} = one attempt). */
    public static long waitMs(long waitTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit must not be null");
        if (waitTime == -1) {
            return TRY_ONCE;
        }
        if (waitTime < 0) {
            throw new IllegalArgumentException("waitTime must be >= 0, or -1 for a single attempt, was "
                    + waitTime + " " + unit);
        }
        return unit.toMillis(waitTime);
    }

    public static long waitMs(Duration wait) {
        Objects.requireNonNull(wait, "waitTime must not be null");
        if (wait.isNegative()) {
            throw new IllegalArgumentException("waitTime must be >= 0, was " + wait);
        }
        return saturatedMillis(wait);
    }

    /** Public lease (-1 = watchdog) to an internal TTL in ms ({@link #TTL_WATCHDOG} = the watchdog's). */
    public static long leaseMs(long leaseTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit must not be null");
        if (leaseTime == -1) {
            return TTL_WATCHDOG;
        }
        if (leaseTime <= 0) {
            throw new IllegalArgumentException("leaseTime must be > 0, or -1 for the watchdog, was "
                    + leaseTime + " " + unit);
        }
        long ms = unit.toMillis(leaseTime);
        if (ms == 0) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms, was " + leaseTime + " " + unit);
        }
        return notTooLong(ms, leaseTime + " " + unit);
    }

    public static long leaseMs(Duration lease) {
        Objects.requireNonNull(lease, "leaseTime must not be null (use the overload without a lease for the watchdog)");
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + lease);
        }
        long ms = saturatedMillis(lease);
        if (ms == 0) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms, was " + lease);
        }
        return notTooLong(ms, lease.toString());
    }

    /**
     * The TTL of {@code LockLease.expireIn} and {@code releaseAfter}, in ms.
     *
     * @param method the method, for messages
     * @param zeroAllowed whether {@code Duration.ZERO} is allowed (it is then answered as 0)
     */
    public static long ttlMs(Duration ttl, String method, boolean zeroAllowed) {
        String allowed = (zeroAllowed ? "zero (a normal release) or from 1 ms" : "from 1 ms")
                + " to " + MAX_LEASE_MS + " ms (2^53 - 1)";
        Objects.requireNonNull(ttl, () -> method + ": ttl must not be null; allowed: " + allowed);
        if (ttl.isZero() && zeroAllowed) {
            return 0;
        }
        long ms = ttl.isNegative() ? -1 : saturatedMillis(ttl);
        if (ms <= 0 || ms > MAX_LEASE_MS) {
            throw new IllegalArgumentException(method + ": ttl must be " + allowed + ", was " + ttl);
        }
        return ms;
    }

    private static long notTooLong(long ms, String given) {
        if (ms > MAX_LEASE_MS) {
            throw new IllegalArgumentException("leaseTime must be at most " + MAX_LEASE_MS
                    + " ms (2^53 - 1; use the watchdog, leaseTime -1, for a lock held until unlocked), was " + given);
        }
        return ms;
    }

    private static long saturatedMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
