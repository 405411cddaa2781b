package io.github.relock.core.internal;

import io.github.relock.spi.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One lock type's protocol on the wire: its scripts, keys and arguments, the channel a waiter
 * listens on, and what a waiter that gives up must undo. {@link RedisLock} runs the engine (holds,
 * waiting, renewal) the same way for every protocol. One instance per lock name; immutable.
 *
 * <p>Thread-safety: implementations are immutable and safe for use by several threads.
 */
interface LockProtocol {

    /** @return the lock type's name for messages, e.g. {@code "RedisLock"} */
    String kind();

    Script acquireScript();

    List<String> acquireKeys();

    /**
     * @param ttlMs the TTL to set, in ms (never a sentinel)
     * @param field the owner field
     * @param queue whether a failed attempt joins a wait queue (fair lock); false for single attempts
     */
    List<String> acquireArgs(long ttlMs, String field, boolean queue);

    Script releaseScript();

    List<String> releaseKeys();

    /** @param ttlMs the TTL the key keeps when holds remain, in ms */
    List<String> releaseArgs(long ttlMs, String field);

    Script forceReleaseScript();

    List<String> forceReleaseKeys();

    List<String> forceReleaseArgs();

    /**
     * @return the channel the owner {@code field} waits on, or null if waiters of this lock type
     *     poll without pub/sub (spin lock): they then pause {@link #backOffMs(int)} between attempts
     */
    String waitChannel(String field);

    /**
     * Asked only when {@link #waitChannel} is null.
     *
     * @param polls how many attempts of this wait have failed so far (1 after the first)
     * @return the pause before the next attempt, in ms
     */
    default long backOffMs(int polls) {
        throw new UnsupportedOperationException(kind() + " waits through pub/sub");
    }

    /** A waiter gave up (timed out, cancelled, failed): undo what waiting left on the server. */
    CompletableFuture<Void> giveUp(String field);

    /** @return the longest pause between attempts while waiting, in ms ({@code Long.MAX_VALUE}: none) */
    long maxPollIntervalMs();
}
