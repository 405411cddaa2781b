package io.github.relock.api;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Immutable settings of a {@link LockClient}. Defaults match Redisson's code, so mixed fleets
 * agree: watchdog 30 s, fair-lock wait 300 s, lock writes acknowledged by the connected replicas
 * within 1 s ({@link Builder#replicaSync(Duration)}).
 *
 * <pre>{@code
 * LockOptions options = LockOptions.builder().lockWatchdogTimeout(Duration.ofSeconds(10)).build();
 * }</pre>
 *
 * <p>Thread-safety: immutable; the {@link Builder} is not thread-safe.
 */
public final class LockOptions {

    /** Redisson's {@code lockWatchdogTimeout} default. */
    public static final Duration DEFAULT_LOCK_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);
    /** Redisson's {@code fairLockWaitTimeout} as its code has it (its docs say 5 s). */
    public static final Duration DEFAULT_FAIR_LOCK_WAIT_TIMEOUT = Duration.ofMinutes(5);
    /** How long one Redis command may take before it fails with {@link RedisUnavailableException}. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    /** How long a waiter waits for its SUBSCRIBE to be confirmed (Redisson: 7.5 s). */
    public static final Duration DEFAULT_SUBSCRIPTION_TIMEOUT = Duration.ofMillis(7500);
    /**
     * How often an idle pub/sub connection is probed with a {@code PING} by default: 10 s. A link
     * that a NAT or load balancer dropped without a reset is noticed within this plus one command
     * timeout, and reopened.
     */
    public static final Duration DEFAULT_PUB_SUB_PROBE_INTERVAL = Duration.ofSeconds(10);
    /** A spin-lock waiter's first pause between attempts (Redisson's exponential back-off: 1 ms). */
    public static final Duration DEFAULT_SPIN_BACK_OFF_INITIAL = Duration.ofMillis(1);
    /** A spin-lock waiter's longest pause between attempts (Redisson's: 128 ms). */
    public static final Duration DEFAULT_SPIN_BACK_OFF_MAX = Duration.ofMillis(128);
    /**
     * Held locks renewed by one script (Redisson's {@code lockWatchdogBatchSize}, whose default is
     * 100): 500, so 10,000 held locks cost 20 scripts per renewal period, sent several at a time.
     */
    public static final int DEFAULT_RENEWAL_BATCH_SIZE = 500;
    /**
     * Longest run of consecutive local hand-offs of one lock before a release is an ordinary one
     * that other clients' waiters can take (see {@link Builder#localHandoff}): 16.
     */
    public static final int DEFAULT_LOCAL_HANDOFF_MAX_CONSECUTIVE = 16;
    /** Longest time one run of local hand-offs may keep a lock from other clients: 20 ms. */
    public static final Duration DEFAULT_LOCAL_HANDOFF_MAX_RUN = Duration.ofMillis(20);
    /** Longest run of cohort passes (no Redis call) before the outsider signal is read again: 64 (see {@link Builder#cohort}). */
    public static final int DEFAULT_COHORT_MAX_PASSES = 64;
    /** Longest time one run of cohort passes may last before the outsider signal is read again: 10 ms. */
    public static final Duration DEFAULT_COHORT_MAX_RUN = Duration.ofMillis(10);
    /**
     * How long a lock write waits for the connected replicas by default (Redisson's
     * {@code slavesSyncTimeout}): 1 s.
     */
    public static final Duration DEFAULT_REPLICA_SYNC_TIMEOUT = Duration.ofSeconds(1);
    /** {@code replicaSyncReplicas} meaning "the replicas the serving node has connected". */
    private static final int CONNECTED_REPLICAS = -1;

    private final Duration lockWatchdogTimeout;
    private final Duration fairLockWaitTimeout;
    private final Duration commandTimeout;
    private final Duration subscriptionTimeout;
    private final Duration pubSubProbeInterval;
    private final int renewalBatchSize;
    private final String clientId;
    private final Executor lockLostExecutor;
    private final Duration spinBackOffInitial;
    private final Duration spinBackOffMax;
    private final int replicaSyncReplicas;
    private final Duration replicaSyncTimeout;
    private final NameMapper nameMapper;
    private final LockEventListener eventListener;
    private final int localHandoffMaxConsecutive;
    private final Duration localHandoffMaxRun;
    private final int cohortMaxPasses;
    private final Duration cohortMaxRun;
    private final OwnerInfo ownerInfo;

    private LockOptions(Builder b) {
        this.lockWatchdogTimeout = b.lockWatchdogTimeout;
        this.fairLockWaitTimeout = b.fairLockWaitTimeout;
        this.commandTimeout = b.commandTimeout;
        this.subscriptionTimeout = b.subscriptionTimeout;
        this.pubSubProbeInterval = b.pubSubProbeInterval;
        this.renewalBatchSize = b.renewalBatchSize;
        this.clientId = b.clientId;
        this.lockLostExecutor = b.lockLostExecutor;
        this.spinBackOffInitial = b.spinBackOffInitial;
        this.spinBackOffMax = b.spinBackOffMax;
        this.replicaSyncReplicas = b.replicaSyncReplicas;
        this.replicaSyncTimeout = b.replicaSyncTimeout;
        this.nameMapper = b.nameMapper;
        this.eventListener = b.eventListener;
        this.localHandoffMaxConsecutive = b.localHandoffMaxConsecutive;
        this.localHandoffMaxRun = b.localHandoffMaxRun;
        this.cohortMaxPasses = b.cohortMaxPasses;
        this.cohortMaxRun = b.cohortMaxRun;
        this.ownerInfo = b.ownerInfo;
    }

    /** @return options with every default (each client made from them picks its own random id) */
    public static LockOptions defaults() {
        return builder().build();
    }

    /** @return a builder holding the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding these options (including the client id) */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.lockWatchdogTimeout = lockWatchdogTimeout;
        b.fairLockWaitTimeout = fairLockWaitTimeout;
        b.commandTimeout = commandTimeout;
        b.subscriptionTimeout = subscriptionTimeout;
        b.pubSubProbeInterval = pubSubProbeInterval;
        b.renewalBatchSize = renewalBatchSize;
        b.clientId = clientId;
        b.lockLostExecutor = lockLostExecutor;
        b.spinBackOffInitial = spinBackOffInitial;
        b.spinBackOffMax = spinBackOffMax;
        b.replicaSyncReplicas = replicaSyncReplicas;
        b.replicaSyncTimeout = replicaSyncTimeout;
        b.nameMapper = nameMapper;
        b.eventListener = eventListener;
        b.localHandoffMaxConsecutive = localHandoffMaxConsecutive;
        b.localHandoffMaxRun = localHandoffMaxRun;
        b.cohortMaxPasses = cohortMaxPasses;
        b.cohortMaxRun = cohortMaxRun;
        b.ownerInfo = ownerInfo;
        return b;
    }

    /** @return TTL of locks taken without a lease; renewed every third of it while held */
    public Duration lockWatchdogTimeout() {
        return lockWatchdogTimeout;
    }

    /** @return how long a fair-lock waiter that stops polling keeps its place in the queue */
    public Duration fairLockWaitTimeout() {
        return fairLockWaitTimeout;
    }

    /** @return the longest time one Redis command may take */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** @return the longest wait for a pub/sub subscription to be confirmed */
    public Duration subscriptionTimeout() {
        return subscriptionTimeout;
    }

    /**
     * @return how often the driver probes its pub/sub connections with a {@code PING} (answered
     *     within {@link #commandTimeout()}, or the link is broken and reopened); zero: never
     */
    public Duration pubSubProbeInterval() {
        return pubSubProbeInterval;
    }

    /** @return how many held locks one renewal script renews */
    public int renewalBatchSize() {
        return renewalBatchSize;
    }

    /**
     * @return the explicit client id written into every owner field ({@code <clientId>:<threadId>}),
     *     or empty: then every {@link LockClient} made from these options picks its own random UUID,
     *     so two clients never share owner fields by accident (see {@link LockClient#clientId()})
     */
    public Optional<String> clientId() {
        return Optional.ofNullable(clientId);
    }

    /**
     * @return where lock-lost callbacks run, or empty for the client's own timer thread; never a
     *     driver I/O thread either way
     */
    public Optional<Executor> lockLostExecutor() {
        return Optional.ofNullable(lockLostExecutor);
    }

    /**
     * @return a spin-lock waiter's first pause between attempts; each next pause doubles, up to
     *     {@link #spinBackOffMax()}, plus a random term of up to a tenth of it
     */
    public Duration spinBackOffInitial() {
        return spinBackOffInitial;
    }

    /** @return a spin-lock waiter's longest pause between attempts (before the random term) */
    public Duration spinBackOffMax() {
        return spinBackOffMax;
    }

    /**
     * @return whether lock writes wait for replica acknowledgement: the default
     *     ({@link Builder#replicaSync(Duration)}) or a pinned count ({@link Builder#replicaSync(int, Duration)});
     *     false only after {@link Builder#noReplicaSync()}
     */
    public boolean replicaSyncEnabled() {
        return replicaSyncReplicas != 0;
    }

    /**
     * @return whether lock writes wait for the replicas the serving node has connected, failing only
     *     when none acknowledged (the default, as Redisson's {@code checkLockSyncedSlaves})
     */
    public boolean replicaSyncConnected() {
        return replicaSyncReplicas == CONNECTED_REPLICAS;
    }

    /**
     * @return how many replicas must acknowledge each lock write when the count is pinned
     *     ({@link Builder#replicaSync(int, Duration)}); 0 when replica sync is off or waits for the
     *     connected replicas ({@link #replicaSyncConnected()})
     */
    public int replicaSyncReplicas() {
        return Math.max(0, replicaSyncReplicas);
    }

    /** @return how long each lock write waits for replica acknowledgement, or empty when off */
    public Optional<Duration> replicaSyncTimeout() {
        return Optional.ofNullable(replicaSyncTimeout);
    }

    /** @return maps lock names to names in Redis (see {@link Builder#nameMapper}); identity by default */
    public NameMapper nameMapper() {
        return nameMapper;
    }

    /** @return the event listener ({@link LockEventListener#NOOP} when none is configured) */
    public LockEventListener eventListener() {
        return eventListener;
    }

    /**
     * @return whether an unlock may pass a held reentrant lock to a waiting owner of the same client
     *     with no Redis call (see {@link Builder#cohort}); the system property {@code relock.cohort}
     *     ({@code on}, {@code off}, {@code default}) overrides it for every client of the JVM
     */
    public boolean cohortEnabled() {
        return cohortMaxPasses > 0;
    }

    /** @return the longest run of cohort passes, 0 when cohort hand-off is off */
    public int cohortMaxPasses() {
        return cohortMaxPasses;
    }

    /** @return the longest time one run of cohort passes may last */
    public Duration cohortMaxRun() {
        return cohortMaxRun;
    }

    /** @return whether a release may hand the lock straight to a waiting thread of the same client (see {@link Builder#localHandoff}) */
    public boolean localHandoffEnabled() {
        return localHandoffMaxConsecutive > 0;
    }

    /** @return the longest run of consecutive local hand-offs of one lock, or 0 when local hand-off is off */
    public int localHandoffMaxConsecutive() {
        return localHandoffMaxConsecutive;
    }

    /** @return the longest time one run of local hand-offs may last (meaningless when local hand-off is off) */
    public Duration localHandoffMaxRun() {
        return localHandoffMaxRun;
    }

    /**
     * @return who the client says it is (see {@link Builder#ownerInfo}), or empty: then it registers
     *     nothing, and inspections show only its client id
     */
    public Optional<OwnerInfo> ownerInfo() {
        return Optional.ofNullable(ownerInfo);
    }

    @Override
    public String toString() {
        return "LockOptions{lockWatchdogTimeout=" + lockWatchdogTimeout
                + ", fairLockWaitTimeout=" + fairLockWaitTimeout
                + ", commandTimeout=" + commandTimeout
                + ", subscriptionTimeout=" + subscriptionTimeout
                + ", pubSubProbeInterval=" + pubSubProbeInterval
                + ", renewalBatchSize=" + renewalBatchSize
                + ", clientId=" + (clientId == null ? "(random per client)" : clientId)
                + ", spinBackOff=" + spinBackOffInitial + ".." + spinBackOffMax
                + (replicaSyncReplicas == 0 ? ", replicaSync=off"
                        : ", replicaSync=" + (replicaSyncReplicas == CONNECTED_REPLICAS ? "connected"
                                : String.valueOf(replicaSyncReplicas)) + " replica(s) within " + replicaSyncTimeout)
                + (lockLostExecutor == null ? "" : ", lockLostExecutor=" + lockLostExecutor)
                + (nameMapper == NameMapper.identity() ? "" : ", nameMapper=" + nameMapper)
                + (localHandoffMaxConsecutive == 0 ? ", localHandoff=off"
                        : ", localHandoff=" + localHandoffMaxConsecutive + " within " + localHandoffMaxRun)
                + (cohortMaxPasses == 0 ? "" : ", cohort=" + cohortMaxPasses + " within " + cohortMaxRun)
                + (eventListener == LockEventListener.NOOP ? "" : ", eventListener=" + eventListener)
                + (ownerInfo == null ? "" : ", ownerInfo=" + ownerInfo) + '}';
    }

    /**
     * Builds {@link LockOptions}; each setter checks its value at once.
     *
     * <p>Thread-safety: not thread-safe; confine a builder to one thread.
     */
    public static final class Builder {
        private Duration lockWatchdogTimeout = DEFAULT_LOCK_WATCHDOG_TIMEOUT;
        private Duration fairLockWaitTimeout = DEFAULT_FAIR_LOCK_WAIT_TIMEOUT;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration subscriptionTimeout = DEFAULT_SUBSCRIPTION_TIMEOUT;
        private Duration pubSubProbeInterval = DEFAULT_PUB_SUB_PROBE_INTERVAL;
        private int renewalBatchSize = DEFAULT_RENEWAL_BATCH_SIZE;
        private String clientId;
        private Executor lockLostExecutor;
        private Duration spinBackOffInitial = DEFAULT_SPIN_BACK_OFF_INITIAL;
        private Duration spinBackOffMax = DEFAULT_SPIN_BACK_OFF_MAX;
        private int replicaSyncReplicas = CONNECTED_REPLICAS;
        private Duration replicaSyncTimeout = DEFAULT_REPLICA_SYNC_TIMEOUT;
        private NameMapper nameMapper = NameMapper.identity();
        private LockEventListener eventListener = LockEventListener.NOOP;
        private int localHandoffMaxConsecutive = DEFAULT_LOCAL_HANDOFF_MAX_CONSECUTIVE;
        private Duration localHandoffMaxRun = DEFAULT_LOCAL_HANDOFF_MAX_RUN;
        private int cohortMaxPasses;
        private Duration cohortMaxRun = DEFAULT_COHORT_MAX_RUN;
        private OwnerInfo ownerInfo;

        private Builder() {
        }

        /**
         * @param timeout at least 30 ms (renewal runs every third of it)
         * @return this builder
         */
        public Builder lockWatchdogTimeout(Duration timeout) {
            this.lockWatchdogTimeout = atLeast("lockWatchdogTimeout", timeout, Duration.ofMillis(30));
            return this;
        }

        /**
         * @param timeout at least 1 ms
         * @return this builder
         */
        public Builder fairLockWaitTimeout(Duration timeout) {
            this.fairLockWaitTimeout = atLeast("fairLockWaitTimeout", timeout, Duration.ofMillis(1));
            return this;
        }

        /**
         * @param timeout at least 1 ms
         * @return this builder
         */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = atLeast("commandTimeout", timeout, Duration.ofMillis(1));
            return this;
        }

        /**
         * @param timeout at least 1 ms
         * @return this builder
         */
        public Builder subscriptionTimeout(Duration timeout) {
            this.subscriptionTimeout = atLeast("subscriptionTimeout", timeout, Duration.ofMillis(1));
            return this;
        }

        /**
         * How often the driver sends a {@code PING} on each of its pub/sub connections: one that
         * gets no answer within {@link #commandTimeout(Duration)} is broken and reopened, and
         * waiters poll at once, as after any reconnect. This notices a link that a NAT or load
         * balancer dropped without a reset (it would otherwise look subscribed forever, and every
         * wait would last up to the lock's TTL), and keeps an idle flow from being dropped at all.
         *
         * @param interval zero to never probe, else at least 10 ms
         * @return this builder
         */
        public Builder pubSubProbeInterval(Duration interval) {
            Objects.requireNonNull(interval, "pubSubProbeInterval must not be null");
            this.pubSubProbeInterval = interval.isZero() ? interval
                    : atLeast("pubSubProbeInterval", interval, Duration.ofMillis(10));
            return this;
        }

        /**
         * @param size 1 to 1000 locks per renewal script
         * @return this builder
         */
        public Builder renewalBatchSize(int size) {
            if (size < 1 || size > 1000) {
                throw new IllegalArgumentException("renewalBatchSize must be 1..1000, was " + size);
            }
            this.renewalBatchSize = size;
            return this;
        }

        /**
         * @param clientId the {@code <clientId>} of owner fields; not blank, no {@code ':'}
         *     (Redisson uses a random UUID, which is the default: each client then picks its own).
         *     Give two live clients the same id only if they are meant to act as one owner.
         * @return this builder
         */
        public Builder clientId(String clientId) {
            Objects.requireNonNull(clientId, "clientId must not be null");
            if (clientId.isBlank() || clientId.indexOf(':') >= 0) {
                throw new IllegalArgumentException(
                        "clientId must be non-blank and contain no ':', was '" + clientId + "'");
            }
            this.clientId = clientId;
            return this;
        }

        /**
         * @param executor runs lock-lost callbacks ({@code LockLease.onLost}, lock-lost listeners);
         *     by default they run on the client's timer thread. Callbacks for holds still held at
         *     {@code close()} run on the closing thread, before {@code close()} returns.
         * @return this builder
         */
        public Builder lockLostExecutor(Executor executor) {
            this.lockLostExecutor = Objects.requireNonNull(executor, "lockLostExecutor must not be null");
            return this;
        }

        /**
         * The spin lock's exponential back-off (it uses no pub/sub, so waiters poll): the first
         * pause is {@code initial}, each next one doubles up to {@code max}, and each gets a random
         * term of up to a tenth of it so that waiters do not poll in step.
         *
         * @param initial at least 1 ms, at most {@code max}
         * @param max at least 1 ms, at most 1 minute
         * @return this builder
         */
        public Builder spinBackOff(Duration initial, Duration max) {
            Duration i = atLeast("spinBackOff initial", initial, Duration.ofMillis(1));
            Duration m = atLeast("spinBackOff max", max, Duration.ofMillis(1));
            if (m.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("spinBackOff max must be at most 60000 ms, was " + describe(m));
            }
            if (i.compareTo(m) > 0) {
                throw new IllegalArgumentException("spinBackOff initial must not exceed max, was "
                        + describe(i) + " > " + describe(m));
            }
            this.spinBackOffInitial = i;
            this.spinBackOffMax = m;
            return this;
        }

        /**
         * Replica acknowledgement for the replicas the serving node has connected: the default, with
         * a timeout of {@link #DEFAULT_REPLICA_SYNC_TIMEOUT} (Redisson's {@code checkLockSyncedSlaves
         * = true} with {@code slavesSyncTimeout = 1000}). Every lock write is pipelined with
         * {@code WAIT n timeout}, where {@code n} is how many replicas the node serving the lock's key
         * reports connected ({@code connected_slaves} of {@code INFO replication}); the call fails only
         * when <em>none</em> of them acknowledged, as Redisson's does, in the ways listed on
         * {@link #replicaSync(int, Duration)}.
         *
         * <p><b>Cost:</b> a node with no replicas gets no {@code WAIT} at all: each lock write is the
         * plain script. The count is learned with one {@code INFO replication} per node when the
         * client first writes there, cached, and learned
         * again in the background after a {@code WAIT} counted a different number, after the pub/sub
         * connection was re-established (a failover), and at most every ten seconds while locks are
         * written, so a replica attached later is waited for. A node with replicas costs one
         * replication round trip per lock write, as with a pinned count. Local hand-off is off on
         * nodes with replicas.
         *
         * <p>A driver without the {@code REPLICA_WAIT} capability (relock's Spring Data driver) sends
         * no {@code WAIT} in this mode, and says so once in the log at creation.
         *
         * @param timeout 1 ms to 1 minute; how long each write waits for the acknowledgements
         * @return this builder
         */
        public Builder replicaSync(Duration timeout) {
            this.replicaSyncTimeout = replicaSyncTimeoutOf(timeout);
            this.replicaSyncReplicas = CONNECTED_REPLICAS;
            return this;
        }

        /**
         * Replica acknowledgement with a pinned count ("synced" writes). Every lock write (acquire
         * attempt, release, forceUnlock, watchdog renewal) is sent as {@code EVALSHA} pipelined with
         * {@code WAIT replicas timeout} on one connection, and counts as done only if at least
         * {@code replicas} replicas acknowledged it. Needs a driver with the {@code REPLICA_WAIT}
         * capability: creating a client with this option on a driver without it fails at once with
         * {@link IllegalArgumentException}.
         *
         * <p><b>Cost:</b> each lock write waits for the slowest of the {@code replicas} replicas
         * (one replication round trip, up to {@code timeout} when they lag or are down), and holds
         * its connection that long.
         *
         * <p><b>Guarantee:</b> when a call returns normally, its write had reached at least
         * {@code replicas} replicas, so a failover to one of them keeps it. <b>Not guaranteed:</b>
         * WAIT is not consensus. A failover may still promote a replica that did not acknowledge;
         * acknowledged data can be lost if the acknowledging replicas restart without persistence;
         * and a write that was not acknowledged may still have been applied on the master and on
         * some replicas.
         *
         * <p><b>When fewer than {@code replicas} acknowledge</b> (in the default mode,
         * {@link #replicaSync(Duration)}: when none of the connected replicas did):
         * <ul>
         * <li>acquire: what was just acquired is released again (best effort, not itself waited
         *     for) and the attempt fails with {@link RedisUnavailableException} saying how many
         *     replicas acknowledged. A first attempt fails the call; an attempt made while already
         *     waiting is retried like any attempt that finds Redis unavailable (for up to the
         *     subscription timeout), then fails the call;</li>
         * <li>renewal: retried on the next renewal period; if that one is short too, the hold is
         *     reported lost with {@link LockLostEvent.Reason#RENEWAL_FAILED} and no longer renewed;</li>
         * <li>release and forceUnlock: the write already took effect on the master (the key is
         *     deleted or its count decremented there, and the registry follows the master's
         *     answer), so the call fails
         *     with {@link RedisUnavailableException} saying how many acknowledged, like any release
         *     whose outcome on the replicas is unknown.</li>
         * </ul>
         * Not synced: reads, the fenced lock's token read, and the fair lock's clean-up of a
         * waiter that gave up. Asynchronous calls run their synced writes on a small pool of the
         * client's own threads, as the driver's pipelined call blocks.
         * Where the script cache was flushed (NOSCRIPT), the script is run with {@code EVAL} and then
         * acknowledged through a separate pipelined barrier write on the lock's key slot.
         *
         * @param replicas at least 1
         * @param timeout 1 ms to 1 minute; how long each write waits for the acknowledgements
         * @return this builder
         */
        public Builder replicaSync(int replicas, Duration timeout) {
            if (replicas < 1) {
                throw new IllegalArgumentException("replicaSync replicas must be at least 1, was " + replicas);
            }
            this.replicaSyncTimeout = replicaSyncTimeoutOf(timeout);
            this.replicaSyncReplicas = replicas;
            return this;
        }

        private static Duration replicaSyncTimeoutOf(Duration timeout) {
            Duration t = atLeast("replicaSync timeout", timeout, Duration.ofMillis(1));
            if (t.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException(
                        "replicaSync timeout must be at most 60000 ms, was " + describe(t));
            }
            return t;
        }

        /**
         * Turns replica acknowledgement off (Redisson's {@code checkLockSyncedSlaves = false} comes
         * closest; Redisson still sends its {@code WAIT}): lock writes are plain scripts, never
         * followed by {@code WAIT}.
         *
         * @return this builder
         */
        public Builder noReplicaSync() {
            this.replicaSyncReplicas = 0;
            this.replicaSyncTimeout = null;
            return this;
        }

        /**
         * @param mapper maps each lock name to the name used in Redis, e.g. {@code NameMapper.prefix("app1:")};
         *     give Redisson clients sharing the locks a mapper with the same result
         * @return this builder
         */
        public Builder nameMapper(NameMapper mapper) {
            this.nameMapper = Objects.requireNonNull(mapper, "nameMapper must not be null (use NameMapper.identity())");
            return this;
        }

        /**
         * @param listener observes acquires, releases, losses and renewals (one per client; calls
         *        happen on the thread that did the work); {@link LockEventListener#NOOP} for none
         * @return this builder
         */
        public Builder eventListener(LockEventListener listener) {
            this.eventListener = Objects.requireNonNull(listener,
                    "eventListener must not be null; pass LockEventListener.NOOP for none");
            return this;
        }

        /**
         * Local hand-off, on by default: when the last hold of a lock is released while a thread of
         * this same client is blocked waiting for it ({@code lock()}, {@code tryLock(wait)}), the
         * release script makes that thread the owner in the same step (one round trip instead of
         * three: release, wake-up message, acquire) and the thread is woken in memory. Redis holds
         * Redisson's hash and owner fields throughout, so Redisson clients and {@code inspect}
         * see the true owner, and waiters of other clients see a lock that never became free.
         *
         * <p>Applies to the reentrant and non-reentrant locks and to the fair lock (there only when
         * the waiting thread heads the fair queue in Redis). Not to the fenced lock (every grant must
         * take a new token), the spin lock (no waiting), the read-write lock, nor where lock
         * writes wait for replicas ({@link #replicaSync(Duration)}: on a node with replicas); asynchronous waiters ({@code lockAsync}) are woken by the ordinary
         * release message.
         *
         * <p><b>Fairness bound</b> (reentrant locks): a run of consecutive hand-offs of one lock
         * ends after {@code maxConsecutive} hand-offs or once it has lasted {@code maxRun},
         * whichever comes first; that release is an ordinary one that publishes, so waiters of
         * other clients (relock or Redisson) compete for the lock as they would without hand-off.
         * The fair lock needs no bound: it hands off only to the head of its queue.
         *
         * @param maxConsecutive 1 to 10,000 hand-offs per run
         * @param maxRun 1 ms to 1 minute
         * @return this builder
         */
        public Builder localHandoff(int maxConsecutive, Duration maxRun) {
            if (maxConsecutive < 1 || maxConsecutive > 10_000) {
                throw new IllegalArgumentException("localHandoff maxConsecutive must be 1..10000, was " + maxConsecutive);
            }
            Duration run = atLeast("localHandoff maxRun", maxRun, Duration.ofMillis(1));
            if (run.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("localHandoff maxRun must be at most 60000 ms, was " + describe(run));
            }
            this.localHandoffMaxConsecutive = maxConsecutive;
            this.localHandoffMaxRun = run;
            return this;
        }

        /**
         * Cohort hand-off (off by default): while this client holds a reentrant lock in Redis and
         * another owner of this client waits for it, the holder's last unlock passes the lock to
         * that owner with no Redis call. Redis keeps showing the field of the owner that took the
         * lock from Redis (the run's anchor; see docs/guide/cohort.md); this client answers
         * {@code isHeldByThread}, {@code getHoldCount}, renewal and {@code onLost} for the owner
         * holding it now.
         *
         * <p><b>Fairness bound</b>: a run starts only with a local hand-off in Redis
         * ({@link #localHandoff}), whose script transfers only while no other client's waiter
         * listens; it lasts at most {@code maxPasses} passes and {@code maxRun}, then the next
         * unlock goes to Redis again (a transfer that reads the outsider signal anew, or an
         * ordinary release that other clients' waiters, relock or Redisson, can take). Applies to
         * the reentrant lock only, between owners renewed by the watchdog (an explicit lease
         * would not restart in Redis), and only while local hand-off is on.
         *
         * @param maxPasses 1 to 10,000 passes per run
         * @param maxRun 1 ms to 1 minute
         * @return this builder
         */
        public Builder cohort(int maxPasses, Duration maxRun) {
            if (maxPasses < 1 || maxPasses > 10_000) {
                throw new IllegalArgumentException("cohort maxPasses must be 1..10000, was " + maxPasses);
            }
            Duration run = atLeast("cohort maxRun", maxRun, Duration.ofMillis(1));
            if (run.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("cohort maxRun must be at most 60000 ms, was " + describe(run));
            }
            this.cohortMaxPasses = maxPasses;
            this.cohortMaxRun = run;
            return this;
        }

        /** @return this builder, with cohort hand-off on at its default bounds ({@link #DEFAULT_COHORT_MAX_PASSES}, {@link #DEFAULT_COHORT_MAX_RUN}) */
        public Builder cohort() {
            return cohort(DEFAULT_COHORT_MAX_PASSES, DEFAULT_COHORT_MAX_RUN);
        }

        /** @return this builder, with cohort hand-off off: every unlock of a held lock goes to Redis */
        public Builder noCohort() {
            this.cohortMaxPasses = 0;
            return this;
        }

        /** @return this builder, with local hand-off off: every release publishes and every waiter acquires for itself */
        public Builder noLocalHandoff() {
            this.localHandoffMaxConsecutive = 0;
            return this;
        }

        /**
         * Registers who the client is, so that {@link LockClient#inspect} names the host and
         * application of its holders. While the client is open it keeps a hash
         * {@code relock:{clients}:<clientId>} (fields {@code host}, {@code application},
         * {@code instance}, {@code version}) with a TTL of the watchdog timeout, refreshed every third
         * of it on the client's timer, and deletes it on {@code close()}. Redisson never reads or
         * writes that key. Off by default: nothing is written.
         *
         * @param ownerInfo e.g. {@code OwnerInfo.of("billing", "2.4.1")}
         * @return this builder
         */
        public Builder ownerInfo(OwnerInfo ownerInfo) {
            this.ownerInfo = Objects.requireNonNull(ownerInfo, "ownerInfo must not be null (use noOwnerInfo())");
            return this;
        }

        /** @return this builder, registering no owner info again (the default) */
        public Builder noOwnerInfo() {
            this.ownerInfo = null;
            return this;
        }

        /** @return the options */
        public LockOptions build() {
            return new LockOptions(this);
        }

        private static Duration atLeast(String what, Duration value, Duration min) {
            Objects.requireNonNull(value, () -> what + " must not be null");
            if (value.compareTo(min) < 0) {
                throw new IllegalArgumentException(
                        what + " must be at least " + min.toMillis() + " ms, was " + describe(value));
            }
            return value;
        }

        /**
         * Whole milliseconds as {@code "10 ms"}; anything else as the Duration itself, so a
         * sub-millisecond value is not shown as "0 ms" and a huge negative one (whose toMillis()
         * overflows) still gets this message rather than an ArithmeticException.
         */
        private static String describe(Duration value) {
            if (value.getNano() % 1_000_000 == 0) {
                try {
                    return value.toMillis() + " ms";
                } catch (ArithmeticException tooLarge) {
                    // fall through
                }
            }
            return value.toString();
        }
    }
}
