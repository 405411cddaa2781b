package io.github.relock.core.internal.sync;

import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.util.Keys;
import io.github.relock.core.internal.util.Replies;
import io.github.relock.spi.Script;
import java.util.ArrayList;
import java.util.List;

/**
 * The synchronizers' calls on the wire (sync spec 2-4, 9): one instance per name, holding its keys
 * and channels (Redisson's naming, sync spec 1.1), building typed {@link Call}s whose decoders
 * name the script and the object in the error a malformed reply gets.
 *
 * <p>Thread-safety: immutable.
 */
final class SyncCalls {
    /** A permit-expirable semaphore's deadline for a permit that never expires (sync spec 3.2). */
    static final long NEVER = 922337203685477L;

    private static final String INTEGER = "an integer";
    private static final String FLAG = "1 or 0";
    private static final String STATE = "{exists 0 or 1, available, held}";

    final String name;
    private final String mode;
    private final List<String> key;
    private final List<String> keyAndChannel;
    private final List<String> expirableKeys;
    private final List<String> bothKeys;
    private final List<String> latchKeys;

    /**
     * @param name the object's name (the key N)
     * @param publishMode PUBLISH, or BOTH on a cluster
     */
    SyncCalls(String name, String publishMode) {
        this.name = name;
        this.mode = publishMode;
        String channel = semaphoreChannel(name);
        String leases = leasesKey(name);
        this.key = List.of(name);
        this.keyAndChannel = List.of(name, channel);
        this.expirableKeys = List.of(name, leases, channel);
        this.bothKeys = List.of(name, leases);
        this.latchKeys = List.of(name, latchChannel(name));
    }

    /** @return {@code redisson_sc:{N}}, both semaphores' channel */
    static String semaphoreChannel(String name) {
        return Keys.prefixName("redisson_sc", name);
    }

    /** @return <code>&#123;N&#125;:timeout</code>, the permit-expirable semaphore's leases */
    static String leasesKey(String name) {
        return Keys.suffixName(name, "timeout");
    }

    /** @return the latch's channel: always braces around N, even when N has one (sync spec 1.1) */
    static String latchChannel(String name) {
        return "redisson_countdownlatch__channel__{" + name + "}";
    }

    // ---------------------------------------------------------------- RSemaphore (sync spec 2)

    Call<Acquire> tryAcquire(int permits) {
        Script s = SyncScripts.SEMAPHORE_TRY_ACQUIRE;
        return new Call<>(s, key, List.of(Integer.toString(permits)),
                r -> flag(r, s) ? Acquire.ACQUIRED : new Acquire.Busy(-1));
    }

    /** @return the new count; null when {@code ifExists} found no semaphore */
    Call<Long> release(int permits, boolean ifExists) {
        Script s = SyncScripts.SEMAPHORE_RELEASE;
        return new Call<>(s, keyAndChannel, List.of(Integer.toString(permits), mode, ifExists ? "ifexists" : ""),
                r -> r == null && ifExists ? null : integer(r, s));
    }

    Call<Long> drain() {
        Script s = SyncScripts.SEMAPHORE_DRAIN;
        return new Call<>(s, key, List.of(), r -> integer(r, s));
    }

    Call<Long> available() {
        Script s = SyncScripts.SEMAPHORE_AVAILABLE;
        return new Call<>(s, key, List.of(), r -> integer(r, s));
    }

    /** @param ttlMs the key's TTL, or 0 for none */
    Call<Boolean> trySetPermits(int permits, long ttlMs) {
        Script s = SyncScripts.SEMAPHORE_TRY_SET_PERMITS;
        return new Call<>(s, keyAndChannel, List.of(Integer.toString(permits), mode, ttlMs > 0 ? Long.toString(ttlMs) : ""),
                r -> flag(r, s));
    }

    /** @param expirable the permit-expirable semaphore's message (the delta, when positive) */
    Call<Long> addPermits(int permits, boolean expirable) {
        Script s = SyncScripts.SEMAPHORE_ADD_PERMITS;
        return new Call<>(s, keyAndChannel, List.of(Integer.toString(permits), mode, expirable ? "expirable" : ""),
                r -> integer(r, s));
    }

    /** @param expirable whether the leases zset goes too */
    Call<Boolean> delete(boolean expirable) {
        Script s = SyncScripts.SYNC_DELETE;
        return new Call<>(s, expirable ? bothKeys : key, List.of(), r -> integer(r, s) > 0);
    }

    // ---------------------------------------------------------------- RExpirable, RObject.isExists (sync spec 2.8, 3.12)

    /**
     * @param at whether {@code ms} is an epoch ms (PEXPIREAT) rather than a time to live (PEXPIRE)
     * @param condition "" or PEXPIRE's NX, XX, GT, LT
     * @param expirable whether the leases zset gets it too
     * @return whether a key got it
     */
    Call<Boolean> expire(boolean at, long ms, String condition, boolean expirable) {
        Script s = SyncScripts.SYNC_EXPIRE;
        return new Call<>(s, expirable ? bothKeys : key, List.of(at ? "at" : "in", Long.toString(ms), condition),
                r -> flag(r, s));
    }

    /** @return whether a key had a time to live */
    Call<Boolean> clearExpire(boolean expirable) {
        Script s = SyncScripts.SYNC_CLEAR_EXPIRE;
        return new Call<>(s, expirable ? bothKeys : key, List.of(), r -> flag(r, s));
    }

    /** @return N's PTTL: ms, -1 no time to live, -2 missing */
    Call<Long> ttl() {
        Script s = SyncScripts.SYNC_TTL;
        return new Call<>(s, key, List.of(), r -> integer(r, s));
    }

    // ---------------------------------------------------------------- RPermitExpirableSemaphore (sync spec 3)

    /**
     * @return Acquired; or Busy with the ms until the earliest lease ends (-1: none ends, wait
     *     for a message)
     */
    Call<Acquire> expirableAcquire(long now, long deadline, List<String> ids) {
        Script s = SyncScripts.EXPIRABLE_ACQUIRE;
        List<String> args = new ArrayList<>(ids.size() + 3);
        args.add(Long.toString(now));
        args.add(Long.toString(deadline));
        args.add(mode);
        args.addAll(ids);
        return new Call<>(s, expirableKeys, args, r -> {
            if (r == null) {
                return Acquire.ACQUIRED;
            }
            long earliest = integer(r, s);
            return new Acquire.Busy(earliest == 0 ? -1 : Math.max(0, earliest - now));
        });
    }

    /** @return 1 released, 0 released but its lease had ended, -1 unknown */
    Call<Long> expirableRelease(String id, long now) {
        Script s = SyncScripts.EXPIRABLE_RELEASE;
        return new Call<>(s, expirableKeys, List.of(id, Long.toString(now), mode), r -> integer(r, s));
    }

    /** @return how many were released (0: refused, nothing changed) */
    Call<Long> expirableReleaseMany(long now, List<String> ids) {
        Script s = SyncScripts.EXPIRABLE_RELEASE_MANY;
        List<String> args = new ArrayList<>(ids.size() + 2);
        args.add(Long.toString(now));
        args.add(mode);
        args.addAll(ids);
        return new Call<>(s, expirableKeys, args, r -> integer(r, s));
    }

    /** @return {exists, available, held} after reclaiming ended leases */
    Call<long[]> expirableState(long now) {
        Script s = SyncScripts.EXPIRABLE_STATE;
        return new Call<>(s, expirableKeys, List.of(Long.toString(now), mode),
                r -> Replies.integers(r, 3, s, name, STATE));
    }

    /** @return ms left, -1 never, -2 unknown or ended */
    Call<Long> leaseTime(String id, long now) {
        Script s = SyncScripts.EXPIRABLE_LEASE_TIME;
        return new Call<>(s, expirableKeys, List.of(id, Long.toString(now), mode), r -> integer(r, s));
    }

    Call<Boolean> setPermits(int permits) {
        Script s = SyncScripts.EXPIRABLE_SET_PERMITS;
        return new Call<>(s, expirableKeys, List.of(Integer.toString(permits), mode), r -> flag(r, s));
    }

    Call<Boolean> updateLease(String id, long deadline, long now) {
        Script s = SyncScripts.EXPIRABLE_UPDATE_LEASE;
        return new Call<>(s, expirableKeys, List.of(id, Long.toString(deadline), Long.toString(now), mode),
                r -> flag(r, s));
    }

    // ---------------------------------------------------------------- RCountDownLatch (sync spec 4)

    Call<Boolean> trySetCount(long count) {
        Script s = SyncScripts.LATCH_TRY_SET_COUNT;
        return new Call<>(s, latchKeys, List.of(Long.toString(count), mode), r -> flag(r, s));
    }

    /** @return the count after it (zero or below: open) */
    Call<Long> countDown() {
        Script s = SyncScripts.LATCH_COUNT_DOWN;
        return new Call<>(s, latchKeys, List.of(mode), r -> integer(r, s));
    }

    Call<Long> count() {
        Script s = SyncScripts.LATCH_COUNT;
        return new Call<>(s, key, List.of(), r -> integer(r, s));
    }

    /** The latch's wait attempt: open (the count is zero or the key gone) is "acquired". */
    Call<Acquire> latchOpen() {
        Script s = SyncScripts.LATCH_COUNT;
        return new Call<>(s, key, List.of(), r -> integer(r, s) <= 0 ? Acquire.ACQUIRED : new Acquire.Busy(-1));
    }

    Call<Boolean> latchDelete() {
        Script s = SyncScripts.LATCH_DELETE;
        return new Call<>(s, latchKeys, List.of(mode), r -> flag(r, s));
    }

    // ---------------------------------------------------------------- replies

    private long integer(Object reply, Script s) {
        return Replies.integer(reply, s, name, INTEGER);
    }

    private boolean flag(Object reply, Script s) {
        long v = Replies.integer(reply, s, name, FLAG);
        if (v != 0 && v != 1) {
            throw Replies.malformed(reply, s, name, FLAG);
        }
        return v == 1;
    }
}
