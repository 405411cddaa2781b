package io.github.relock.shedlock;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/*
 * Design. A ShedLock lock is a relock LockLease taken with one attempt and a fixed lease of
 * lockAtMostFor (no watchdog): a lease has an owner id of its own, never a thread's and never
 * reused, so a second lock() of the same name is refused even from the same thread (a thread-owned
 * relock lock would re-enter), and unlock() may run on any thread. Keeping the lock until
 * lockAtLeastUntil is LockLease.releaseAfter (the client forgets the hold: its expiry is no loss);
 * extending is LockLease.expireIn. Both touch the key only while the lease still holds it.
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
 *       {@code lockAtLeastUntil}, keeps it until then ({@link LockLease#releaseAfter}: its TTL is the
 *       time left, and its expiry is not reported to lock-lost listeners). An unlock of a lock no
 *       longer held (lockAtMostFor ran out, or it was force-unlocked) changes nothing and logs a
 *       warning.</li>
 *   <li>{@link SimpleLock#extend} sets the TTL of a still-held lock to the new {@code lockAtMostFor}
 *       ({@link LockLease#expireIn}); a lock no longer held gives {@link Optional#empty()}.</li>
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
            if (!lease.releaseAfter(Duration.ofMillis(Math.max(0, keepMs)))) {
                LOG.log(System.Logger.Level.WARNING, "ShedLock lock ''{0}'' was no longer held at unlock "
                        + "(lockAtMostFor {1} ran out, or it was force-unlocked)", lock.getName(),
                        lockConfiguration.getLockAtMostFor());
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
            if (!lease.expireIn(Duration.ofMillis(Math.max(1, millisUntil(extended.getLockAtMostUntil()))))) {
                return Optional.empty();
            }
            return Optional.of(new RelockSimpleLock(lock, lease, extended));
        }

        @Override
        public String toString() {
            return "RelockSimpleLock[" + lock.getName() + ", until " + lockConfiguration.getLockAtMostUntil() + ']';
        }
    }
}
