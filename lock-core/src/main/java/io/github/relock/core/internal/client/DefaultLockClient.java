package io.github.relock.core.internal.client;

import io.github.relock.api.FencedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockClientStats;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.NameMapper;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.Watchdog;
import io.github.relock.core.internal.lock.ClientServices;
import io.github.relock.core.internal.observe.LockEvents;
import io.github.relock.core.internal.protocol.ProtocolContext;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.sync.Sync;
import io.github.relock.core.internal.util.Args;
import io.github.relock.core.internal.util.Keys;
import io.github.relock.core.internal.wait.Handoff;
import io.github.relock.core.internal.wait.Waiters;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The engine's {@link LockClient}: makes the locks, and owns the client's lifetime. It builds the
 * per-client services every lock shares ({@link ClientServices}: the script runner, the hold registry with
 * its watchdog, the channels, the hand-off lines, one timer thread, on a cluster one renewal
 * thread that asks the driver which node serves a slot off the timer, and with
 * {@code LockOptions.replicaSync} a cached pool for synced async writes) and tears them down in
 * order on {@link #close()}. Exposed to {@code io.github.relock.core.RedisLocks} only (the package
 * is not exported).
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class DefaultLockClient extends ClientObjects {
    private static final System.Logger LOG = System.getLogger(DefaultLockClient.class.getName());
    /** Threads that run async lock writes waiting for replicas (each holds one for a replication round trip). */
    private static final int REPLICA_COUNT_THREADS = 2;
    private static final AtomicLong THREAD_IDS = new AtomicLong();

    private final CommandExecutor executor;
    private final LockOptions options;
    /** The lock-name mapper; null when it is the identity, so getting a lock does no extra work. */
    private final NameMapper mapper;
    private final boolean ownsExecutor;
    /** Whether the deployment is a Redis Cluster: lock names must then keep their keys in one slot. */
    private final boolean cluster;
    private final ClientServices services;
    /** The synchronizers' services (semaphores, latches). */
    private final Sync sync;
    private final Waiters waiters;
    /** The driver reported its pub/sub connection broken and not yet back ({@link LockClientStats#pubSubReconnecting()}). */
    private volatile boolean pubSubReconnecting;
    private final HoldRegistry holds;
    private final Watchdog watchdog;
    private final ScheduledThreadPoolExecutor timer;
    private final ExecutorService replicaWaitRunner;
    /** On a cluster: where the watchdog's rounds ask the driver for slot owners (never the timer); else null. */
    private final java.util.concurrent.ThreadPoolExecutor renewRounds;
    private final CopyOnWriteArrayList<Consumer<LockLostEvent>> lostListeners = new CopyOnWriteArrayList<>();
    private final Executor lostExecutor;
    /** What this client's own objects are made over. */
    private final Parts parts;
    /** Leader-election candidates that joined and have not left: close() makes them leave first. */
    private final java.util.Set<Election> elections = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private DefaultLockClient(CommandExecutor executor, LockOptions options, boolean ownsExecutor) {
        this.executor = executor;
        this.options = options;
        this.ownsExecutor = ownsExecutor;
        String clientId = options.clientId().orElseGet(() -> UUID.randomUUID().toString());
        this.mapper = options.nameMapper() == NameMapper.identity() ? null : options.nameMapper();
        this.cluster = executor.capabilities().contains(Capability.CLUSTER);
        boolean sharded = cluster && executor.capabilities().contains(Capability.SHARDED_PUBSUB);
        LockEvents events = new LockEvents(options.eventListener());
        int replicasToAck = options.replicaSyncReplicas();
        boolean connectedReplicas = options.replicaSyncConnected()
                && executor.capabilities().contains(Capability.REPLICA_WAIT);
        if (options.replicaSyncConnected() && !connectedReplicas) {
            LOG.log(System.Logger.Level.INFO, "lock writes of client " + clientId + " do not wait for replicas: "
                    + executor.getClass().getName() + " does not declare " + Capability.REPLICA_WAIT
                    + " (LockOptions.replicaSync's default needs it)");
        }
        // Learns the replica count of a node (INFO replication), once per node and in the background
        // every ten seconds; writes with WAIT go through the driver's async form, never these threads.
        ThreadPoolExecutor replicaWaits = null;
        if (replicasToAck > 0 || connectedReplicas) {
            replicaWaits = new ThreadPoolExecutor(REPLICA_COUNT_THREADS, REPLICA_COUNT_THREADS, 60, TimeUnit.SECONDS,
                    new java.util.concurrent.LinkedBlockingQueue<>(), r -> daemon(r, "relock-replica-count-"));
            replicaWaits.allowCoreThreadTimeOut(true);
        }
        this.replicaWaitRunner = replicaWaits;
        ScriptRunner runner = new ScriptRunner(executor, replicasToAck, connectedReplicas,
                options.replicaSyncTimeout().map(java.time.Duration::toMillis).orElse(0L), replicaWaitRunner, clientId);
        this.timer = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "relock-timer-"));
        this.timer.setRemoveOnCancelPolicy(true);
        this.lostExecutor = options.lockLostExecutor().orElse(timer);
        this.waiters = new Waiters(executor, sharded, events::serverFallback);
        if (cluster && !sharded) { // the server has no SSUBSCRIBE (the driver asked), or the driver cannot send it
            events.serverFallback(io.github.relock.api.ServerFallback.CLASSIC_PUBSUB, "the driver "
                    + executor.getClass().getSimpleName() + " declares no " + Capability.SHARDED_PUBSUB
                    + " on this cluster: its servers lack sharded pub/sub, or the driver does");
        }
        executor.setConnectionListener(new io.github.relock.spi.ConnectionListener() {
            @Override
            public void onReconnect() {
                pubSubReconnecting = false;
                runner.forgetReplicaCounts();
                waiters.onReconnect();
            }

            @Override
            public void onDisconnect() {
                pubSubReconnecting = true;
            }
        });
        Handoff handoff = new Handoff(options.localHandoffMaxConsecutive(), options.localHandoffMaxRun().toNanos());
        long watchdogMs = options.lockWatchdogTimeout().toMillis();
        this.holds = new HoldRegistry(watchdogMs, this::fireLost, this::runLostCallback);
        // Cluster: reach both Redisson 3.x (classic) and 4.x (sharded) subscribers; pcall in the
        // scripts keeps servers without SPUBLISH working.
        ProtocolContext protocols = new ProtocolContext(cluster ? "BOTH" : "PUBLISH",
                options.fairLockWaitTimeout().toMillis(), options.spinBackOffInitial().toMillis(),
                options.spinBackOffMax().toMillis(), sharded ? 1 : 0, cluster ? key -> {
                    // A node counts only the classic subscribers connected to it (review 3 #5)
                    Boolean here = executor.classicPubSubOnNodeOf(io.github.relock.spi.Slots.slot(key));
                    return here == null || here ? 1 : 0;
                } : key -> 1, directedWakes(cluster) ? clientId : null, waiters::joined,
                waiters::listening);
        waiters.leaveRunner(call -> runner.runAsync(call).exceptionally(t -> {
            // Lost: the registration ages out, and a wake-up it held costs the others the TTL they saw.
            LOG.log(System.Logger.Level.DEBUG, "leaving the waiting clients of a lock failed: {0}", t.toString());
            return null;
        }));
        this.services = new ClientServices(clientId, options, runner, holds, waiters, handoff, events, protocols, timer);
        this.sync = new Sync(services, this::fireLost, this::runLostCallback);
        if (cluster) {
            // One thread, started by the first round and ended after a minute without one.
            this.renewRounds = new java.util.concurrent.ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS,
                    new java.util.concurrent.LinkedBlockingQueue<>(), r -> daemon(r, "relock-renew-"));
            this.renewRounds.allowCoreThreadTimeOut(true);
        } else {
            this.renewRounds = null;
        }
        long renewTimeoutMs = Math.min(options.commandTimeout().toMillis(), watchdogMs);
        this.watchdog = new Watchdog(holds, (s, k, a) -> runner.renewAsync(s, k, a, renewTimeoutMs / 2), timer,
                watchdogMs, options.renewalBatchSize(), cluster, executor::nodeOfSlot, renewTimeoutMs, events,
                renewRounds != null ? renewRounds : Runnable::run);
        watchdog.start();
        this.parts = new Parts(services, sync, new Inspector(runner, services::cohortOwner));
        options.ownerInfo().ifPresent(info -> registerOwner(runner, clientId, info, watchdogMs));
    }

    /** The JVM-wide switch for directed wake-ups: {@value #DIRECTED_WAKES_PROPERTY} = on, off or default. */
    static final String DIRECTED_WAKES_PROPERTY = "relock.directedWakes";

    /**
     * Directed wake-ups (issue 37 item 4, fragments/wake.lua): a release wakes one waiting relock
     * client, on its own channel, instead of every subscribed one. One server and Sentinel only: on
     * a cluster a node cannot count the classic subscribers of other nodes, so it cannot know that
     * no Redisson waiter listens. On unless {@value #DIRECTED_WAKES_PROPERTY} is {@code off}: with
     * the woken client named on its own channel, 32 clients (one thread each) run 3.0 scripts per
     * acquisition against 30 broadcast and reach more acquisitions/s than 8 broadcast clients
     * (BenchmarkReport scenario n). In the mixed-fleet probe (two threads each of relock-jedis,
     * relock-lettuce and Redisson on one lock, 2 rounds of 4 s) Redisson's share was 8.0 % / 4.9 %
     * with it on (local hand-off on / off) against 2.8 % / 2.3 % off, and its longest wait 659 /
     * 536 ms against 1036 / 584 ms: a Redisson waiter listening makes every release publish "0".
     */
    static boolean directedWakes(boolean cluster) {
        return !cluster && !"off".equalsIgnoreCase(System.getProperty(DIRECTED_WAKES_PROPERTY, "default").strip());
    }

    /**
     * Keeps this client's owner info under {@code relock:{clients}:<clientId>} with a TTL of the
     * watchdog timeout, rewritten every third of it on the timer (as renewal), so it disappears
     * within one watchdog timeout of a crash. A failed write is retried at the next period.
     */
    private void registerOwner(ScriptRunner runner, String clientId, io.github.relock.api.OwnerInfo info, long ttlMs) {
        java.util.List<String> keys = java.util.List.of(Inspector.ownerKey(clientId));
        java.util.List<String> args = java.util.List.of(info.host(), info.application(), info.instance(), info.version(),
                Long.toString(ttlMs));
        long period = Math.max(1, ttlMs / 3);
        timer.scheduleAtFixedRate(() -> runner.evalAsync(io.github.relock.core.internal.util.Scripts.OWNER_REGISTER, keys, args).whenComplete((r, t) -> {
            if (t != null) {
                LOG.log(System.Logger.Level.DEBUG, "registering owner info of client " + clientId + " failed", t);
            }
        }), 0, period, TimeUnit.MILLISECONDS);
    }

    private static Thread daemon(Runnable r, String prefix) {
        Thread t = new Thread(r, prefix + THREAD_IDS.incrementAndGet());
        t.setDaemon(true);
        return t;
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
        if (options.replicaSyncReplicas() > 0 && !executor.capabilities().contains(Capability.REPLICA_WAIT)) {
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
    public LockClient withCommandTimeout(java.time.Duration commandTimeout) {
        Objects.requireNonNull(commandTimeout, "commandTimeout must not be null");
        services.ensureOpen();
        if (commandTimeout.compareTo(java.time.Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("commandTimeout must be at least 1 ms, was " + commandTimeout);
        }
        if (commandTimeout.compareTo(options.commandTimeout()) > 0) {
            throw new IllegalArgumentException("commandTimeout " + commandTimeout + " is longer than this client's"
                    + " command timeout " + options.commandTimeout() + ", which its driver enforces underneath;"
                    + " raise LockOptions.commandTimeout instead and shorten it per object");
        }
        if (commandTimeout.equals(options.commandTimeout())) {
            return this;
        }
        ClientServices bounded = services.withRunner(services.runner().bounded(commandTimeout));
        return new TimeoutView(bounded, sync.withServices(bounded), options.toBuilder().commandTimeout(commandTimeout).build());
    }

    @Override
    Parts parts() {
        return parts;
    }

    /** @return whether the deployment is a Redis Cluster */
    boolean cluster() {
        return cluster;
    }

    /** @return a new candidate in the election of {@code name} on {@code lock}; close() makes it leave */
    io.github.relock.api.LeaderElection elect(String name, FencedLock lock, ClientServices on,
                                              java.util.function.Function<String, io.github.relock.api.LockInspection> inspect) {
        return new Election(name, lock, on, inspect, this::runLostCallback, elections);
    }

    /**
     * {@link Args#name}, the {@link NameMapper} (skipped when it is the identity), {@link Args#name}
     * again on the mapped name, and on a cluster {@link Keys#requireOneSlot}; after checking the
     * client is open.
     */
    String name(String name) {
        services.ensureOpen();
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
        return services.clientId();
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    DefaultLockClient client() {
        return this;
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
        boolean reconnecting = pubSubReconnecting;
        return held == 0 && waiting == 0 && channels == 0 && !reconnecting ? LockClientStats.IDLE
                : new LockClientStats(held, waiting, channels, reconnecting);
    }

    @Override
    public java.util.List<io.github.relock.api.HeldLock> heldLocks() {
        return holds.snapshot();
    }

    /**
     * Closes the client. In order: joined leader-election candidates leave (a leader releases its lock); renewal stops and every hold still registered is reported
     * CLIENT_CLOSED; every caller still waiting asynchronously is failed; every wait of this
     * client, one whose first attempt is still on its way included (that attempt may have queued
     * it), is woken and waited for (up to the command timeout) while it leaves its channel,
     * its hand-off offer and, for a fair lock, its queue entry and deadline in Redis, so no queue
     * entry outlives a closed client's waiter; unsubscribes finish; the timer stops; the driver is
     * closed if this client opened it. If Redis cannot be reached, the queue entries are left to
     * expire (at most fairLockWaitTimeout) and close() returns after the command timeout.
     */
    @Override
    public void close() {
        if (!services.isClosed()) {
            java.util.List<Election> leaving = java.util.List.copyOf(elections);
            for (Election e : leaving) {
                e.leave(); // releases a leader's lock while the client can still send
            }
            // Their LEFT listeners run on the timer (or the lost executor): let them run before it stops.
            long end = System.nanoTime() + options.commandTimeout().toNanos();
            for (Election e : leaving) {
                while (!e.quiet() && System.nanoTime() - end < 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                }
            }
        }
        if (!services.close()) {
            return;
        }
        watchdog.stop();
        holds.close();
        sync.close();
        services.failPending();
        long timeoutNanos = options.commandTimeout().toNanos();
        waiters.closeAll(timeoutNanos);
        timer.shutdownNow();
        if (renewRounds != null) {
            renewRounds.shutdownNow(); // a round stuck in the driver is interrupted; sends in flight answer anyway
        }
        if (replicaWaitRunner != null) {
            replicaWaitRunner.shutdown(); // calls in flight finish (each within the command timeout + WAIT's)
        }
        try {
            waiters.quiesced().get(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (!timer.awaitTermination(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "relock timer did not stop within the command timeout");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(System.Logger.Level.DEBUG, "unsubscribes did not all finish before close", e);
        }
        if (options.ownerInfo().isPresent()) {
            try {
                services.runner().eval(io.github.relock.core.internal.util.Scripts.OWNER_DELETE, java.util.List.of(Inspector.ownerKey(clientId())),
                        java.util.List.of());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "could not delete the owner info of client " + clientId()
                        + "; it expires within the watchdog timeout", e);
            }
        }
        if (ownsExecutor) {
            executor.close();
        }
    }

    /** Runs a lock-lost callback off the driver's threads: on the user's executor or the timer. */
    private void runLostCallback(Runnable callback) {
        if (services == null || services.isClosed()) {
            callback.run();
            return;
        }
        try {
            lostExecutor.execute(callback);
        } catch (RejectedExecutionException e) {
            callback.run(); // the executor is shut down: better late on this thread than never
        }
    }

    private void fireLost(LockLostEvent event) {
        services.events().lost(event.lockName(), event.reason());
        for (Consumer<LockLostEvent> l : lostListeners) {
            HoldRegistry.deliver(l, event);
        }
    }

    /**
     * A view of this client whose objects bound their calls by their own command timeout
     * ({@link #withCommandTimeout}): its own services (a bounded runner); all else is the client's.
     */
    private final class TimeoutView extends ClientObjects {
        private final Parts viewParts;
        private final LockOptions viewOptions;

        TimeoutView(ClientServices viewServices, Sync viewSync, LockOptions viewOptions) {
            this.viewParts = new Parts(viewServices, viewSync, new Inspector(viewServices.runner(), viewServices::cohortOwner));
            this.viewOptions = viewOptions;
        }

        @Override
        Parts parts() {
            return viewParts;
        }

        @Override
        public LockClient withCommandTimeout(java.time.Duration commandTimeout) {
            return DefaultLockClient.this.withCommandTimeout(commandTimeout);
        }

        @Override
        public String clientId() {
            return DefaultLockClient.this.clientId();
        }

        @Override
        public LockOptions options() {
            return viewOptions;
        }

        @Override
        public void addLockLostListener(Consumer<LockLostEvent> listener) {
            DefaultLockClient.this.addLockLostListener(listener);
        }

        @Override
        public void removeLockLostListener(Consumer<LockLostEvent> listener) {
            DefaultLockClient.this.removeLockLostListener(listener);
        }

        @Override
        public LockClientStats stats() {
            return DefaultLockClient.this.stats();
        }

        @Override
        public java.util.List<io.github.relock.api.HeldLock> heldLocks() {
            return DefaultLockClient.this.heldLocks();
        }

        @Override
        public void close() {
            DefaultLockClient.this.close();
        }

        @Override
        public String toString() {
            return "LockClient " + clientId() + " with command timeout " + viewOptions.commandTimeout();
        }

        @Override
        DefaultLockClient client() {
            return DefaultLockClient.this;
        }
    }
}
