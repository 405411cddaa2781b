package io.github.relock.api;

import java.util.function.Consumer;

/**
 * Hands out distributed locks over one Redis deployment. Created by
 * {@code io.github.relock.core.RedisLocks}; one per application (or per Redis deployment) is
 * enough. Closing it stops renewal, drops its pub/sub subscriptions and closes whatever the
 * driver opened itself (never a Redis client the application passed in).
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public interface LockClient extends AutoCloseable {

    /**
     * Returns the reentrant lock with this name (Redisson {@code getLock}). Cheap: the object
     * holds no Redis resource, and all objects for one name in one client share their state.
     *
     * @param name the Redis key of the lock hash; not blank
     * @throws IllegalArgumentException if {@code name} is blank
     * @throws NullPointerException if {@code name} is null
     */
    DistributedLock getLock(String name);

    /** @return this client's id: the {@code <clientId>} part of every owner field it writes */
    String clientId();

    /** @return the options this client was created with */
    LockOptions options();

    /**
     * Registers a listener told whenever a hold of this client is lost (renewal found the key
     * gone or could not renew it for a whole lease), whether it was taken by a thread, an async
     * call or a lease. Runs on the client's timer thread; keep it short.
     *
     * @param listener receives each event; exceptions it throws are logged and ignored
     */
    void addLockLostListener(Consumer<LockLostEvent> listener);

    /** @param listener a listener added before; nothing happens if it is unknown */
    void removeLockLostListener(Consumer<LockLostEvent> listener);

    /** Stops renewal (reporting each still-held lock lost with {@code CLIENT_CLOSED}) and releases resources. Idempotent. */
    @Override
    void close();
}
