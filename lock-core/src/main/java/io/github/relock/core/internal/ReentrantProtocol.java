package io.github.relock.core.internal;

import io.github.relock.spi.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The reentrant lock's protocol (spec 2.1, 5.1-5.3): hash {@code N}, owner field
 * {@code <clientId>:<threadId>}, every waiter on channel {@code redisson_lock__channel:{N}}.
 * Waiting leaves nothing on the server, so giving up undoes nothing. The non-reentrant lock
 * (spec 2.7) is this protocol with re-entry refused by the acquire script; the spin and fenced
 * locks ({@link SpinProtocol}, {@link FencedProtocol}) change only their acquire or their waking.
 *
 * <p>Thread-safety: immutable.
 */
class ReentrantProtocol implements LockProtocol {
    final DefaultLockClient client;
    final String name;
    private final String channel;
    private final List<String> keys;
    private final List<String> releaseKeys;
    private final boolean reentrant;

    /** @param reentrant false for the non-reentrant lock: a holder's second attempt is refused */
    ReentrantProtocol(DefaultLockClient client, String name, boolean reentrant) {
        this.client = client;
        this.name = name;
        this.channel = Keys.lockChannel(name);
        this.keys = List.of(name);
        this.releaseKeys = List.of(name, channel);
        this.reentrant = reentrant;
    }

    @Override
    public String kind() {
        return reentrant ? "RedisLock" : "NonReentrantRedisLock";
    }

    /** @return how releases publish: PUBLISH, SPUBLISH, BOTH, or NONE */
    String publishMode() {
        return client.publishMode();
    }

    @Override
    public Script acquireScript() {
        return Scripts.LOCK_ACQUIRE;
    }

    @Override
    public List<String> acquireKeys(String field) {
        return keys;
    }

    @Override
    public List<String> acquireArgs(long ttlMs, String field, boolean queue) {
        return reentrant ? List.of(Long.toString(ttlMs), field) : List.of(Long.toString(ttlMs), field, "nonreentrant");
    }

    @Override
    public Script releaseScript() {
        return Scripts.LOCK_RELEASE;
    }

    @Override
    public List<String> releaseKeys(String field) {
        return releaseKeys;
    }

    @Override
    public List<String> releaseArgs(long ttlMs, String field) {
        return List.of(Long.toString(ttlMs), field, publishMode());
    }

    @Override
    public boolean handsOff() {
        return true;
    }

    /** Asks who heard the release on one server; on a cluster a node counts only its own subscribers, so not there. */
    @Override
    public List<String> endOfRunArgs(long ttlMs, String field) {
        String mode = publishMode();
        return "PUBLISH".equals(mode) ? List.of(Long.toString(ttlMs), field, mode, "") : releaseArgs(ttlMs, field);
    }

    /** One candidate: any waiter may take a reentrant lock. */
    @Override
    public List<String> transferArgs(long ttlMs, String field, List<String> candidates) {
        return List.of(Long.toString(ttlMs), field, publishMode(), candidates.get(0), candidates.get(1));
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
        return List.of(publishMode());
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
