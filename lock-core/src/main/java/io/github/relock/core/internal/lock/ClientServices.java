package io.github.relock.core.internal.lock;

import io.github.relock.api.LockOptions;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.observe.LockEvents;
import io.github.relock.core.internal.protocol.ProtocolContext;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.wait.Handoff;
import io.github.relock.core.internal.wait.WaitContext;
import io.github.relock.core.internal.wait.Waiters;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The per-client services the locks of one client share: its script runner, hold registry,
 * channels, hand-off lines, timer, events and settings, and whether it is closed. Built by the
 * client ({@code client.DefaultLockClient}); handed to every lock it makes.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class ClientServices {
    private final String clientId;
    private final LockOptions options;
    private final ScriptRunner runner;
    private final HoldRegistry holds;
    private final Waiters waiters;
    private final Handoff handoff;
    private final Cohort cohort;
    private final LockEvents events;
    private final ProtocolContext protocols;
    private final ScheduledExecutorService timer;
    private final WaitContext waits;
    private final AtomicBoolean closed;
    /** The client's own services: itself, or for a view's services the client's. */
    private final ClientServices root;
    /** Futures handed to callers that are still waiting; close() fails them all. */
    private final Set<CompletableFuture<?>> pending;
    /** The client's lock listeners. */
    private final LockWatches watches;

    /**
     * @param clientId the client's id
     * @param options its options
     * @param runner its script runner
     * @param holds its hold registry
     * @param waiters its channels
     * @param handoff its hand-off lines
     * @param events its event dispatch
     * @param protocols what its protocols need to know
     * @param timer its timer
     */
    public ClientServices(String clientId, LockOptions options, ScriptRunner runner, HoldRegistry holds, Waiters waiters,
                  Handoff handoff, LockEvents events, ProtocolContext protocols, ScheduledExecutorService timer) {
        this.clientId = clientId;
        this.options = options;
        this.runner = runner;
        this.holds = holds;
        this.waiters = waiters;
        this.handoff = handoff;
        this.cohort = Cohort.of(options);
        this.events = events;
        this.protocols = protocols;
        this.timer = timer;
        this.closed = new AtomicBoolean();
        this.root = this;
        this.pending = ConcurrentHashMap.newKeySet();
        this.watches = new LockWatches();
        this.waits = new WaitContext(waiters, handoff, this::scheduleWait, closed::get, clientId,
                options.subscriptionTimeout().toNanos(), options.commandTimeout().toNanos(),
                options.lockWatchdogTimeout().toMillis());
    }

    private ClientServices(ClientServices base, ScriptRunner runner) {
        this.clientId = base.clientId;
        this.options = base.options;
        this.runner = runner;
        this.holds = base.holds;
        this.waiters = base.waiters;
        this.handoff = base.handoff;
        this.cohort = base.cohort;
        this.events = base.events;
        this.protocols = base.protocols;
        this.timer = base.timer;
        this.closed = base.closed;
        this.root = base.root;
        this.pending = base.pending;
        this.watches = base.watches;
        this.waits = base.waits;
    }

    /**
     * The same client's services with another script runner (a view's bounded one,
     * {@code LockClient.withCommandTimeout}): everything else, its closed flag and pending callers
     * included, is shared.
     *
     * @param runner the runner the view's objects send through
     * @return the services for the view's objects
     */
    public ClientServices withRunner(ScriptRunner runner) {
        return new ClientServices(this, runner);
    }

    /**
     * @param other another lock's services
     * @return whether both belong to one client (its own, or a view's of it)
     */
    public boolean sameClient(ClientServices other) {
        return root == other.root;
    }

    /** @return the client's id */
    public String clientId() {
        return clientId;
    }

    /** @return the client's options */
    public LockOptions options() {
        return options;
    }

    /** @return the client's script runner (public for the synchronizers' room) */
    public ScriptRunner runner() {
        return runner;
    }

    HoldRegistry holds() {
        return holds;
    }

    Handoff handoff() {
        return handoff;
    }

    Cohort cohort() {
        return cohort;
    }

    /**
     * @return the owner id (thread id, negative for a lease) of this client's owner that holds the
     *     reentrant lock {@code name} now through a cohort run Redis shows under {@code field}; empty
     *     when there is none (for inspect)
     */
    public OptionalLong cohortOwner(String name, String field) {
        Hold h = cohort.enabled() ? cohort.holderFor(name, field, holds) : null;
        return h == null ? OptionalLong.empty() : OptionalLong.of(h.ownerId());
    }

    Waiters waiters() {
        return waiters;
    }

    public LockEvents events() {
        return events;
    }

    /** @return what the client's waits use (public for the synchronizers' room) */
    public WaitContext waits() {
        return waits;
    }

    LockWatches watches() {
        return watches;
    }

    /** @return what the protocols of this client's locks need to know */
    public ProtocolContext protocols() {
        return protocols;
    }

    /** @return the watchdog timeout in ms */
    public long watchdogMs() {
        return options.lockWatchdogTimeout().toMillis();
    }

    /** @return whether the client is closed */
    public boolean isClosed() {
        return closed.get();
    }

    /** Marks the client closed. @return false if it already was */
    public boolean close() {
        return closed.compareAndSet(false, true);
    }

    /** @throws IllegalStateException if the client is closed */
    public void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("this LockClient (" + clientId + ") is closed");
        }
    }

    /** Tracks a caller's future until it completes; close() fails whatever is still pending. @return {@code f} */
    public <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        pending.add(f);
        f.whenComplete((v, t) -> pending.remove(f));
        if (closed.get()) {
            f.completeExceptionally(new IllegalStateException("this LockClient (" + clientId + ") is closed"));
        }
        return f;
    }

    /** Fails every caller future still waiting (close()). */
    public void failPending() {
        IllegalStateException closedError = new IllegalStateException("this LockClient (" + clientId
                + ") was closed while the call was waiting");
        for (CompletableFuture<?> f : pending.toArray(CompletableFuture[]::new)) {
            f.completeExceptionally(closedError);
        }
    }

    /** Schedules on the timer; after close, runs {@code onRejected} instead of throwing. */
    public ScheduledFuture<?> schedule(Runnable task, long delayNanos, Runnable onRejected) {
        try {
            return timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            onRejected.run();
            return null;
        }
    }

    private WaitContext.Cancellable scheduleWait(Runnable task, long delayNanos) {
        try {
            ScheduledFuture<?> f = timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }
}
