package io.github.relock.core.internal.lock;

import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.observe.LockEvents;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.protocol.LockProtocol;
import io.github.relock.core.internal.protocol.LockState;
import io.github.relock.core.internal.run.ReplicaShortfall;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.util.Args;
import io.github.relock.core.internal.wait.AsyncWait;
import io.github.relock.core.internal.wait.BlockingWait;
import io.github.relock.core.internal.wait.Handoff;
import io.github.relock.core.internal.wait.WaitTarget;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A Redisson-compatible lock of one name: reentrant, fair, spin, fenced, non-reentrant, or one half
 * of a read-write lock, as its {@link LockProtocol} says ({@link FencedRedisLock} adds the token
 * methods). Owner field {@code <clientId>:<ownerId>}. Waiting is the wait machine's
 * ({@link BlockingWait}, {@link AsyncWait}), holds are the {@code HoldRegistry}'s, renewal is the
 * {@code Watchdog}'s, releasing is {@link LockRelease}'s; this class runs single attempts for the
 * wait machine and keeps the registry in step with their outcomes.
 *
 * <p>Thread-safety: safe for use by several threads; it holds no per-object state beyond its name.
 */
public class RedisLock extends AbstractLock implements WaitTarget {
    final ClientServices services;
    final String name;
    final LockProtocol protocol;
    private final LockRelease releases;

    /**
     * @param services the client's services
     * @param protocol the lock type's protocol (its name is the lock's)
     */
    public RedisLock(ClientServices services, LockProtocol protocol) {
        this.services = services;
        this.name = protocol.name();
        this.protocol = protocol;
        this.releases = new LockRelease(this);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockProtocol protocol() {
        return protocol;
    }

    /** @return the client's services (for multi-locks spanning clients) */
    public ClientServices services() {
        return services;
    }

    @Override
    public String toString() {
        return protocol.kind() + "[" + name + "]";
    }

    @Override
    public String field(long ownerId) {
        return protocol.ownerField(services.clientId(), ownerId);
    }

    long ttlArg(long ttlMs) {
        return ttlMs == Args.TTL_WATCHDOG ? services.watchdogMs() : ttlMs;
    }

    // ---------------------------------------------------------------- primitives

    @Override
    protected boolean acquire(long waitMs, long ttlMs, long ownerId, boolean interruptible) throws InterruptedException {
        services.ensureOpen();
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
        }
        LockEvents events = services.events();
        if (!events.timing()) {
            return new BlockingWait(this, services.waits(), waitMs, ttlMs, ownerId, interruptible).run();
        }
        long start = System.nanoTime();
        boolean acquired = new BlockingWait(this, services.waits(), waitMs, ttlMs, ownerId, interruptible).run();
        events.acquired(name, System.nanoTime() - start, acquired);
        return acquired;
    }

    @Override
    protected <T> CompletableFuture<T> acquireAsync(long waitMs, long ttlMs, long ownerId, Function<Boolean, T> outcome) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        try {
            services.ensureOpen();
        } catch (IllegalStateException e) {
            caller.completeExceptionally(e);
            return caller;
        }
        services.track(caller);
        LockEvents events = services.events();
        Function<Boolean, T> timed = outcome;
        if (events.timing()) {
            long start = System.nanoTime();
            timed = ok -> {
                events.acquired(name, System.nanoTime() - start, ok);
                return outcome.apply(ok);
            };
        }
        new AsyncWait<>(this, services.waits(), waitMs, ttlMs, ownerId, caller, timed).begin();
        return caller;
    }

    @Override
    protected void release(long ownerId) {
        releases.release(ownerId);
    }

    @Override
    protected CompletableFuture<Void> releaseAsync(long ownerId) {
        return releases.releaseAsync(ownerId);
    }

    @Override
    protected LockLease lease(long id) {
        Hold h = services.holds().get(name, field(id));
        return h != null ? new LeaseHandle(this, h)
                // lost between acquisition and here (client closed, key deleted): say so honestly
                : LeaseHandle.lost(this, field(id), id, services.isClosed()
                        ? LockLostEvent.Reason.CLIENT_CLOSED : LockLostEvent.Reason.NOT_HELD);
    }

    // ---------------------------------------------------------------- the wait machine's target

    @Override
    public Acquire attempt(long ttlMs, long ownerId, AttemptMode mode) {
        String field = field(ownerId);
        if (lentToCohort(field)) {
            return LENT;
        }
        long sentAt = System.nanoTime();
        Acquire outcome;
        try {
            outcome = services.runner().runWrite(acquiredWhat(),
                    protocol.acquire(services.holds().redisField(name, field), ttlArg(ttlMs), mode));
        } catch (ReplicaShortfall e) {
            outcome = undoShortAcquire(e, ttlMs, field);
        } catch (RuntimeException e) {
            reportUnknown(e, "acquire");
            throw e;
        }
        return acquired(outcome, ttlMs, ownerId, field, sentAt);
    }

    @Override
    public CompletableFuture<Acquire> attemptAsync(long ttlMs, long ownerId, AttemptMode mode) {
        String field = field(ownerId);
        if (lentToCohort(field)) {
            return CompletableFuture.completedFuture(LENT);
        }
        long sentAt = System.nanoTime();
        return services.runner().runWriteAsync(acquiredWhat(),
                        protocol.acquire(services.holds().redisField(name, field), ttlArg(ttlMs), mode))
                .handle((outcome, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(outcome);
                    }
                    Throwable cause = ScriptRunner.unwrap(error);
                    if (cause instanceof ReplicaShortfall shortfall) {
                        // On a driver thread (a Lettuce event loop): give it back without blocking.
                        return undoShortAcquireAsync(shortfall, ttlMs, field);
                    }
                    reportUnknown(cause, "acquire");
                    throw ScriptRunner.asRuntime(cause);
                })
                .thenCompose(f -> f)
                .thenApply(outcome -> acquired(outcome, ttlMs, ownerId, field, sentAt));
    }

    /** What an attempt of a run's anchor owner finds while another owner of this client holds the run (see Cohort). */
    private static final Acquire LENT = new Acquire.Busy(Cohort.ANCHOR_POLL_MS);

    /**
     * @return whether Redis shows {@code field} as the holder for a cohort run that another owner of
     *     this client holds now: an attempt by it must not reach Redis (it would re-enter)
     */
    private boolean lentToCohort(String field) {
        return services.cohort().enabled() && Cohort.FAMILY.equals(protocol.handoffFamily())
                && services.cohort().lent(Handoff.line(Cohort.FAMILY, name), name, field, services.holds());
    }

    /**
     * @return the field whose count in Redis is {@code field}'s hold count: the run's anchor for a
     *     cohort hold; null for an anchor lent to a run another owner holds (it holds nothing)
     */
    private String stateField(String field) {
        if (!services.cohort().enabled() || field.isEmpty()) {
            return field;
        }
        return lentToCohort(field) ? null : services.holds().redisField(name, field);
    }

    private String acquiredWhat() {
        return "lock '" + name + "' acquired";
    }

    /** A call whose reply was lost may have run: say so once, through the event listener. */
    void reportUnknown(Throwable failure, String operation) {
        if (failure instanceof RedisUnavailableException && !ScriptRunner.notSent(failure)) {
            services.events().replyLost(name, operation);
        }
    }

    /**
     * Replica sync: an attempt too few replicas acknowledged. If it acquired, give the acquisition
     * back (best effort, without waiting for replicas) and throw; an attempt that did not acquire
     * changed no ownership, so its answer stands.
     */
    private Acquire undoShortAcquire(ReplicaShortfall e, long ttlMs, String field) {
        Acquire outcome = e.outcome(Acquire.class);
        if (!(outcome instanceof Acquire.Acquired)) {
            return outcome;
        }
        RedisUnavailableException failure = notAcquired(e);
        try {
            services.runner().run(protocol.release(field, ttlArg(ttlMs), null));
        } catch (RuntimeException undoFailed) {
            failure.addSuppressed(undoFailed); // not given back: it expires with its TTL
        }
        throw failure;
    }

    /** As {@link #undoShortAcquire}, without blocking: the future fails once the acquisition was given back. */
    private CompletableFuture<Acquire> undoShortAcquireAsync(ReplicaShortfall e, long ttlMs, String field) {
        Acquire outcome = e.outcome(Acquire.class);
        if (!(outcome instanceof Acquire.Acquired)) {
            return CompletableFuture.completedFuture(outcome);
        }
        RedisUnavailableException failure = notAcquired(e);
        CompletableFuture<?> undo;
        try {
            undo = services.runner().runAsync(protocol.release(field, ttlArg(ttlMs), null));
        } catch (RuntimeException undoFailed) {
            undo = CompletableFuture.failedFuture(undoFailed);
        }
        return undo.handle((v, undoFailed) -> {
            if (undoFailed != null) {
                failure.addSuppressed(ScriptRunner.unwrap(undoFailed)); // not given back: it expires with its TTL
            }
            throw failure;
        });
    }

    private RedisUnavailableException notAcquired(ReplicaShortfall e) {
        return new RedisUnavailableException("lock '" + name + "' not acquired: "
                + e.acknowledgements() + " acknowledged the acquisition in time (" + e.option()
                + "); it was given back", e);
    }

    /** Registers an acquisition's hold; gives the lock back if the client closed while the script ran. */
    private Acquire acquired(Acquire outcome, long ttlMs, long ownerId, String field, long sentAt) {
        if (outcome instanceof Acquire.Acquired a && services.holds().register(name, field, ownerId, name, ttlMs, sentAt,
                a.token(), protocol.timeoutKeyPrefix()) == null) {
            GiveBack.unregistered(this, field, ttlArg(ttlMs));
            throw new IllegalStateException("this LockClient (" + services.clientId()
                    + ") was closed while acquiring lock '" + name + "'");
        }
        if (outcome instanceof Acquire.Acquired) {
            services.watches().taken(name);
        }
        return outcome;
    }

    @Override
    public CompletableFuture<Void> giveUp(long ownerId) {
        Call<Void> undo = protocol.giveUp(field(ownerId));
        if (undo == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> sent;
        try {
            sent = services.runner().runAsync(undo);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.exceptionally(t -> {
            System.getLogger(RedisLock.class.getName()).log(System.Logger.Level.DEBUG,
                    "leaving the wait queue of ''" + name + "'' failed; the entry expires on its own", t);
            return null;
        });
    }

    @Override
    public void releaseNow(long ownerId) {
        releases.release(ownerId);
    }

    @Override
    public CompletableFuture<Void> giveBack(long ownerId) {
        return GiveBack.registered(this, ownerId);
    }

    @Override
    public CompletableFuture<Void> giveBackTransfer(long ownerId, long ttlMs) {
        return GiveBack.unregistered(this, field(ownerId), ttlArg(ttlMs));
    }

    @Override
    public long localHoldRemainingMs(String field) {
        return services.holds().remainingMs(name, field);
    }

    // ---------------------------------------------------------------- for composites and leases

    /** Acquire for {@code ownerId} without blocking ({@code waitMs} {@link Args#TRY_ONCE} = one attempt). */
    public CompletableFuture<Boolean> acquireFor(long waitMs, long ttlMs, long ownerId) {
        return acquireAsync(waitMs, ttlMs, ownerId, Boolean::valueOf);
    }

    /** Releases one acquisition of {@code ownerId} without blocking. */
    public CompletableFuture<Void> releaseFor(long ownerId) {
        return releaseAsync(ownerId);
    }

    /**
     * Releases one acquisition of {@code ownerId} without blocking and answers what it found; a
     * lock the owner no longer holds is an answer, not an error (LockLease.release()).
     */
    public CompletableFuture<io.github.relock.api.ReleaseOutcome> releaseOutcomeFor(long ownerId) {
        return releases.releaseAsync(ownerId, true);
    }

    /** {@link #releaseOutcomeFor} blocking. */
    io.github.relock.api.ReleaseOutcome releaseOutcome(long ownerId) {
        return releases.release(ownerId, true);
    }

    /** @return until when (System.nanoTime) hold {@code h} is known to be held; see HoldRegistry#heldUntilNanos */
    public long heldUntilNanos(Hold h) {
        return services.holds().heldUntilNanos(h);
    }

    /** Set the TTL of this owner's hold to {@code ttlMs}; answers whether the owner still held it. */
    public CompletableFuture<Boolean> expireFor(long ttlMs, long ownerId) {
        return HoldTtl.expireFor(this, ttlMs, ownerId);
    }

    /**
     * Sets the TTL of hold {@code h} (LockLease.expireIn), or with {@code ending} keeps the key for
     * {@code ttlMs} and forgets the hold (LockLease.releaseAfter); see {@link HoldTtl#expireHold}.
     */
    public boolean expireHold(Hold h, long ttlMs, boolean ending) {
        return HoldTtl.expireHold(this, h, ttlMs, ending);
    }

    /** @return the hold this client registered for {@code ownerId}, or null */
    public Hold holdOf(long ownerId) {
        return services.holds().get(name, field(ownerId));
    }

    @Override
    public int addListener(io.github.relock.api.LockListener listener) {
        java.util.Objects.requireNonNull(listener, "listener must not be null");
        return services.watches().add(this, listener);
    }

    @Override
    public void removeListener(int listenerId) {
        services.watches().remove(listenerId);
    }

    @Override
    public CompletableFuture<Integer> addListenerAsync(io.github.relock.api.LockListener listener) {
        if (listener == null) {
            return CompletableFuture.failedFuture(
                    new NullPointerException("listener must not be null"));
        }
        return services.watches().addAsync(this, listener);
    }

    @Override
    public CompletableFuture<Void> removeListenerAsync(int listenerId) {
        services.watches().remove(listenerId);
        return CompletableFuture.completedFuture(null);
    }

    // ---------------------------------------------------------------- force and state reads

    @Override
    public boolean forceUnlock() {
        services.ensureOpen();
        Runnable settled = services.watches().ownRelease(name);
        try {
            boolean deleted;
            try {
                deleted = services.runner().runWrite("forceUnlock of lock '" + name + "'", protocol.forceRelease());
            } catch (ReplicaShortfall e) {
                forced(e.outcome(Boolean.class)); // deleted on the master
                throw e;
            }
            return forced(deleted);
        } finally {
            settled.run();
        }
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        try {
            services.ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        Runnable settled = services.watches().ownRelease(name);
        CompletableFuture<Boolean> sent;
        try {
            sent = services.runner().runWriteAsync("forceUnlock of lock '" + name + "'", protocol.forceRelease());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((deleted, error) -> {
            try {
                if (error != null) {
                    Throwable cause = ScriptRunner.unwrap(error);
                    if (cause instanceof ReplicaShortfall shortfall) {
                        forced(shortfall.outcome(Boolean.class)); // deleted on the master
                    }
                    throw ScriptRunner.asRuntime(cause);
                }
                return forced(deleted);
            } finally {
                settled.run();
            }
        });
    }

    /** A read-write lock's half deletes only in its own mode: the other half's holds stay. */
    private boolean forced(boolean deleted) {
        if (deleted) {
            services.holds().forceReleased(name);
            services.watches().freed(name);
        }
        return deleted;
    }

    @Override
    public boolean isLocked() {
        return state("").locked();
    }

    @Override
    public boolean isHeldByThread(long threadId) {
        return heldCount(field(threadId)) > 0;
    }

    @Override
    public int getHoldCount() {
        return heldCount(field(currentThreadId()));
    }

    private int heldCount(String field) {
        String f = stateField(field);
        if (f == null) {
            services.ensureOpen();
            return 0;
        }
        return state(f).count();
    }

    @Override
    public long remainTimeToLive() {
        return state("").pttl();
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return stateAsync("").thenApply(LockState::locked);
    }

    @Override
    public CompletableFuture<Boolean> isHeldByThreadAsync(long threadId) {
        return heldCountAsync(field(threadId)).thenApply(n -> n > 0);
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return heldCountAsync(field(threadId));
    }

    private CompletableFuture<Integer> heldCountAsync(String field) {
        String f = stateField(field);
        if (f == null) {
            try {
                services.ensureOpen();
            } catch (IllegalStateException e) {
                return CompletableFuture.failedFuture(e);
            }
            return CompletableFuture.completedFuture(0);
        }
        return stateAsync(f).thenApply(LockState::count);
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return stateAsync("").thenApply(LockState::pttl);
    }

    private LockState state(String field) {
        services.ensureOpen();
        return services.runner().run(protocol.state(field));
    }

    private CompletableFuture<LockState> stateAsync(String field) {
        try {
            services.ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        return services.runner().runAsync(protocol.state(field));
    }
}
