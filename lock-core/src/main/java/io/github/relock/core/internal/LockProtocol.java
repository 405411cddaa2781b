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

    /** @param field the owner field ({@link #ownerField}) */
    List<String> acquireKeys(String field);

    /**
     * @param ttlMs the TTL to set, in ms (never a sentinel)
     * @param field the owner field
     * @param queue whether a failed attempt joins a wait queue (fair lock); false for single attempts
     */
    List<String> acquireArgs(long ttlMs, String field, boolean queue);

    Script releaseScript();

    /** @param field the owner field ({@link #ownerField}) */
    List<String> releaseKeys(String field);

    /** @param ttlMs the TTL the key keeps when holds remain, in ms */
    List<String> releaseArgs(long ttlMs, String field);

    /** @return whether a release may hand this lock type to a waiting owner of this client (see {@link Handoff}) */
    default boolean handsOff() {
        return false;
    }

    /**
     * @return true where the release script hands off only to the head of a wait queue (fair
     *     lock), so runs of hand-offs need no bound; false where any waiter may take it
     */
    default boolean handsOffToQueueHead() {
        return false;
    }

    /**
     * Release arguments that also hand the lock to one of this client's waiting owners when this
     * release empties it: the release script then answers {@link RedisLock#TRANSFERRED} plus the
     * chosen candidate's index instead of 1, and publishes nothing. Asked only if {@link #handsOff()}.
     *
     * @param candidates the waiting owners' fields and the TTLs their holds would get, in ms, in pairs
     * @return the arguments
     */
    default List<String> transferArgs(long ttlMs, String field, List<String> candidates) {
        throw new UnsupportedOperationException(kind() + " does not hand off");
    }

    /**
     * Release arguments for the release that ends a run of hand-offs: an ordinary release whose
     * script answers 3 instead of 1 when more than one subscriber (so another client's waiter) heard
     * its message. By default the ordinary arguments (the answer is then 1).
     */
    default List<String> endOfRunArgs(long ttlMs, String field) {
        return releaseArgs(ttlMs, field);
    }

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

    /** @return the hash field of owner {@code ownerId} of client {@code clientId} */
    default String ownerField(String clientId, long ownerId) {
        return Keys.ownerField(clientId, ownerId);
    }

    /**
     * @return the prefix of a hold's per-acquisition timeout keys, renewed with the hold (read
     *     lock: {@code {N}}), or null when the lock type has none
     */
    default String timeoutKeyPrefix() {
        return null;
    }

    /**
     * @return the script that sets one owner's TTL while it holds the lock (args: TTL in ms, owner
     *     field), answering 1 if set, 0 if the owner does not hold it
     */
    default Script expireScript() {
        return Scripts.LOCK_EXPIRE;
    }

    /** @return the expire script's keys for lock {@code name} and owner {@code field} */
    default List<String> expireKeys(String name, String field) {
        return List.of(name);
    }

    /** @return the script answering {exists/locked 0|1, the field's hold count, PTTL} */
    default Script stateScript() {
        return Scripts.LOCK_STATE;
    }

    /** @return the state script's arguments for owner {@code field} (may be empty: no owner) */
    default List<String> stateArgs(String field) {
        return List.of(field);
    }

    /**
     * @param name the lock's name
     * @param field the owner whose attempt the acquire script refused (answered -3)
     * @return why, for the {@link IllegalMonitorStateException}
     */
    default String refusal(String name, String field) {
        return kind() + " '" + name + "' is already held by this owner (" + field
                + ") and is not reentrant: release it before acquiring it again";
    }

    /** @return the longest pause between attempts while waiting, in ms ({@code Long.MAX_VALUE}: none) */
    long maxPollIntervalMs();
}
