package io.github.relock.shedlock;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
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
 *
 * withWatchdog(). The lease is a watchdog lease instead, renewed with every other hold of the
 * client by its one batched timer, so a crashed instance frees the lock within the watchdog
 * timeout. lockAtMostFor stays a hard ceiling: one daemon thread shared by every provider (a
 * Ceiling per lock, never a thread per job) turns the lease into a fixed one ending at
 * lockAtMostUntil (LockLease.expireIn), at lockAtMostUntil - (watchdog timeout + command timeout).
 * Any renewal before that sets the TTL to at most the watchdog timeout, and a renewal already on
 * its way when the switch runs reaches Redis within a command timeout, so no renewal can carry
 * the key past the ceiling. If the switch finds Redis unreachable, expireIn leaves the lease
 * unrenewed, so the key expires within the watchdog timeout, before the ceiling too. unlock() and
 * extend() settle the Ceiling under its guard, so the switch never runs after (or during) them.
 * A lockAtMostFor no longer than that lead gets the fixed lease: renewal could not help it.
 */
/**
 * A ShedLock {@link ExtensibleLockProvider} whose locks are relock reentrant locks named
 * {@code keyPrefix + lockConfiguration.getName()} (Redisson-compatible: a Redisson {@code RLock} of
 * that name excludes them).
 *
 * <ul>
 *   <li>{@link #lock} makes one attempt and returns {@link Optional#empty()} if the lock is held
 *       elsewhere, including by an earlier {@code lock()} of this provider. The lock expires on its
 *       own at {@code lockAtMostUntil}; nothing renews it (but see {@link #withWatchdog()}).</li>
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
    private final boolean watchdog;

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
        this.watchdog = false;
    }

    private RelockLockProvider(RelockLockProvider base) {
        this.client = base.client;
        this.keyPrefix = base.keyPrefix;
        this.watchdog = true;
    }

    /**
     * A provider like this one whose locks relock's watchdog keeps alive while the job runs, with
     * {@code lockAtMostFor} as a hard ceiling. The watchdog renews them with every other lock of the
     * client (one batched timer, no thread per job, no ShedLock {@code KeepAliveLockProvider}), so
     * the lock of an instance that crashed or lost its connection expires within the client's
     * {@link io.github.relock.api.LockOptions#lockWatchdogTimeout() watchdog timeout}, not at
     * {@code lockAtMostFor}. A job that runs on, or hangs, still loses its lock at
     * {@code lockAtMostUntil}: at {@code lockAtMostUntil} minus the watchdog timeout and the
     * {@linkplain io.github.relock.api.LockOptions#commandTimeout() command timeout}, the lock
     * stops being renewed and gets a TTL ending at {@code lockAtMostUntil}. {@code lockAtLeastFor}
     * is kept on unlock as without the watchdog; {@link SimpleLock#extend} gives the lock a fixed
     * TTL of the new {@code lockAtMostFor}, no longer renewed. A {@code lockAtMostFor} no longer than
     * the watchdog timeout plus the command timeout gets a fixed lease, as without the watchdog.
     *
     * @return a new provider with the same client and key prefix; this one is unchanged
     */
    public RelockLockProvider withWatchdog() {
        return new RelockLockProvider(this);
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
        long leadMs = watchdog ? Ceiling.leadMs(client) : 0;
        try {
            if (!watchdog || leaseMs <= leadMs) {
                LockLease lease = lock.acquire(Duration.ZERO, Duration.ofMillis(leaseMs));
                return Optional.of(new RelockSimpleLock(lock, lease, lockConfiguration, null));
            }
            LockLease lease = lock.acquire(Duration.ZERO);
            Ceiling ceiling = new Ceiling(lease, lockConfiguration.getLockAtMostUntil());
            ceiling.arm(millisUntil(lockConfiguration.getLockAtMostUntil()) - leadMs);
            return Optional.of(new RelockSimpleLock(lock, lease, lockConfiguration, ceiling));
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
        return "RelockLockProvider[" + keyPrefix + "*, client " + client.clientId() + (watchdog ? ", watchdog" : "")
                + ']';
    }

    /**
     * The end of a watchdog lease: at its switch time it makes the lease a fixed one ending at
     * lockAtMostUntil, unless unlock() or extend() settled it first.
     *
     * <p>Thread-safety: safe for use by several threads; {@link #guard} orders the switch, unlock and extend.
     */
    private static final class Ceiling implements Runnable {
        private final ReentrantLock guard = new ReentrantLock(); // not synchronized: jobs may run on virtual threads
        private final LockLease lease;
        private final Instant lockAtMostUntil;
        private ScheduledFuture<?> task; // guarded
        private boolean settled; // guarded: the switch ran, or unlock/extend took over

        Ceiling(LockLease lease, Instant lockAtMostUntil) {
            this.lease = lease;
            this.lockAtMostUntil = lockAtMostUntil;
        }

        /** @return how long before lockAtMostUntil the renewal must stop: watchdog timeout + command timeout */
        static long leadMs(LockClient client) {
            return client.options().lockWatchdogTimeout().plus(client.options().commandTimeout()).toMillis();
        }

        void arm(long delayMs) {
            guard.lock();
            try {
                task = Timer.INSTANCE.schedule(this, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
            } finally {
                guard.unlock();
            }
        }

        @Override
        public void run() {
            guard.lock();
            try {
                if (settled) {
                    return;
                }
                settled = true;
                lease.expireIn(Duration.ofMillis(Math.max(1, millisUntil(lockAtMostUntil))));
            } catch (RuntimeException e) { // Redis unreachable: the lease is no longer renewed and expires
                LOG.log(System.Logger.Level.WARNING, "ShedLock lock '" + lease.lockName() + "' could not be "
                        + "given its lockAtMostFor ceiling; it is no longer renewed and expires on its own", e);
            } finally {
                guard.unlock();
            }
        }

        /** Cancels the switch and runs {@code action} (an unlock or extend) so that the switch can never follow it. */
        <T> T settle(Supplier<T> action) {
            guard.lock();
            try {
                settled = true;
                task.cancel(false);
                return action.get();
            } finally {
                guard.unlock();
            }
        }
    }

    /** The one daemon thread that runs every provider's ceilings, started with the first. */
    private static final class Timer {
        static final ScheduledThreadPoolExecutor INSTANCE = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "relock-shedlock-ceiling");
                t.setDaemon(true);
                return t;
            });
            timer.setRemoveOnCancelPolicy(true);
            return timer;
        }
    }

    /** One held ShedLock lock: the lease and the configuration it was taken with. */
    private static final class RelockSimpleLock extends AbstractSimpleLock {
        private final DistributedLock lock;
        private final LockLease lease;
        private final Ceiling ceiling; // null for a fixed lease

        RelockSimpleLock(DistributedLock lock, LockLease lease, LockConfiguration configuration, Ceiling ceiling) {
            super(configuration);
            this.lock = lock;
            this.lease = lease;
            this.ceiling = ceiling;
        }

        private <T> T settled(Supplier<T> action) {
            return ceiling == null ? action.get() : ceiling.settle(action);
        }

        @Override
        protected void doUnlock() {
            long keepMs = millisUntil(lockConfiguration.getLockAtLeastUntil());
            if (!settled(() -> lease.releaseAfter(Duration.ofMillis(Math.max(0, keepMs))))) {
                LOG.log(System.Logger.Level.WARNING, "ShedLock lock ''{0}'' was no longer held at unlock "
                        + "(lockAtMostFor {1} ran out, or it was force-unlocked)", lock.getName(),
                        lockConfiguration.getLockAtMostFor());
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
            if (!settled(() -> lease.expireIn(Duration.ofMillis(Math.max(1, millisUntil(extended.getLockAtMostUntil())))))) {
                return Optional.empty();
            }
            return Optional.of(new RelockSimpleLock(lock, lease, extended, null));
        }

        @Override
        public String toString() {
            return "RelockSimpleLock[" + lock.getName() + ", until " + lockConfiguration.getLockAtMostUntil() + ']';
        }
    }
}
