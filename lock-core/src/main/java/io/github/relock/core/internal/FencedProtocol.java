package io.github.relock.core.internal;

import io.github.relock.spi.Script;
import java.util.List;

/**
 * The fenced lock's protocol (spec 2.5): the reentrant lock's hash, fields, channel, release and
 * renewal, plus the token counter {@code redisson_lock_token:{N}} that every grant increments,
 * re-entries included. Its acquire answers {@code {1, token}} or {@code {0, pttl}}; {@link RedisLock}
 * reads the token into the hold.
 *
 * <p>Thread-safety: immutable.
 */
final class FencedProtocol extends ReentrantProtocol {
    private final String tokenKey;
    private final List<String> acquireKeys;

    FencedProtocol(DefaultLockClient client, String name) {
        super(client, name, true);
        this.tokenKey = Keys.prefixName("redisson_lock_token", name);
        this.acquireKeys = List.of(name, tokenKey);
    }

    @Override
    public String kind() {
        return "FencedRedisLock";
    }

    @Override
    public Script acquireScript() {
        return Scripts.FENCED_ACQUIRE;
    }

    @Override
    public List<String> acquireKeys(String field) {
        return acquireKeys;
    }

    /** Never: every grant of a fenced lock must take a new token, which only its acquire script does. */
    @Override
    public boolean handsOff() {
        return false;
    }

    /** @return the token counter's key */
    String tokenKey() {
        return tokenKey;
    }
}
