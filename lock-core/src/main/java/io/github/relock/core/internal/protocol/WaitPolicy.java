package io.github.relock.core.internal.protocol;

import io.github.relock.core.internal.util.Keys;

/**
 * What the wait machine needs to know of how a waiter of one lock type (or synchronizer) waits:
 * the channel it listens on and what a message there means, how it polls without one, its
 * hand-off line, and why its attempt may be refused. {@link LockProtocol} adds the calls.
 *
 * <p>Thread-safety: implementations are immutable and safe for use by several threads.
 */
public interface WaitPolicy {

    /** @return the lock type's name for messages, e.g. {@code "RedisLock"} */
    String kind();

    /** @return the lock's name (its hash key) */
    String name();
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

    /**
     * @return the longest pause between attempts while waiting, in ms ({@code Long.MAX_VALUE}, the
     *     default: none; a waiter waits for a message or the holder's TTL)
     */
    default long maxPollIntervalMs() {
        return Long.MAX_VALUE;
    }

    /**
     * @return the hand-off line this lock type's waiters and releasers meet on, with the lock's
     *     name: a release hands only to a waiter of the same family on the same name (a reentrant
     *     release never hands a fair lock to its waiter behind the fair queue's back); null if this
     *     lock type never hands off
     */
    default String handoffFamily() {
        return null;
    }

    /**
     * @return true where the release script hands off only to the head of a wait queue (fair
     *     lock), so runs of hand-offs need no bound; false where any waiter may take it
     */
    default boolean handsOffToQueueHead() {
        return false;
    }
    /** @return the hash field of owner {@code ownerId} of client {@code clientId} */
    default String ownerField(String clientId, long ownerId) {
        return Keys.ownerField(clientId, ownerId);
    }

    /**
     * @param field the owner whose attempt the acquire script refused
     * @return why, for the {@link IllegalMonitorStateException}
     */
    default String refusal(String field) {
        return kind() + " '" + name() + "' is already held by this owner (" + field
                + ") and is not reentrant: release it before acquiring it again";
    }

    /**
     * @return how a message on the wait channel wakes this client's waiters: locks publish "0"
     *     (one) and "1" (all); other synchronizers publish counts
     */
    default MessageWakes wakes() {
        return MessageWakes.LOCK;
    }

    /**
     * @return a second channel this client's waiters listen on, where a release wakes one waiting
     *     client by naming it ({@link #wakeId()}): directed wake-ups; null (the default) for none
     */
    default String wakeChannel() {
        return null;
    }

    /** @return the payload on {@link #wakeChannel()} that wakes one of this client's waiters; null without one */
    default String wakeId() {
        return null;
    }

    /**
     * @return with a {@link #wakeChannel()}: the call the client sends when its last waiter leaves
     *     without the lock (it stops being a waiting client; a wake-up it may have taken is passed
     *     on if the lock is free); else null
     */
    default Call<?> leaveWaiting() {
        return null;
    }

    /**
     * @return true (locks) where an attempt whose reply was lost may be sent again in
     *     {@link AttemptMode#RESOLVE}, which finds a grant that landed instead of counting it twice;
     *     false where an attempt cannot be resolved (a semaphore's permits carry no owner): the
     *     wait then fails with the {@code RedisUnavailableException} instead of retrying blind
     */
    default boolean resolvesLostReplies() {
        return true;
    }
}
