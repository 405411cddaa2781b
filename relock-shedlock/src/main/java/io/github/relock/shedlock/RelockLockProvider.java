package io.github.relock.shedlock;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;

/*
 * Design. A ShedLock lock is a relock LockLease taken with one attempt and a fixed lease of
 * lockAtMostFor (no watchdog): a lease has an owner id of its own, never a thread's and never
 * reused, so a second lock() of the same name is refused even from the same thread (a thread-owned
 * relock lock would re-enter), and unlock() may run on any thread.
 *
 * Shortening and extending. relock's public API has no call that sets the TTL of a held lock.
 * Both go through re-entry with the lease's owner id (the ...Async(..., threadId) methods accept a
 * lease's ownerId): re-entering with lease L sets the key's TTL to L, and releasing that extra hold
 * keeps the key with the TTL of the owner's last acquisition, L. The lease's single hold is left,
 * unreleased, to expire; relock reports that expiry to lock-lost listeners (LEASE_EXPIRED) and logs
 * it. If the lease had already expired and the key was free, the re-entry takes a fresh hold that
 * the release deletes again: the lock ends up free, as it would have been.
 */
/**
 * A ShedLock {@link ExtensibleLockProvider} whose locks are relock reentrant locks named
 * {@code keyPrefix + lockConfiguration.getName()} (Redisson-compatible: a Redisson {@code RLock} of
 * that name excludes them).
 *
 * <ul>
 *   <li>{@link #lock} makes one attempt and returns {@link Optional#empty()} if the lock is held
 *       elsewhere, including by an earlier {@code lock()} of this provider. The lock expires on its
 *       own at {@code lockAtMostUntil}; nothing renews it.</li>
 *   <li>{@link SimpleLock#unlock()} (from any thread) deletes the lock, or, before
 *       {@code lockAtLeastUntil}, keeps it until then by setting its TTL to the time left.</li>
 *   <li>{@link SimpleLock#extend} sets the TTL of a still-held lock to the new {@code lockAtMostFor}.</li>
 * </ul>
 * Times are measured from {@link ClockProvider#now()} on this machine; Redis's own clock decides
 * when a key expires.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class RelockLockProvider implements ExtensibleLockProvider {
    /** The default prefix of every lock name. */
    public static final String DEFAULT_KEY_PREFIX = "shedlock:";
    private static final System.Logger LOG = System.getLogger(RelockLockProvider.class.getName());

    private final LockClient client;
    private final String keyPrefix;

    /** @param client the relock client; the provider never closes it */
    public RelockLockProvider(LockClient client) {
        this(client, DEFAULT_KEY_PREFIX);
    }

    /**
     * @param client the relock client; the provider never closes it
     * @param keyPrefix put before every ShedLock lock name; may be empty
     * @throws NullPointerException if an argument is null
     */
    public RelockLockProvider(LockClient client, String keyPrefix) {
        this.client = Objects.requireNonNull(client, "client must not be null");
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null (use \"\" for none)");
    }

    /**
     * @return the lock, or empty if it is held elsewhere
     * @throws io.github.relock.api.LockException if Redis could not be asked or answered an error (ShedLock's
     *     executor then propagates it; the lock expires within lockAtMostFor if it was taken)
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        Objects.requireNonNull(lockConfiguration, "lockConfiguration must not be null");
        DistributedLock lock = client.getLock(keyPrefix + lockConfiguration.getName());
        long leaseMs = Math.max(1, millisUntil(lockConfiguration.getLockAtMostUntil()));
        try {
            LockLease lease = lock.acquire(Duration.ZERO, Duration.ofMillis(leaseMs));
            return Optional.of(new RelockSimpleLock(lock, lease, lockConfiguration));
        } catch (LockTimeoutException held) {
            return Optional.empty();
        } catch (InterruptedException e) { // one attempt never waits
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static long millisUntil(Instant instant) {
        return Duration.between(ClockProvider.now(), instant).toMillis();
    }

    @Override
    public String toString() {
        return "RelockLockProvider[" + keyPrefix + "*, client " + client.clientId() + ']';
    }

    /** One held ShedLock lock: the lease and the configuration it was taken with. */
    private static final class RelockSimpleLock extends AbstractSimpleLock {
        private final DistributedLock lock;
        private final LockLease lease;

        RelockSimpleLock(DistributedLock lock, LockLease lease, LockConfiguration configuration) {
            super(configuration);
            this.lock = lock;
            this.lease = lease;
        }

        @Override
        protected void doUnlock() {
            long keepMs = millisUntil(lockConfiguration.getLockAtLeastUntil());
            try {
                if (keepMs <= 0) {
                    lease.close();
                } else if (!setTtl(keepMs)) {
                    LOG.log(System.Logger.Level.WARNING, "ShedLock lock ''{0}'' was no longer held at unlock "
                            + "(lockAtMostFor {1} ran out, or it was force-unlocked)", lock.getName(),
                            lockConfiguration.getLockAtMostFor());
                }
            } catch (IllegalMonitorStateException lost) {
                LOG.log(System.Logger.Level.WARNING, "ShedLock lock ''{0}'' was no longer held at unlock: {1}",
                        lock.getName(), lost.getMessage());
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
            if (!lease.isValid() || !setTtl(Math.max(1, millisUntil(extended.getLockAtMostUntil())))) {
                return Optional.empty();
            }
            return Optional.of(new RelockSimpleLock(lock, lease, extended));
        }

        /** Sets the TTL of the lease's hold by re-entry and release; answers whether it is still held. */
        private boolean setTtl(long ttlMs) {
            long owner = lease.ownerId();
            if (!join(lock.tryLockAsync(0, ttlMs, TimeUnit.MILLISECONDS, owner))) {
                return false; // held by another owner
            }
            join(lock.unlockAsync(owner));
            return join(lock.isHeldByThreadAsync(owner));
        }

        private static <T> T join(CompletableFuture<T> f) {
            try {
                return f.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw new LockException("relock call failed", e.getCause());
            }
        }

        @Override
        public String toString() {
            return "RelockSimpleLock[" + lock.getName() + ", until " + lockConfiguration.getLockAtMostUntil() + ']';
        }
    }
}
