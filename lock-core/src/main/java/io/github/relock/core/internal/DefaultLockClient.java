package io.github.relock.core.internal;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.FencedLock;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockClientStats;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.NameMapper;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.NoScriptException;
import io.github.relock.spi.Script;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The engine's {@link LockClient}: owns the script runner (with the NOSCRIPT fallback), the
 * pub/sub {@link Waiters}, the {@link HoldRegistry} with its {@link Watchdog}, the pending async
 * calls that {@link #close()} must fail, one timer thread and, with {@code LockOptions.replicaSync},
 * a cached pool that runs synced writes for the async API (the SPI's EVALSHA + WAIT blocks). Exposed to
 * {@code io.github.relock.core.RedisLocks} only (the package is not exported).
 *
 * <p>Map of the engine: {@link AbstractLock} (every public overload, once) is extended by
 * {@link RedisLock} (one name, run through a {@link LockProtocol}: {@link ReentrantProtocol}, also
 * non-reentrant, {@link FairProtocol}, also non-reentrant, {@link SpinProtocol} or
 * {@link FencedProtocol}, the last with {@link FencedRedisLock}'s token methods; a
 * {@link RedisReadWriteLock} is two of them over {@link ReadWriteProtocol}'s halves) and {@link MultiRedisLock} (multi and red locks over several); waiting is
 * {@link LockWait}'s; {@link LeaseHandle} is the lease; {@link Args}, {@link Keys},
 * {@link Scripts} and {@link Slots} are the small helpers.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class DefaultLockClient implements LockClient {
    private static final System.Logger LOG = System.getLogger(DefaultLockClient.class.getName());
    private static final AtomicLong TIMER_IDS = new AtomicLong();
    /** JVM-wide, so a multi-lock's lease id is unused on every client it spans. */
    private static final AtomicLong LEASE_IDS = new AtomicLong();

    private final CommandExecutor executor;
    private final LockOptions options;
    /** The lock-name mapper; null when it is the identity, so getting a lock does no extra work. */
    private final NameMapper mapper;
    private final LockEvents events;
    private final String clientId;
    private final boolean ownsExecutor;
    private final String publishMode;
    /** Whether the deployment is a Redis Cluster: lock names must then keep their keys in one slot. */
    private final boolean cluster;
    private final Waiters waiters;
    private final Handoff handoff;
    private final HoldRegistry holds;
    private final Watchdog watchdog;
    private final ScheduledThreadPoolExecutor timer;
    private final CopyOnWriteArrayList<Consumer<LockLostEvent>> lostListeners = new CopyOnWriteArrayList<>();
    /** Futures handed to callers that are still waiting; close() fails them all. */
    private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
    /** Clean-ups in flight (a waiter leaving a fair queue); close() waits for them before closing the driver. */
    private final Set<CompletableFuture<?>> cleanups = ConcurrentHashMap.newKeySet();
    private final Executor lostExecutor;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Replicas each lock write must reach (0: replica sync off) and how long WAIT may take. */
    private final int syncReplicas;
    private final long syncTimeoutMs;
    /** Runs synced writes for the async API (the SPI's pipelined EVALSHA + WAIT is blocking); null when off. */
    private final java.util.concurrent.ExecutorService syncRunner;

    private DefaultLockClient(CommandExecutor executor, LockOptions options, boolean ownsExecutor) {
        this.executor = executor;
        this.options = options;
        this.events = new LockEvents(options.eventListener());
        this.syncReplicas = options.replicaSyncReplicas();
        this.syncTimeoutMs = options.replicaSyncTimeout().map(java.time.Duration::toMillis).orElse(0L);
        this.syncRunner = syncReplicas == 0 ? null : java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "relock-sync-" + TIMER_IDS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.clientId = options.clientId().orElseGet(() -> UUID.randomUUID().toString());
        this.mapper = options.nameMapper() == NameMapper.identity() ? null : options.nameMapper();
        this.ownsExecutor = ownsExecutor;
        this.cluster = executor.capabilities().contains(Capability.CLUSTER);
        // Cluster: reach both Redisson 3.x (classic) and 4.x (sharded) subscribers; pcall in the
        // scripts keeps servers without SPUBLISH working.
        this.publishMode = cluster ? "BOTH" : "PUBLISH";
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "relock-timer-" + TIMER_IDS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.timer.setRemoveOnCancelPolicy(true);
        this.lostExecutor = options.lockLostExecutor().orElse(timer);
        this.waiters = new Waiters(executor, cluster && executor.capabilities().contains(Capability.SHARDED_PUBSUB));
        executor.setConnectionListener(waiters);
        this.handoff = new Handoff(options.localHandoffMaxConsecutive(), options.localHandoffMaxRun().toNanos(),
                options.commandTimeout().toNanos());
        long watchdogMs = options.lockWatchdogTimeout().toMillis();
        this.holds = new HoldRegistry(watchdogMs, this::fireLost, this::runLostCallback);
        this.watchdog = new Watchdog(holds, this::renewAsync, timer, watchdogMs, options.renewalBatchSize(), cluster,
                executor::nodeOfSlot,
                Math.min(options.commandTimeout().toMillis(), watchdogMs), events);
        watchdog.start();
    }

    /**
     * @param executor the driver's executor
     * @param options options
     * @param ownsExecutor whether {@link #close()} closes the executor
     * @return a new client
     */
    public static DefaultLockClient open(CommandExecutor executor, LockOptions options, boolean ownsExecutor) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(options, "options");
        if (options.replicaSyncEnabled() && !executor.capabilities().contains(Capability.REPLICA_WAIT)) {
            IllegalArgumentException refused = new IllegalArgumentException("LockOptions.replicaSync("
                    + options.replicaSyncReplicas() + ", " + options.replicaSyncTimeout().orElseThrow()
                    + ") needs a driver with " + Capability.REPLICA_WAIT + ", and "
                    + executor.getClass().getName() + " does not declare it");
            if (ownsExecutor) {
                try {
                    executor.close();
                } catch (Exception e) {
                    refused.addSuppressed(e);
                }
            }
            throw refused;
        }
        return new DefaultLockClient(executor, options, ownsExecutor);
    }

    @Override
    public DistributedLock getLock(String name) {
        ensureOpen();
        String n = name(name);
        return new RedisLock(this, n, new ReentrantProtocol(this, n, true));
    }

    @Override
    public DistributedLock getFairLock(String name) {
        ensureOpen();
        String n = name(name);
        return new RedisLock(this, n, new FairProtocol(this, n, true));
    }

    @Override
    public ReadWriteDistributedLock getReadWriteLock(String name) {
        ensureOpen();
        return new RedisReadWriteLock(this, name(name));
    }

    @Override
    public FencedLock getFencedLock(String name) {
        ensureOpen();
        return new FencedRedisLock(this, name(name));
    }

    @Override
    public DistributedLock getSpinLock(String name) {
        ensureOpen();
        String n = name(name);
        return new RedisLock(this, n, new SpinProtocol(this, n));
    }

    @Override
    public DistributedLock getNonReentrantLock(String name) {
        ensureOpen();
        String n = name(name);
        return new RedisLock(this, n, new ReentrantProtocol(this, n, false));
    }

    @Override
    public DistributedLock getNonReentrantFairLock(String name) {
        ensureOpen();
        String n = name(name);
        return new RedisLock(this, n, new FairProtocol(this, n, false));
    }

    @Override
    public DistributedLock getMultiLock(DistributedLock... locks) {
        ensureOpen();
        return MultiRedisLock.multi(java.util.Arrays.asList(Objects.requireNonNull(locks, "locks must not be null")));
    }

    @Override
    public DistributedLock getRedLock(DistributedLock... locks) {
        ensureOpen();
        return MultiRedisLock.red(java.util.Arrays.asList(Objects.requireNonNull(locks, "locks must not be null")));
    }

    /**
     * {@link Args#name}, the {@link NameMapper} (skipped when it is the identity), {@link Args#name}
     * again on the mapped name, and on a cluster {@link Keys#requireOneSlot}.
     */
    private String name(String name) {
        String n = Args.name(name);
        if (mapper != null) {
            n = mapped(n);
        }
        if (cluster) {
            Keys.requireOneSlot(n);
        }
        return n;
    }

    private String mapped(String name) {
        String m;
        try {
            m = mapper.map(name);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("NameMapper " + mapper + " failed on lock name '" + Args.shown(name)
                    + "': " + e, e);
        }
        try {
            return Args.name(m);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("NameMapper " + mapper + " mapped lock name '" + Args.shown(name)
                    + "' to " + (m == null ? "null" : "'" + Args.shown(m) + "'")
                    + ", which is not a lock name (allowed: not null, not blank, text UTF-8 can encode): "
                    + e.getMessage(), e);
        }
    }

    @Override
    public String clientId() {
        return clientId;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public void addLockLostListener(Consumer<LockLostEvent> listener) {
        lostListeners.add(Objects.requireNonNull(listener, "listener must not be null"));
    }

    @Override
    public void removeLockLostListener(Consumer<LockLostEvent> listener) {
        lostListeners.remove(listener);
    }

    @Override
    public LockClientStats stats() {
        int held = holds.size();
        int waiting = waiters.waiting();
        int channels = waiters.activeChannels();
        return held == 0 && waiting == 0 && channels == 0 ? LockClientStats.IDLE
                : new LockClientStats(held, waiting, channels);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        watchdog.stop();
        holds.close();
        IllegalStateException closedError = new IllegalStateException("this LockClient (" + clientId
                + ") was closed while the call was waiting");
        for (CompletableFuture<?> f : pending.toArray(CompletableFuture[]::new)) {
            f.completeExceptionally(closedError);
        }
        waiters.wakeEveryone();
        timer.shutdownNow();
        if (syncRunner != null) {
            syncRunner.shutdown(); // calls in flight finish (each within the command timeout + WAIT's)
        }
        try {
            CompletableFuture.allOf(waiters.quiesced(), CompletableFuture.allOf(cleanups.toArray(CompletableFuture[]::new)))
                    .get(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (!timer.awaitTermination(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "relock timer did not stop within the command timeout");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(System.Logger.Level.DEBUG, "unsubscribes did not all finish before close", e);
        }
        if (ownsExecutor) {
            executor.close();
        }
    }

    // ---- engine internals shared by the lock types ----

    boolean isClosed() {
        return closed.get();
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("this LockClient (" + clientId() + ") is closed");
        }
    }

    /**
     * Tracks a caller's future until it completes; {@link #close()} fails whatever is still pending.
     * @return {@code f}
     */
    <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        pending.add(f);
        f.whenComplete((v, t) -> pending.remove(f));
        if (closed.get()) {
            f.completeExceptionally(new IllegalStateException("this LockClient (" + clientId + ") is closed"));
        }
        return f;
    }

    /** Tracks a clean-up command until it completes, so close() can wait for it. @return {@code f} */
    <T> CompletableFuture<T> cleanup(CompletableFuture<T> f) {
        cleanups.add(f);
        f.whenComplete((v, t) -> cleanups.remove(f));
        return f;
    }

    /** Schedules on the timer; after close, fails {@code onRejected} instead of throwing. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos, Runnable onRejected) {
        try {
            return timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            onRejected.run();
            return null;
        }
    }

    /** Runs a lock-lost callback off the driver's threads: on the user's executor or the timer. */
    private void runLostCallback(Runnable callback) {
        if (closed.get()) {
            callback.run();
            return;
        }
        try {
            lostExecutor.execute(callback);
        } catch (RejectedExecutionException e) {
            callback.run(); // the executor is shut down: better late on this thread than never
        }
    }

    String publishMode() {
        return publishMode;
    }

    Waiters waiters() {
        return waiters;
    }

    Handoff handoff() {
        return handoff;
    }

    HoldRegistry holds() {
        return holds;
    }

    ScheduledThreadPoolExecutor timer() {
        return timer;
    }

    long watchdogMs() {
        return options.lockWatchdogTimeout().toMillis();
    }

    /** @return a fresh owner id for a lease: negative, so never a live thread's id */
    static long nextLeaseId() {
        return -LEASE_IDS.incrementAndGet();
    }

    /** Runs a script on the calling thread, falling back to EVAL once on NOSCRIPT. */
    Object eval(Script script, List<String> keys, List<String> args) {
        try {
            return executor.evalSha(script, keys, args);
        } catch (NoScriptException e) {
            return executor.eval(script, keys, args);
        }
    }

    /** Runs a script without blocking, falling back to EVAL once on NOSCRIPT. */
    CompletableFuture<Object> evalAsync(Script script, List<String> keys, List<String> args) {
        return executor.evalShaAsync(script, keys, args).exceptionallyCompose(t -> {
            Throwable cause = unwrap(t);
            return cause instanceof NoScriptException
                    ? executor.evalAsync(script, keys, args)
                    : CompletableFuture.failedFuture(cause);
        });
    }

    /** @return whether lock writes are sent with WAIT (LockOptions.replicaSync) */
    boolean replicaSync() {
        return syncReplicas > 0;
    }

    /**
     * Runs a lock write (acquire, release, forceUnlock) on the calling thread: as {@link #eval}
     * when replica sync is off; otherwise pipelined with WAIT.
     *
     * @param what the operation, for the shortfall message
     * @throws ReplicaShortfall if fewer replicas than asked acknowledged (the reply is in it)
     */
    Object evalWrite(String what, Script script, List<String> keys, List<String> args) {
        if (syncReplicas == 0) {
            return eval(script, keys, args);
        }
        List<Object> r = evalSynced(script, keys, args);
        long acked = (Long) r.get(1);
        if (acked < syncReplicas) {
            throw new ReplicaShortfall(what, r.get(0), acked, syncReplicas, syncTimeoutMs);
        }
        return r.get(0);
    }

    /** As {@link #evalWrite}, without blocking the caller (a synced write runs on the sync threads). */
    CompletableFuture<Object> evalWriteAsync(String what, Script script, List<String> keys, List<String> args) {
        if (syncReplicas == 0) {
            return evalAsync(script, keys, args);
        }
        try {
            return CompletableFuture.supplyAsync(() -> evalWrite(what, script, keys, args), syncRunner);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("this LockClient (" + clientId
                    + ") is closed", e));
        }
    }

    /**
     * The watchdog's script runner: plain when replica sync is off; otherwise synced, and a reply
     * acknowledged by too few replicas comes back as a {@link ReplicaShortfall} object (not
     * thrown), so the watchdog can tell "renewed on the master only" from "failed".
     */
    private CompletableFuture<Object> renewAsync(Script script, List<String> keys, List<String> args) {
        if (syncReplicas == 0) {
            return evalAsync(script, keys, args);
        }
        return evalWriteAsync("renewing locks", script, keys, args).exceptionally(t -> {
            Throwable cause = unwrap(t);
            if (cause instanceof ReplicaShortfall s) {
                return s;
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        });
    }

    /**
     * EVALSHA + WAIT on one connection. On NOSCRIPT the script is run once with EVAL (which also
     * caches it), and WAIT is then sent behind a barrier write (a one-millisecond marker key in the
     * first key's slot) so that it covers the EVAL even if it went out on another pooled connection.
     */
    private List<Object> evalSynced(Script script, List<String> keys, List<String> args) {
        try {
            return executor.evalShaWithWait(script, keys, args, syncReplicas, syncTimeoutMs);
        } catch (NoScriptException e) {
            Object reply = executor.eval(script, keys, args);
            List<String> barrierKeys = List.of(Scripts.barrierKey(keys.get(0)));
            List<Object> w;
            try {
                w = executor.evalShaWithWait(Scripts.SYNC_BARRIER, barrierKeys, List.of(), syncReplicas, syncTimeoutMs);
            } catch (NoScriptException again) { // the barrier is idempotent: load it by running it
                executor.eval(Scripts.SYNC_BARRIER, barrierKeys, List.of());
                w = executor.evalShaWithWait(Scripts.SYNC_BARRIER, barrierKeys, List.of(), syncReplicas, syncTimeoutMs);
            }
            return java.util.Arrays.asList(reply, w.get(1));
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Whether a call's failure says it was never sent: the driver refused it before sending (see
     * {@link io.github.relock.spi.CommandExecutor}, "Calls refused before they are sent").
     */
    static boolean notSent(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof RejectedExecutionException) {
                return true;
            }
        }
        return false;
    }

    /** @return the client's event dispatch (listener and JFR) */
    LockEvents events() {
        return events;
    }

    private void fireLost(LockLostEvent event) {
        events.lost(event.lockName(), event.reason());
        for (Consumer<LockLostEvent> l : lostListeners) {
            HoldRegistry.deliver(l, event);
        }
    }
}
