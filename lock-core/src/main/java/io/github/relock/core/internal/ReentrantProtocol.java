package io.github.relock.core.internal;

import io.github.relock.spi.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The reentrant lock's protocol (spec 2.1, 5.1-5.3): hash {@code N}, owner field
 * {@code <clientId>:<threadId>}, every waiter on channel {@code redisson_lock__channel:{N}}.
 * Waiting leaves nothing on the server, so giving up undoes nothing.
 *
 * <p>Thread-safety: immutable.
 */
final class ReentrantProtocol implements LockProtocol {
    private final DefaultLockClient client;
    private final String channel;
    private final List<String> keys;
    private final List<String> releaseKeys;

    ReentrantProtocol(DefaultLockClient client, String name) {
        this.client = client;
        this.channel = Keys.lockChannel(name);
        this.keys = List.of(name);
        this.releaseKeys = List.of(name, channel);
    }

    @Override
    public String kind() {
        return "RedisLock";
    }

    @Override
    public Script acquireScript() {
        return Scripts.LOCK_ACQUIRE;
    }

    @Override
    public List<String> acquireKeys() {
        return keys;
    }

    @Override
    public List<String> acquireArgs(long ttlMs, String field, boolean queue) {
        return List.of(Long.toString(ttlMs), field);
    }

    @Override
    public Script releaseScript() {
        return Scripts.LOCK_RELEASE;
    }

    @Override
    public List<String> releaseKeys() {
        return releaseKeys;
    }

    @Override
    public List<String> releaseArgs(long ttlMs, String field) {
        return List.of(Long.toString(ttlMs), field, client.publishMode());
    }

    @Override
    public Script forceReleaseScript() {
        return Scripts.LOCK_FORCE_RELEASE;
    }

    @Override
    public List<String> forceReleaseKeys() {
        return releaseKeys;
    }

    @Override
    public List<String> forceReleaseArgs() {
        return List.of(client.publishMode());
    }

    @Override
    public String waitChannel(String field) {
        return channel;
    }

    @Override
    public CompletableFuture<Void> giveUp(String field) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public long maxPollIntervalMs() {
        return Long.MAX_VALUE;
    }
}
