package io.github.relock.core.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The spin lock's protocol (spec 2.6, 5.5): the reentrant lock's hash, fields, scripts and TTLs,
 * so it excludes and is excluded by a reentrant lock of the same name, but no pub/sub at all:
 * waiters poll with exponential back-off and releases publish nothing.
 *
 * <p>Back-off: the first pause is {@code spinBackOffInitial}, each next one doubles up to
 * {@code spinBackOffMax}, plus a random term of up to a tenth, so that waiters do not poll in step
 * (Redisson's default: 1 ms, doubling to 128 ms, plus a small random term).
 *
 * <p>Thread-safety: immutable.
 */
final class SpinProtocol extends ReentrantProtocol {
    private final long initialMs;
    private final long maxMs;

    SpinProtocol(DefaultLockClient client, String name) {
        super(client, name, true);
        this.initialMs = client.options().spinBackOffInitial().toMillis();
        this.maxMs = client.options().spinBackOffMax().toMillis();
    }

    @Override
    public String kind() {
        return "SpinRedisLock";
    }

    @Override
    String publishMode() {
        return "NONE";
    }

    @Override
    public String waitChannel(String field) {
        return null;
    }

    /** Never: spin waiters poll, and post no offers to hand the lock to. */
    @Override
    public boolean handsOff() {
        return false;
    }

    @Override
    public long backOffMs(int polls) {
        long pause = initialMs << Math.min(Math.max(polls - 1, 0), 20);
        pause = pause <= 0 ? maxMs : Math.min(pause, maxMs);
        return pause + ThreadLocalRandom.current().nextLong(pause / 10 + 1);
    }
}
