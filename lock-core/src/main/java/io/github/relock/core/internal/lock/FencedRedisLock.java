package io.github.relock.core.internal.lock;

import io.github.relock.api.FencedLock;
import io.github.relock.api.LockLostEvent;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.ReentrantProtocol;
import io.github.relock.core.internal.util.Args;
import io.github.relock.core.internal.util.Replies;
import io.github.relock.core.internal.util.Scripts;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The fenced lock: a {@link RedisLock} run through a {@link FencedProtocol}, plus the methods that
 * hand out the token. The acquire script returns the token with the grant and {@link RedisLock}
 * keeps it in the owner's hold, so reading it back makes no further Redis call.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class FencedRedisLock extends RedisLock implements FencedLock {
    private final List<String> tokenKeys;

    /**
     * @param services the client's services
     * @param name the lock's name
     */
    public FencedRedisLock(ClientServices services, String name) {
        super(services, new ReentrantProtocol(services.protocols(), name, ReentrantProtocol.Variant.FENCED));
        this.tokenKeys = List.of(ReentrantProtocol.tokenKey(name));
    }

    @Override
    public long lockAndGetToken() {
        lock();
        return tokenOf(currentThreadId());
    }

    @Override
    public long lockAndGetToken(long leaseTime, TimeUnit unit) {
        lock(leaseTime, unit);
        return tokenOf(currentThreadId());
    }

    @Override
    public Long tryLockAndGetToken() {
        return tryLock() ? tokenOf(currentThreadId()) : null;
    }

    @Override
    public Long tryLockAndGetToken(long waitTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, unit) ? tokenOf(currentThreadId()) : null;
    }

    @Override
    public Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, leaseTime, unit) ? tokenOf(currentThreadId()) : null;
    }

    @Override
    public Long getToken() {
        services.ensureOpen();
        return token(services.runner().eval(Scripts.FENCED_TOKEN, tokenKeys, List.of()));
    }

    /** @return the token counter's value, or null if none was ever granted */
    private Long token(Object reply) {
        if (reply == null || reply instanceof Long) {
            return (Long) reply;
        }
        try {
            return Long.valueOf(reply.toString());
        } catch (NumberFormatException e) {
            throw Replies.malformed(reply, Scripts.FENCED_TOKEN, name,
                    "nil or the token counter's integer value");
        }
    }

    @Override
    public CompletableFuture<Long> lockAndGetTokenAsync() {
        return lockAndGetTokenAsync(currentThreadId());
    }

    @Override
    public CompletableFuture<Long> lockAndGetTokenAsync(long threadId) {
        return acquireAsync(Args.WAIT_FOREVER, Args.TTL_WATCHDOG, threadId, acquired -> tokenOf(threadId));
    }

    @Override
    public CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        long ttl = Args.leaseMs(leaseTime, unit);
        return acquireAsync(Args.waitMs(waitTime, unit), ttl, threadId, acquired -> acquired ? tokenOf(threadId) : null);
    }

    @Override
    public CompletableFuture<Long> lockAndGetTokenAsync(long leaseTime, TimeUnit unit) {
        long owner = currentThreadId();
        long ttl = Args.leaseMs(leaseTime, unit);
        return acquireAsync(Args.WAIT_FOREVER, ttl, owner, acquired -> tokenOf(owner));
    }

    @Override
    public CompletableFuture<Long> tryLockAndGetTokenAsync() {
        long owner = currentThreadId();
        return acquireAsync(Args.TRY_ONCE, Args.TTL_WATCHDOG, owner, acquired -> acquired ? tokenOf(owner) : null);
    }

    @Override
    public CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, TimeUnit unit) {
        return tryLockAndGetTokenAsync(waitTime, -1, unit);
    }

    @Override
    public CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return tryLockAndGetTokenAsync(waitTime, leaseTime, unit, currentThreadId());
    }

    @Override
    public CompletableFuture<Long> getTokenAsync() {
        try {
            services.ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        return services.runner().evalAsync(Scripts.FENCED_TOKEN, tokenKeys, List.of())
                .thenApply(this::token);
    }

    /** The token of the acquisition {@code ownerId} just made (its hold keeps the last one granted). */
    private long tokenOf(long ownerId) {
        Hold h = holdOf(ownerId);
        if (h == null || h.token() == Acquire.NO_TOKEN) {
            throw new IllegalMonitorStateException("fenced lock '" + name + "' was lost right after it was acquired ("
                    + (services.isClosed() ? LockLostEvent.Reason.CLIENT_CLOSED : LockLostEvent.Reason.NOT_HELD)
                    + "); its token must not be used");
        }
        return h.token();
    }
}
