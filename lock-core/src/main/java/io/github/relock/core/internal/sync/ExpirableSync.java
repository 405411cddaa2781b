package io.github.relock.core.internal.sync;

import io.github.relock.api.Expirable;
import io.github.relock.core.internal.protocol.Call;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Redisson's {@code RExpirable} (and {@code RObject.isExists}) for the two semaphores (sync spec
 * 2.8, 3.12): every setter is one script over the object's keys (the permits key N, and for the
 * permit-expirable semaphore its leases zset too); the reads are a PTTL of N. Nothing is
 * published: an expiry removes permits, it never adds any, so no waiter has anything to wake for.
 *
 * <p>Thread-safety: safe for use by several threads; it holds no state beyond its name.
 */
abstract class ExpirableSync implements Expirable {
    private static final String ALWAYS = "";
    private static final String IF_SET = "XX";
    private static final String IF_NOT_SET = "NX";
    private static final String IF_GREATER = "GT";
    private static final String IF_LESS = "LT";

    private final Sync expirySync;
    private final SyncCalls expiryCalls;
    private final boolean leasesToo;

    /**
     * @param sync the client's synchronizer services
     * @param calls the object's calls
     * @param leasesToo whether the expiry covers the leases zset as well (the permit-expirable semaphore)
     */
    ExpirableSync(Sync sync, SyncCalls calls, boolean leasesToo) {
        this.expirySync = sync;
        this.expiryCalls = calls;
        this.leasesToo = leasesToo;
    }

    private Call<Boolean> expiry(Duration ttl, String condition, String method) {
        return expiryCalls.expire(false, SyncArgs.expireMs(ttl, method), condition, leasesToo);
    }

    private Call<Boolean> expiry(Instant time, String condition, String method) {
        return expiryCalls.expire(true, SyncArgs.expireAtMs(time, method), condition, leasesToo);
    }

    private boolean in(Duration ttl, String condition, String method) {
        return expirySync.run(expiry(ttl, condition, method));
    }

    private boolean at(Instant time, String condition, String method) {
        return expirySync.run(expiry(time, condition, method));
    }

    /** Runs the call {@code checked} builds; a refused argument fails the future instead of throwing. */
    private CompletableFuture<Boolean> async(Supplier<Call<Boolean>> checked) {
        try {
            return expirySync.runAsync(checked.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Boolean> inAsync(Duration ttl, String condition, String method) {
        return async(() -> expiry(ttl, condition, method));
    }

    private CompletableFuture<Boolean> atAsync(Instant time, String condition, String method) {
        return async(() -> expiry(time, condition, method));
    }

    @Override
    public boolean expire(Duration timeToLive) {
        return in(timeToLive, ALWAYS, "expire");
    }

    @Override
    public boolean expire(Instant time) {
        return at(time, ALWAYS, "expire");
    }

    @Override
    public boolean expireIfSet(Duration timeToLive) {
        return in(timeToLive, IF_SET, "expireIfSet");
    }

    @Override
    public boolean expireIfSet(Instant time) {
        return at(time, IF_SET, "expireIfSet");
    }

    @Override
    public boolean expireIfNotSet(Duration timeToLive) {
        return in(timeToLive, IF_NOT_SET, "expireIfNotSet");
    }

    @Override
    public boolean expireIfNotSet(Instant time) {
        return at(time, IF_NOT_SET, "expireIfNotSet");
    }

    @Override
    public boolean expireIfGreater(Duration timeToLive) {
        return in(timeToLive, IF_GREATER, "expireIfGreater");
    }

    @Override
    public boolean expireIfGreater(Instant time) {
        return at(time, IF_GREATER, "expireIfGreater");
    }

    @Override
    public boolean expireIfLess(Duration timeToLive) {
        return in(timeToLive, IF_LESS, "expireIfLess");
    }

    @Override
    public boolean expireIfLess(Instant time) {
        return at(time, IF_LESS, "expireIfLess");
    }

    @Override
    public boolean clearExpire() {
        return expirySync.run(expiryCalls.clearExpire(leasesToo));
    }

    @Override
    public long remainTimeToLive() {
        return expirySync.run(expiryCalls.ttl());
    }

    @Override
    public boolean isExists() {
        return remainTimeToLive() != -2;
    }

    @Override
    public CompletableFuture<Boolean> expireAsync(Duration timeToLive) {
        return inAsync(timeToLive, ALWAYS, "expireAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireAsync(Instant time) {
        return atAsync(time, ALWAYS, "expireAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireIfSetAsync(Duration timeToLive) {
        return inAsync(timeToLive, IF_SET, "expireIfSetAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireIfSetAsync(Instant time) {
        return atAsync(time, IF_SET, "expireIfSetAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireIfNotSetAsync(Duration timeToLive) {
        return inAsync(timeToLive, IF_NOT_SET, "expireIfNotSetAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireIfNotSetAsync(Instant time) {
        return atAsync(time, IF_NOT_SET, "expireIfNotSetAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireIfGreaterAsync(Duration timeToLive) {
        return inAsync(timeToLive, IF_GREATER, "expireIfGreaterAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireIfGreaterAsync(Instant time) {
        return atAsync(time, IF_GREATER, "expireIfGreaterAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireIfLessAsync(Duration timeToLive) {
        return inAsync(timeToLive, IF_LESS, "expireIfLessAsync");
    }

    @Override
    public CompletableFuture<Boolean> expireIfLessAsync(Instant time) {
        return atAsync(time, IF_LESS, "expireIfLessAsync");
    }

    @Override
    public CompletableFuture<Boolean> clearExpireAsync() {
        return expirySync.runAsync(expiryCalls.clearExpire(leasesToo));
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return expirySync.runAsync(expiryCalls.ttl());
    }

    @Override
    public CompletableFuture<Boolean> isExistsAsync() {
        return remainTimeToLiveAsync().thenApply(ttl -> ttl != -2);
    }
}
