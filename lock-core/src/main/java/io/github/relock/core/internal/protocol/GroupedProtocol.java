package io.github.relock.core.internal.protocol;

import io.github.relock.core.internal.util.Keys;
import io.github.relock.core.internal.util.Scripts;
import java.util.ArrayList;
import java.util.List;

/**
 * The grouped multi-lock's protocol (Redisson 4.x {@code getMultiLock(group, values)}, spec 2.8):
 * one hash per group, a set of values taken or released in one script. Owner field
 * {@code <clientId>:<threadId>} as the reentrant lock's; expiries per value on the client's wall
 * clock, sent with every call, as Redisson writes them; waiters on the group's lock channel.
 *
 * <p>Its {@link #name()} is not the group's hash: it is a name in the group's cluster slot that
 * stands for this set of values, so this client's holds of one set are counted apart from another
 * set's and from the reentrant lock of the same name (each its own hold, renewed on its own), and
 * the watchdog reaches the hash through the renewal argument ({@link #timeoutKeyPrefix()}).
 *
 * <p>Thread-safety: immutable.
 */
public final class GroupedProtocol implements LockProtocol {
    /** How the renewal argument of a grouped hold starts (renew-hold.lua reads it). */
    public static final String RENEWAL_MARK = "G|";

    private final ProtocolContext ctx;
    private final String key;
    private final String holdName;
    private final List<String> fields;
    private final List<String> keys;
    private final List<String> releaseKeys;
    private final String channel;
    private final String renewal;

    /**
     * @param ctx the client's settings (how releases publish)
     * @param key the group's hash (name mapped)
     * @param holdName the name this set's holds are kept under, in {@code key}'s cluster slot
     * @param fields the values' field names, at least one, no duplicates
     */
    public GroupedProtocol(ProtocolContext ctx, String key, String holdName, List<String> fields) {
        this.ctx = ctx;
        this.key = key;
        this.holdName = holdName;
        this.fields = List.copyOf(fields);
        this.channel = Keys.lockChannel(key);
        this.keys = List.of(key);
        this.releaseKeys = List.of(key, channel);
        this.renewal = RENEWAL_MARK + String.join(",", fields) + "|" + key;
    }

    @Override
    public String kind() {
        return "GroupedMultiLock";
    }

    @Override
    public String name() {
        return holdName;
    }

    private List<String> args(String... first) {
        List<String> all = new ArrayList<>(first.length + fields.size());
        all.addAll(List.of(first));
        all.addAll(fields);
        return all;
    }

    private static String now() {
        return Long.toString(System.currentTimeMillis()); // Redisson compares expiries on the clients' clocks
    }

    @Override
    public Call<Acquire> acquire(String field, long ttlMs, AttemptMode mode) {
        return new Call<>(Scripts.GROUPED_ACQUIRE, keys,
                args(Long.toString(ttlMs), now(), field, mode == AttemptMode.RESOLVE ? "resolve" : ""),
                Decoders.acquire(Scripts.GROUPED_ACQUIRE, key, false));
    }

    @Override
    public Call<Release> release(String field, long ttlMs, Candidate transferTo) {
        return new Call<>(Scripts.GROUPED_RELEASE, releaseKeys, args(Long.toString(ttlMs), field, ctx.publishMode(), now()),
                Decoders.release(Scripts.GROUPED_RELEASE, key));
    }

    @Override
    public Call<Boolean> forceRelease() {
        return new Call<>(Scripts.GROUPED_FORCE_RELEASE, releaseKeys, args(ctx.publishMode()),
                Decoders.flag(Scripts.GROUPED_FORCE_RELEASE, key));
    }

    @Override
    public Call<Boolean> expire(String field, long ttlMs) {
        return new Call<>(Scripts.GROUPED_EXPIRE, keys, args(Long.toString(ttlMs), field, now()),
                Decoders.flag(Scripts.GROUPED_EXPIRE, key));
    }

    @Override
    public Call<LockState> state(String field) {
        return new Call<>(Scripts.GROUPED_STATE, keys, args(field, now()), Decoders.state(Scripts.GROUPED_STATE, key));
    }

    /** @return the renewal argument: {@code G|<field names>|<group hash>} (the watchdog adds its clock) */
    @Override
    public String timeoutKeyPrefix() {
        return renewal;
    }

    @Override
    public String waitChannel(String field) {
        return channel;
    }
}
