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
     * @param name the Redis key of the lock hash; not blank; any length; one containing <code>&#123;</code> sets
     *     its own hash tag, as in Redisson
     * @throws IllegalArgumentException if {@code name} is blank, or holds an unpaired surrogate (which
     *     UTF-8 cannot encode: drivers would send it as {@code '?'}, merging distinct names),
     *     or, on a Redis Cluster, has a brace but no complete hash tag (its hash and channel would
     *     fall in different slots)
     * @throws NullPointerException if {@code name} is null
     */
    DistributedLock getLock(String name);

    /**
     * Returns the fair lock with this name (Redisson {@code getFairLock}): waiters acquire in the
     * order they first asked, through Redisson's queue {@code redisson_lock_queue:{name}} and
     * deadlines {@code redisson_lock_timeout:{name}}, shared with Redisson waiters. A waiter that
     * stops polling (its process died) keeps its place for at most
     * {@link LockOptions#fairLockWaitTimeout()}; a live relock waiter keeps it however long the
     * lock is held.
     *
     * @param name the Redis key of the lock hash; not blank; any length; one containing <code>&#123;</code> sets
     *     its own hash tag, as in Redisson
     * @throws IllegalArgumentException if {@code name} is blank, or holds an unpaired surrogate (which
     *     UTF-8 cannot encode: drivers would send it as {@code '?'}, merging distinct names),
     *     or, on a Redis Cluster, has a brace but no complete hash tag (its hash and channel would
     *     fall in different slots)
     * @throws NullPointerException if {@code name} is null
     */
    DistributedLock getFairLock(String name);

    /**
     * Returns the read-write lock with this name (Redisson {@code getReadWriteLock}): readers share
     * it, a writer excludes everyone, on Redisson's hash ({@code mode}, reader and writer fields,
     * readers' timeout keys) and channel {@code redisson_rwlock:{name}}.
     *
     * @param name the Redis key of the lock hash; not blank; any length; one containing <code>&#123;</code> sets
     *     its own hash tag, as in Redisson
     * @throws IllegalArgumentException if {@code name} is blank, or holds an unpaired surrogate (which
     *     UTF-8 cannot encode: drivers would send it as {@code '?'}, merging distinct names),
     *     or, on a Redis Cluster, has a brace but no complete hash tag (its hash and channel would
     *     fall in different slots)
     * @throws NullPointerException if {@code name} is null
     */
    ReadWriteDistributedLock getReadWriteLock(String name);

    /**
     * Returns the fenced lock with this name (Redisson {@code getFencedLock}): a reentrant lock
     * whose every grant, re-entries included, also returns a strictly increasing fencing token.
     *
     * @param name the Redis key of the lock hash; not blank; any length; one containing <code>&#123;</code> sets
     *     its own hash tag, as in Redisson
     * @throws IllegalArgumentException if {@code name} is blank, or holds an unpaired surrogate (which
     *     UTF-8 cannot encode: drivers would send it as {@code '?'}, merging distinct names),
     *     or, on a Redis Cluster, has a brace but no complete hash tag (its hash and channel would
     *     fall in different slots)
     * @throws NullPointerException if {@code name} is null
     */
    FencedLock getFencedLock(String name);

    /**
     * Returns a candidate in the leader election with this name: campaigning on the
     * {@linkplain #getFencedLock(String) fenced lock} of the name once {@linkplain LeaderElection#join() joined},
     * with the fencing token as the epoch. Each call returns a new candidate; a client may hold several.
     * Closing the client makes its candidates leave.
     *
     * @param name the lock name; the rules of {@link #getLock(String)}
     * @return a candidate that has not joined yet
     * @throws IllegalArgumentException as {@link #getLock(String)}
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalStateException if this client is closed
     * @since 0.1.0
     */
    LeaderElection getLeaderElection(String name);

    /**
     * Returns the spin lock with this name (Redisson {@code getSpinLock}): Redisson's reentrant
     * hash and fields, so it excludes and is excluded by {@link #getLock(String)}'s lock of the same
     * name, but it uses no pub/sub at all: waiters poll with exponential back-off
     * ({@link LockOptions#spinBackOffInitial()} doubling up to {@link LockOptions#spinBackOffMax()})
     * and releases publish nothing. For many short-lived waiters on a Redis whose pub/sub is
     * unavailable or overloaded; pub/sub waiters of the same name are then woken only by their
     * TTL-bounded poll.
     *
     * @param name the Redis key of the lock hash; not blank; any length; one containing <code>&#123;</code> sets
     *     its own hash tag, as in Redisson
     * @throws IllegalArgumentException if {@code name} is blank, or holds an unpaired surrogate (which
     *     UTF-8 cannot encode: drivers would send it as {@code '?'}, merging distinct names),
     *     or, on a Redis Cluster, has a brace but no complete hash tag (its hash and channel would
     *     fall in different slots)
     * @throws NullPointerException if {@code name} is null
     */
    DistributedLock getSpinLock(String name);

    /**
     * Returns the spin lock with this name, pausing between attempts as {@code backOff} says
     * (Redisson {@code getSpinLock(name, backOff)}); {@link #getSpinLock(String)} uses
     * {@link LockOptions#spinBackOffInitial()} and {@link LockOptions#spinBackOffMax()}, doubling.
     *
     * @param name the Redis key of the lock hash, as for {@link #getSpinLock(String)}
     * @param backOff the pauses between attempts
     * @return the lock
     * @throws NullPointerException if {@code name} or {@code backOff} is null
     * @since 0.1.0
     */
    DistributedLock getSpinLock(String name, SpinBackOff backOff);

    /**
     * Returns the non-reentrant lock with this name (Redisson 4.4+ {@code getNonReentrantLock}):
     * the reentrant lock's keys, channel and release, but an owner that already holds it cannot
     * take it again: that attempt throws {@link IllegalMonitorStateException} at once instead of
     * blocking forever on itself. {@code getHoldCount()} is therefore 0 or 1.
     *
     * @param name the Redis key of the lock hash; not blank; any length; one containing <code>&#123;</code> sets
     *     its own hash tag, as in Redisson
     * @throws IllegalArgumentException if {@code name} is blank, or holds an unpaired surrogate (which
     *     UTF-8 cannot encode: drivers would send it as {@code '?'}, merging distinct names),
     *     or, on a Redis Cluster, has a brace but no complete hash tag (its hash and channel would
     *     fall in different slots)
     * @throws NullPointerException if {@code name} is null
     */
    DistributedLock getNonReentrantLock(String name);

    /**
     * Returns the non-reentrant fair lock with this name (Redisson 4.4+
     * {@code getNonReentrantFairLock}): {@link #getFairLock(String)}'s queue and wake-ups, and the
     * re-acquire rule of {@link #getNonReentrantLock(String)}.
     *
     * @param name the Redis key of the lock hash; not blank; any length; one containing <code>&#123;</code> sets
     *     its own hash tag, as in Redisson
     * @throws IllegalArgumentException if {@code name} is blank, or holds an unpaired surrogate (which
     *     UTF-8 cannot encode: drivers would send it as {@code '?'}, merging distinct names),
     *     or, on a Redis Cluster, has a brace but no complete hash tag (its hash and channel would
     *     fall in different slots)
     * @throws NullPointerException if {@code name} is null
     */
    DistributedLock getNonReentrantFairLock(String name);

    /**
     * Groups locks, possibly from several clients (several Redis servers), into one lock that is
     * held only when all of them are (Redisson {@code RedissonMultiLock}): each is waited for in
     * turn, a failure releases what was taken, the lease is applied to every lock at the end.
     * {@code forceUnlock}, {@code isLocked}, {@code getHoldCount} and {@code remainTimeToLive} are
     * not supported. Redisson's multi-lock over the same names excludes it.
     *
     * @param locks locks from relock clients, in acquisition order; at least one
     * @throws IllegalArgumentException if empty, if a lock is not a relock lock (another library's,
     *     or a multi-lock), or if two locks share one client and name (one Redis key counted twice)
     * @throws NullPointerException if {@code locks} or one of them is null
     * @throws IllegalStateException if this client, or the client of one of the locks, is closed
     */
    DistributedLock getMultiLock(DistributedLock... locks);

    /**
     * Like {@link #getMultiLock} but held once a majority ({@code n/2 + 1}) is held, ignoring the
     * failures of a minority (Redisson {@code RedissonRedLock}, deprecated there). See the README
     * for what RedLock does and does not guarantee: without fencing tokens, a paused holder can
     * still overlap the next one.
     *
     * @param locks locks from relock clients, typically one per independent Redis server
     * @throws IllegalArgumentException if empty, if a lock is not a relock lock (another library's,
     *     or a multi-lock), or if two locks share one client and name (one Redis key counted twice)
     * @throws NullPointerException if {@code locks} or one of them is null
     * @throws IllegalStateException if this client, or the client of one of the locks, is closed
     */
    DistributedLock getRedLock(DistributedLock... locks);

    /**
     * Returns the semaphore with this name (Redisson {@code getSemaphore}): the permit count in the
     * string key {@code name}, shared with Redisson's {@code RSemaphore} and with
     * {@link #getPermitExpirableSemaphore(String)} of the same name.
     *
     * @param name the Redis key of the permit count; the rules of {@link #getLock(String)}
     * @return the semaphore (cheap: it holds no Redis resource)
     * @throws IllegalArgumentException as {@link #getLock(String)}
     * @throws NullPointerException if {@code name} is null
     * @since 0.1.0
     */
    DistributedSemaphore getSemaphore(String name);

    /**
     * Returns the permit-expirable semaphore with this name (Redisson
     * {@code getPermitExpirableSemaphore}): available permits in {@code name}, leases in
     * <code>&#123;name&#125;:timeout</code>.
     *
     * @param name the Redis key of the available permits; the rules of {@link #getLock(String)}
     * @return the semaphore
     * @throws IllegalArgumentException as {@link #getLock(String)}
     * @throws NullPointerException if {@code name} is null
     * @since 0.1.0
     */
    PermitExpirableSemaphore getPermitExpirableSemaphore(String name);

    /**
     * Returns the count-down latch with this name (Redisson {@code getCountDownLatch}).
     *
     * @param name the Redis key of the count; the rules of {@link #getLock(String)}, and on a Redis
     *     Cluster no <code>&#123;</code> at all (Redisson's latch channel would fall in another slot)
     * @return the latch
     * @throws IllegalArgumentException as {@link #getLock(String)}, or a name with a brace on a cluster
     * @throws NullPointerException if {@code name} is null
     * @since 0.1.0
     */
    DistributedCountDownLatch getCountDownLatch(String name);

    /**
     * Reads what Redis holds under this name, whichever library wrote it: a lock of any kind, a
     * semaphore, a permit-expirable semaphore or a count-down latch. One read-only script reads every
     * key of the name at once (they share one hash slot), so the answer is consistent even while the
     * lock changes hands; when a holder or waiter belongs to a relock client that registered
     * {@link LockOptions.Builder#ownerInfo owner info}, one more read fetches it. Changes nothing.
     *
     * <p>Redis cannot tell some kinds apart (see {@link LockInspection.Kind}): the answer says what
     * the keys show, not which {@code get...} method made them.
     *
     * @param name the name given to {@code getLock}, {@code getSemaphore}, etc.; the rules of
     *     {@link #getLock(String)}
     * @return the inspection; {@link LockInspection#found()} is false when nothing is stored
     * @throws IllegalArgumentException if {@code name} is blank, holds an unpaired surrogate, or, on a
     *     Redis Cluster, has a brace but no complete hash tag (its keys would span hash slots); the
     *     message names the name and what is allowed
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalStateException if this client is closed
     * @throws RedisUnavailableException if Redis cannot be reached within the command timeout
     * @since 0.1.0
     */
    LockInspection inspect(String name);

    /**
     * {@link #inspect(String)} without blocking the caller: the same reads, the same answer.
     *
     * @param name as for {@link #inspect(String)}
     * @return the inspection; fails with {@link RedisUnavailableException} if Redis cannot be reached
     * @throws IllegalArgumentException as {@link #inspect(String)}, at once
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalStateException if this client is closed
     * @since 0.1.0
     */
    java.util.concurrent.CompletableFuture<LockInspection> inspectAsync(String name);

    /**
     * Returns a view of this client whose objects bound each of their Redis calls by
     * {@code commandTimeout} instead of the client's {@link LockOptions#commandTimeout()} (Redisson's
     * per-object {@code CommonOptions.name(...).timeout(...)}, as in
     * {@code getLock(LockOptions.name("x").timeout(d))}): {@code withCommandTimeout(d).getLock("x")}.
     * Every getter of the view ({@code getLock}, the synchronizers, {@code getMultiLock} of its locks,
     * {@code inspect}) returns objects whose calls, blocking and async, fail with
     * {@link RedisUnavailableException} when no reply came within that timeout; as for the client's
     * own timeout, the call may still have run (a reply lost), and an acquisition that ran then
     * expires with its lease or the watchdog timeout. Everything else is this client's: the objects
     * share its holds, renewal (which keeps the client's timeout), waits, listeners and lifetime;
     * {@link #options()} of the view reports the timeout, {@code close()} of the view closes this
     * client, and {@code withCommandTimeout} of the view starts from this client again. Cheap: the
     * view holds no Redis resource.
     *
     * <p>Redisson's other per-object options have no counterpart: {@code retryAttempts},
     * {@code retryInterval} and {@code retryDelay} resend a command, and relock never resends a lock
     * script (one that ran twice changes a hold count).
     *
     * @param commandTimeout how long each call of the view's objects may wait for its reply; at least
     *     1 ms and at most this client's {@link LockOptions#commandTimeout()}, which its driver
     *     enforces underneath
     * @return the view; this client itself when {@code commandTimeout} equals its own
     * @throws NullPointerException if {@code commandTimeout} is null
     * @throws IllegalArgumentException if {@code commandTimeout} is under 1 ms, or longer than this
     *     client's command timeout (the message names both)
     * @throws IllegalStateException if this client is closed
     * @since 0.1.0
     */
    LockClient withCommandTimeout(java.time.Duration commandTimeout);

    /**
     * @return this client's id: the {@code <clientId>} part of every owner field it writes; the
     *     options' explicit id, or a random UUID of this client's own
     */
    String clientId();

    /** @return the options this client was created with */
    LockOptions options();

    /**
     * Registers a listener told whenever a hold of this client is lost (renewal found the key
     * gone, or confirmed no renewal for nine tenths of a lease: before the key can expire), whether it was taken by a thread, an async
     * call or a lease. Runs on the client's timer thread, or on
     * {@link LockOptions#lockLostExecutor()} if set; never on a driver I/O thread. Keep it short.
     *
     * @param listener receives each event; exceptions it throws are logged and ignored
     */
    void addLockLostListener(Consumer<LockLostEvent> listener);

    /** @param listener a listener added before; nothing happens if it is unknown */
    void removeLockLostListener(Consumer<LockLostEvent> listener);

    /**
     * Reads this client's live state: the locks it holds, the calls waiting for a lock, and the
     * pub/sub channels it listens on (see {@link LockClientStats} for what each counts). Cheap: it
     * reads counters the client keeps anyway and sends nothing to Redis, so a metrics gauge may call
     * it on every scrape. Each count is exact when read, but the three are not one atomic snapshot.
     * After {@link #close()} the held locks are 0 at once; waiters and subscriptions reach 0 as the
     * failed waiters leave, promptly.
     *
     * @return the counts now
     */
    LockClientStats stats();

    /**
     * Lists the holds this client keeps now: each lock and owner (a thread, an async call or a
     * lease) with its hold count and how its renewal stands (see {@link HeldLock}). Like
     * {@link #stats()} it reads the client's own bookkeeping and sends nothing to Redis; it lists
     * the holds {@link LockClientStats#heldLocks()} counts, in no particular order, each as of the
     * moment it was read. Empty after {@link #close()}. For a view of what Redis holds under one
     * name, whoever holds it, use {@link #inspect(String)}.
     *
     * @return a snapshot of the holds, a new unmodifiable list
     * @since 0.1.0
     */
    java.util.List<HeldLock> heldLocks();

    /**
     * Stops renewal (reporting each still-held lock lost with {@code CLIENT_CLOSED}, on the calling
     * thread), fails every call still waiting for a lock with {@link IllegalStateException}, and
     * releases resources. Idempotent.
     */
    @Override
    void close();
}
