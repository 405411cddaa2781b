package io.github.relock.api;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * The time to live and existence of a synchronizer's keys, Redisson's {@code RExpirable} (with
 * {@code isExists} from its {@code RObject}) as the two semaphores have it: the rate-limit pattern
 * {@code trySetPermits(n)} then {@code expire(window)} works as with Redisson, and a Redisson client
 * on the same name reads and changes the same TTL.
 *
 * <p>Which keys: a {@link DistributedSemaphore}'s one key; a {@link PermitExpirableSemaphore}'s
 * permits key and its leases zset together (as Redisson's expire does). {@link #remainTimeToLive()}
 * and {@link #isExists()} read the permits key only. A setter returns true when it changed the TTL
 * of at least one of the keys.
 *
 * <p>Arguments: a duration from 1 ms to 2^53 - 1 ms; an instant from the epoch to 2^53 - 1 ms after
 * it (an instant already past deletes the keys, as Redis and Redisson do). Anything else, and null,
 * throws {@link IllegalArgumentException} or {@link NullPointerException} naming the value. The
 * conditional forms ({@code expireIfSet} and the others) use the options of {@code PEXPIRE} that
 * Redis 7.0 added: an older server refuses them with {@link RedisErrorException}.
 *
 * <p>Thread-safety: safe for use by several threads; the state is in Redis only.
 *
 * @since 0.1.0
 */
public interface Expirable {

    /**
     * Sets the keys' time to live.
     *
     * @param timeToLive from now, 1 ms to 2^53 - 1 ms
     * @return whether a key existed and got it
     */
    boolean expire(Duration timeToLive);

    /**
     * Sets the keys' expiry to an instant.
     *
     * @param time the epoch instant (a past one deletes the keys)
     * @return whether a key existed and got it
     */
    boolean expire(Instant time);

    /**
     * @param timeToLive from now
     * @return whether a key that already had a time to live got this one (Redis {@code XX})
     */
    boolean expireIfSet(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return whether a key that already had a time to live got this one (Redis {@code XX})
     */
    boolean expireIfSet(Instant time);

    /**
     * @param timeToLive from now
     * @return whether a key without a time to live got this one (Redis {@code NX})
     */
    boolean expireIfNotSet(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return whether a key without a time to live got this one (Redis {@code NX})
     */
    boolean expireIfNotSet(Instant time);

    /**
     * @param timeToLive from now
     * @return whether a key got it because it ends later than the key's current one (Redis
     *     {@code GT}: a key without a time to live counts as never ending, so it is left alone)
     */
    boolean expireIfGreater(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return as {@link #expireIfGreater(Duration)}
     */
    boolean expireIfGreater(Instant time);

    /**
     * @param timeToLive from now
     * @return whether a key got it because it ends sooner than the key's current one (Redis
     *     {@code LT}: a key without a time to live gets it)
     */
    boolean expireIfLess(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return as {@link #expireIfLess(Duration)}
     */
    boolean expireIfLess(Instant time);

    /** @return whether a key had a time to live; none has one now */
    boolean clearExpire();

    /** @return the permits key's time to live in ms; {@code -1} if it has none, {@code -2} if it does not exist */
    long remainTimeToLive();

    /** @return whether the permits key exists (a semaphore nobody set, or one deleted or expired, does not) */
    boolean isExists();

    // ---- async, Redisson RExpirableAsync shape

    /**
     * @param timeToLive from now
     * @return as {@link #expire(Duration)}
     */
    CompletableFuture<Boolean> expireAsync(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return as {@link #expire(Instant)}
     */
    CompletableFuture<Boolean> expireAsync(Instant time);

    /**
     * @param timeToLive from now
     * @return as {@link #expireIfSet(Duration)}
     */
    CompletableFuture<Boolean> expireIfSetAsync(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return as {@link #expireIfSet(Instant)}
     */
    CompletableFuture<Boolean> expireIfSetAsync(Instant time);

    /**
     * @param timeToLive from now
     * @return as {@link #expireIfNotSet(Duration)}
     */
    CompletableFuture<Boolean> expireIfNotSetAsync(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return as {@link #expireIfNotSet(Instant)}
     */
    CompletableFuture<Boolean> expireIfNotSetAsync(Instant time);

    /**
     * @param timeToLive from now
     * @return as {@link #expireIfGreater(Duration)}
     */
    CompletableFuture<Boolean> expireIfGreaterAsync(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return as {@link #expireIfGreater(Instant)}
     */
    CompletableFuture<Boolean> expireIfGreaterAsync(Instant time);

    /**
     * @param timeToLive from now
     * @return as {@link #expireIfLess(Duration)}
     */
    CompletableFuture<Boolean> expireIfLessAsync(Duration timeToLive);

    /**
     * @param time the epoch instant
     * @return as {@link #expireIfLess(Instant)}
     */
    CompletableFuture<Boolean> expireIfLessAsync(Instant time);

    /** @return as {@link #clearExpire()} */
    CompletableFuture<Boolean> clearExpireAsync();

    /** @return as {@link #remainTimeToLive()} */
    CompletableFuture<Long> remainTimeToLiveAsync();

    /** @return as {@link #isExists()} */
    CompletableFuture<Boolean> isExistsAsync();
}
