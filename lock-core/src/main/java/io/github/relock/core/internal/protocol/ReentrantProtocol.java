package io.github.relock.core.internal.protocol;

import io.github.relock.core.internal.util.Keys;
import io.github.relock.core.internal.util.Scripts;
import io.github.relock.spi.Script;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The reentrant lock's protocol (spec 2.1, 5.1-5.3) and its variants, which share its hash
 * {@code N}, owner field {@code <clientId>:<threadId>}, TTLs and release:
 * <ul>
 *   <li>{@link Variant#REENTRANT}: every waiter on channel {@code redisson_lock__channel:{N}};
 *       waiting leaves nothing on the server but, with directed wake-ups on (one server), the
 *       client's id in {@code relock__waiters:{N}}, which a release takes off as it wakes the
 *       client on {@code relock__wake:{N}} (see fragments/wake.lua), and which ages out;</li>
 *   <li>{@link Variant#NON_REENTRANT} (spec 2.7): re-entry refused by the acquire script;</li>
 *   <li>{@link Variant#SPIN} (spec 2.6, 5.5): no pub/sub at all; waiters poll with exponential
 *       back-off (the first pause {@code spinBackOffInitial}, doubling up to
 *       {@code spinBackOffMax}, plus up to a tenth at random so waiters do not poll in step; or as
 *       a {@code SpinBackOff} given to {@code getSpinLock}), and releases publish nothing;</li>
 *   <li>{@link Variant#FENCED} (spec 2.5): every grant, re-entries included, increments the token
 *       counter {@code redisson_lock_token:{N}}; it never hands off, since every grant must take a
 *       new token.</li>
 * </ul>
 *
 * <p>Thread-safety: immutable.
 */
public final class ReentrantProtocol implements LockProtocol {

    /** Which member of the reentrant family. */
    public enum Variant {
        /** Redisson's RLock. */
        REENTRANT("RedisLock"),
        /** Redisson 4.4+'s non-reentrant lock. */
        NON_REENTRANT("NonReentrantRedisLock"),
        /** Redisson's spin lock. */
        SPIN("SpinRedisLock"),
        /** Redisson's fenced lock. */
        FENCED("FencedRedisLock");

        final String kind;

        Variant(String kind) {
            this.kind = kind;
        }
    }

    private final ProtocolContext ctx;
    private final String name;
    private final Variant variant;
    private final String channel;
    private final String publishMode;
    private final List<String> keys;
    private final List<String> releaseKeys;
    private final List<String> fencedKeys;
    /** The client's id when this lock's waiters are woken one client at a time, else null. */
    private final String wakeId;
    private final String wakeChannel;
    private final List<String> waitKeys;
    private final long spinInitialMs;
    private final long spinMaxMs;
    private final int spinMultiplier;

    /**
     * @param ctx the client's settings (a spin lock backs off as they say: doubling)
     * @param name the lock's name
     * @param variant which member of the family
     */
    public ReentrantProtocol(ProtocolContext ctx, String name, Variant variant) {
        this(ctx, name, variant, ctx.spinInitialMs(), ctx.spinMaxMs(), 2);
    }

    /**
     * @param ctx the client's settings
     * @param name the lock's name
     * @param variant which member of the family
     * @param spinInitialMs a spin lock's first pause
     * @param spinMaxMs its longest pause
     * @param spinMultiplier how each pause grows (0: constant, no jitter)
     */
    public ReentrantProtocol(ProtocolContext ctx, String name, Variant variant, long spinInitialMs, long spinMaxMs,
                             int spinMultiplier) {
        this.spinInitialMs = spinInitialMs;
        this.spinMaxMs = spinMaxMs;
        this.spinMultiplier = spinMultiplier;
        this.ctx = ctx;
        this.name = name;
        this.variant = variant;
        this.channel = Keys.lockChannel(name);
        this.publishMode = variant == Variant.SPIN ? "NONE" : ctx.publishMode();
        this.keys = List.of(name);
        this.fencedKeys = List.of(name, tokenKey(name));
        this.wakeId = (variant == Variant.REENTRANT || variant == Variant.NON_REENTRANT) && "PUBLISH".equals(publishMode)
                ? ctx.wakeId() : null;
        String waiters = waitersKey(name);
        this.wakeChannel = wakeChannel(name);
        this.waitKeys = List.of(name, waiters);
        this.releaseKeys = List.of(name, channel, waiters, wakeChannel);
    }

    /** @return the sorted set of relock clients waiting for lock {@code name} (directed wake-ups) */
    public static String waitersKey(String name) {
        return Keys.prefixName("relock__waiters", name);
    }

    /** @return the channel a release wakes one waiting relock client of lock {@code name} on */
    public static String wakeChannel(String name) {
        return Keys.prefixName("relock__wake", name);
    }

    /** @return the fenced lock's token counter key of lock {@code name} */
    public static String tokenKey(String name) {
        return Keys.prefixName("redisson_lock_token", name);
    }

    @Override
    public String kind() {
        return variant.kind;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Call<Acquire> acquire(String field, long ttlMs, AttemptMode mode) {
        String ttl = Long.toString(ttlMs);
        if (variant == Variant.FENCED) {
            return new Call<>(Scripts.FENCED_ACQUIRE, fencedKeys, Decoders.withMode(mode, ttl, field),
                    Decoders.fencedAcquire(Scripts.FENCED_ACQUIRE, name));
        }
        String reentry = variant == Variant.NON_REENTRANT ? "nonreentrant" : "";
        if (wakeId != null && mode != AttemptMode.TRY && ctx.listening().applyAsInt(channel) > 0) {
            // a wait's attempt once this client listens on the channels (a joined wait, or a
            // lingering subscription: Waiters): it registers if it fails
            List<String> args = new java.util.ArrayList<>(Decoders.withMode(mode, ttl, field, reentry));
            args.add(wakeId); // ARGV[5]: a failed attempt registers the client for a directed wake-up
            return new Call<>(Scripts.LOCK_ACQUIRE, waitKeys, List.copyOf(args),
                    Decoders.acquire(Scripts.LOCK_ACQUIRE, name, false));
        }
        return new Call<>(Scripts.LOCK_ACQUIRE, keys, Decoders.withMode(mode, ttl, field, reentry),
                Decoders.acquire(Scripts.LOCK_ACQUIRE, name, false));
    }

    @Override
    public Call<Release> release(String field, long ttlMs, Candidate transferTo) {
        Script s = Scripts.LOCK_RELEASE;
        List<String> args = new java.util.ArrayList<>(List.of(Long.toString(ttlMs), field, publishMode));
        if (transferTo != null) {
            args.addAll(List.of(transferTo.field(), Long.toString(transferTo.ttlMs()),
                    Integer.toString(ctx.ownClassicSubscriptions().applyAsInt(name)),
                    Integer.toString(ctx.ownShardedSubscriptions())));
        } else if (wakeId != null) {
            args.addAll(List.of("", "", "", "")); // no hand-off
        }
        if (wakeId != null) { // ARGV[8], ARGV[9]: the releasing client, and whether it stays registered
            args.add(wakeId);
            args.add(ctx.localWaiters().applyAsInt(channel) > 0 ? "1" : "0");
        }
        return new Call<>(s, releaseKeys, List.copyOf(args), Decoders.release(s, name));
    }

    @Override
    public Call<Boolean> forceRelease() {
        return new Call<>(Scripts.LOCK_FORCE_RELEASE, releaseKeys, List.of(publishMode),
                Decoders.flag(Scripts.LOCK_FORCE_RELEASE, name));
    }

    @Override
    public Call<Boolean> expire(String field, long ttlMs) {
        return new Call<>(Scripts.LOCK_EXPIRE, keys, List.of(Long.toString(ttlMs), field),
                Decoders.flag(Scripts.LOCK_EXPIRE, name));
    }

    @Override
    public Call<LockState> state(String field) {
        return new Call<>(Scripts.LOCK_STATE, keys, List.of(field), Decoders.state(Scripts.LOCK_STATE, name));
    }

    @Override
    public String waitChannel(String field) {
        return variant == Variant.SPIN ? null : channel;
    }

    /** @return the wake channel this client's waiters also listen on (directed wake-ups on), else null */
    @Override
    public String wakeChannel() {
        return wakeId == null ? null : wakeChannel;
    }

    /** @return the client's id, the payload that wakes its waiters on {@link #wakeChannel()} */
    @Override
    public String wakeId() {
        return wakeId;
    }

    @Override
    public Call<?> leaveWaiting() {
        return wakeId == null ? null : new Call<>(Scripts.LOCK_WAKE_LEAVE, releaseKeys, List.of(wakeId, publishMode),
                Decoders.flag(Scripts.LOCK_WAKE_LEAVE, name));
    }

    @Override
    public long backOffMs(int polls) {
        if (variant != Variant.SPIN) {
            return LockProtocol.super.backOffMs(polls);
        }
        if (spinMultiplier == 0) {
            return spinInitialMs; // constant
        }
        double grown = spinInitialMs * Math.pow(spinMultiplier, Math.min(Math.max(polls - 1, 0), 62));
        long pause = grown >= spinMaxMs ? spinMaxMs : (long) grown;
        return pause + ThreadLocalRandom.current().nextLong(pause / 10 + 1);
    }

    /** Reentrant and non-reentrant locks hand off; spin waiters post no offers, and a fenced grant must take a token. */
    @Override
    public String handoffFamily() {
        return variant == Variant.REENTRANT || variant == Variant.NON_REENTRANT ? variant.kind : null;
    }
}
