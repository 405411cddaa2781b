package io.github.relock.spring.integration;

import io.github.relock.api.LockClient;
import java.time.Duration;
import java.util.Objects;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/*
 * Design: the registry keeps no per-key state. relock's LockClient.getLock is cheap and every lock
 * object of one name in one client shares its state, so obtain() wraps a fresh relock lock, and
 * renewLock() finds the held lock again by name and asks Redis (through relock) whether the
 * calling thread holds it. There is therefore nothing for an ExpirableLockRegistry to expire, and
 * this registry does not implement that interface.
 *
 * Renewal goes through the public API only: the owner re-enters the lock with the new lease (the
 * acquire script sets the key's TTL to it) and releases that extra hold (the release script keeps
 * the key with the TTL of the owner's last acquisition). The hold count is unchanged afterwards.
 */
/**
 * A Spring Integration {@link RenewableLockRegistry} whose locks are relock {@code DistributedLock}s
 * (Redisson-compatible: a Redisson {@code RLock} of the same name excludes them).
 *
 * <p>The lock of key {@code k} is named {@code registryKey + ":" + String.valueOf(k)}, as Spring's
 * {@code RedisLockRegistry} names its keys. Like that registry's locks, each lock is owned by the
 * thread that acquired it and is reentrant for that thread; another thread (or another registry)
 * waits. {@code unlock()} by a thread that does not hold the lock throws
 * {@link IllegalMonitorStateException}.
 *
 * <p>Lease: by default ({@code leaseTime == null}) a lock is held until unlocked, kept alive by the
 * relock client's watchdog, and expires within {@code LockOptions.lockWatchdogTimeout()} if the
 * holder's client closes or its process dies. With a lease time, each acquisition expires after it
 * unless renewed with {@link #renewLock(Object)} or {@link #renewLock(Object, Duration)}.
 *
 * <p>Thread-safety: safe for use by several threads; each lock is owned per thread.
 */
public final class RelockLockRegistry implements RenewableLockRegistry<RelockLock> {
    /** Spring's {@code RedisLockRegistry} has no default region; this is relock's. */
    public static final String DEFAULT_REGISTRY_KEY = "relock-spring-integration";

    private final LockClient client;
    private final String registryKey;
    private final Duration leaseTime;
    private final boolean fair;

    /**
     * A registry of reentrant locks under {@link #DEFAULT_REGISTRY_KEY}, held until unlocked.
     *
     * @param client the relock client; the registry never closes it
     */
    public RelockLockRegistry(LockClient client) {
        this(client, DEFAULT_REGISTRY_KEY, null, false);
    }

    /**
     * A registry of reentrant locks held until unlocked.
     *
     * @param client the relock client; the registry never closes it
     * @param registryKey the prefix of every lock name; not blank
     */
    public RelockLockRegistry(LockClient client, String registryKey) {
        this(client, registryKey, null, false);
    }

    /**
     * @param client the relock client; the registry never closes it
     * @param registryKey the prefix of every lock name; not blank
     * @param leaseTime positive lease of every acquisition made without an explicit one, or
     *     {@code null} to hold locks until unlocked (the watchdog renews them)
     * @param fair whether the locks are relock fair locks (waiters acquire in the order they asked)
     * @throws NullPointerException if {@code client} or {@code registryKey} is null
     * @throws IllegalArgumentException if {@code registryKey} is blank or {@code leaseTime} is not positive
     */
    public RelockLockRegistry(LockClient client, String registryKey, Duration leaseTime, boolean fair) {
        this.client = Objects.requireNonNull(client, "client must not be null");
        this.registryKey = Objects.requireNonNull(registryKey, "registryKey must not be null");
        if (registryKey.isBlank()) {
            throw new IllegalArgumentException("registryKey must not be blank, was '" + registryKey + "'");
        }
        if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero() || leaseTime.toMillis() == 0)) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms, or null to hold locks until "
                    + "unlocked, was " + leaseTime);
        }
        this.leaseTime = leaseTime;
        this.fair = fair;
    }

    /**
     * Returns the lock of {@code lockKey}; cheap, holds no Redis resource until used.
     *
     * @param lockKey any non-null key; its {@code String.valueOf} follows the registry key
     * @throws NullPointerException if {@code lockKey} is null
     */
    @Override
    public RelockLock obtain(Object lockKey) {
        String name = lockName(lockKey);
        return new RelockLock(fair ? client.getFairLock(name) : client.getLock(name), leaseTime);
    }

    /**
     * Renews the calling thread's hold of {@code lockKey} for the registry's lease time, or for one
     * more watchdog timeout when locks are held until unlocked.
     *
     * @throws IllegalStateException if the calling thread does not hold that lock
     */
    @Override
    public void renewLock(Object lockKey) {
        renew(lockKey, leaseTime);
    }

    /**
     * Sets the remaining lease of the calling thread's hold of {@code lockKey} to {@code ttl}; the
     * hold is no longer renewed by the watchdog afterwards.
     *
     * @param ttl positive
     * @throws IllegalStateException if the calling thread does not hold that lock
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Objects.requireNonNull(ttl, "ttl must not be null");
        if (ttl.isNegative() || ttl.isZero() || ttl.toMillis() == 0) {
            throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
        }
        renew(lockKey, ttl);
    }

    private void renew(Object lockKey, Duration ttl) {
        RelockLock lock = obtain(lockKey);
        if (!lock.delegate().isHeldByCurrentThread()) {
            throw new IllegalStateException("the current thread does not hold the lock '" + lock.delegate().getName()
                    + "', so it cannot renew it");
        }
        if (ttl == null) {
            lock.delegate().lock();
        } else {
            lock.delegate().lock(ttl);
        }
        lock.delegate().unlock();
    }

    private String lockName(Object lockKey) {
        Objects.requireNonNull(lockKey, "lockKey must not be null");
        return registryKey + ':' + lockKey;
    }

    @Override
    public String toString() {
        return "RelockLockRegistry[" + registryKey + (fair ? ", fair" : "")
                + (leaseTime == null ? ", until unlocked" : ", lease " + leaseTime) + ']';
    }
}
