package io.github.relock.spring.boot;

import io.github.relock.api.LockOptions;
import io.github.relock.api.NameMapper;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code relock.*} properties, bound to {@link LockOptions}. A property left unset keeps
 * relock's default; a value {@code LockOptions} refuses fails the application's start with the
 * option's own message (what was passed, what is allowed).
 *
 * <p>Thread-safety: a mutable bean, bound once at start-up; not meant to change afterwards.
 */
@ConfigurationProperties("relock")
public class RelockProperties {

    /** Whether to auto-configure the relock LockClient bean. */
    private boolean enabled = true;

    /**
     * How long a lock taken without a lease stays held in Redis between renewals; renewed every
     * third of it while held. At least 30 ms. Default 30 s.
     */
    private Duration lockWatchdogTimeout;

    /** How long a fair-lock waiter that stopped waiting (crashed) can keep its place in the queue. Default 300 s. */
    private Duration fairLockWaitTimeout;

    /** How long a single Redis command may take before it counts as failed. Default 3 s. */
    private Duration commandTimeout;

    /** How long a wait channel's subscription may take to be confirmed. Default 7.5 s. */
    private Duration subscriptionTimeout;

    /**
     * How often each pub/sub connection is probed with a PING; one not answered within the command
     * timeout is broken and reopened (a NAT may drop an idle flow without a reset). 0 never
     * probes. Default 10 s.
     */
    private Duration pubSubProbeInterval;

    /** How many held locks one renewal script renews, 1 to 1000. Default 500. */
    private Integer renewalBatchSize;

    /**
     * The client id that starts every owner field (client id, ':', thread id): not blank, no ':'.
     * Default: a random UUID per client, as Redisson does.
     */
    private String clientId;

    /**
     * A prefix put before every lock name in Redis keys and channels (NameMapper.prefix), so that
     * applications sharing one Redis do not share lock names. A Redisson client sharing these locks
     * needs a NameMapper with the same prefix. Default: none.
     */
    private String keyPrefix;

    /** The spin lock's back-off. */
    private final SpinBackOff spinBackOff = new SpinBackOff();

    /**
     * Replica acknowledgement of every lock write (WAIT): by default for the replicas the serving
     * node has connected, within 1 s (Redisson's default); pinned with replicas; off with enabled=false.
     */
    private final ReplicaSync replicaSync = new ReplicaSync();

    /** Micrometer metrics of the auto-configured client, when Micrometer is present. */
    private final Metrics metrics = new Metrics();

    /** Local hand-off of a released lock to a waiting thread of the same client. */
    private final LocalHandoff localHandoff = new LocalHandoff();

    /** The Spring Integration LockRegistry, when relock-spring-integration and Spring Integration 7 are present. */
    private final Integration integration = new Integration();

    /** Who this client is, kept in Redis for inspections (LockOptions.Builder.ownerInfo). */
    private final OwnerInfoProperties ownerInfo = new OwnerInfoProperties();

    /** Creates the properties with every property unset: relock's defaults; Spring's binder then sets what is configured. */
    public RelockProperties() {
    }

    /** @return whether the LockClient bean is auto-configured */
    public boolean isEnabled() {
        return enabled;
    }

    /** @param enabled whether the LockClient bean is auto-configured */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** @return the watchdog timeout, or null for relock's default */
    public Duration getLockWatchdogTimeout() {
        return lockWatchdogTimeout;
    }

    /** @param lockWatchdogTimeout the watchdog timeout */
    public void setLockWatchdogTimeout(Duration lockWatchdogTimeout) {
        this.lockWatchdogTimeout = lockWatchdogTimeout;
    }

    /** @return the fair-lock wait timeout, or null for relock's default */
    public Duration getFairLockWaitTimeout() {
        return fairLockWaitTimeout;
    }

    /** @param fairLockWaitTimeout the fair-lock wait timeout */
    public void setFairLockWaitTimeout(Duration fairLockWaitTimeout) {
        this.fairLockWaitTimeout = fairLockWaitTimeout;
    }

    /** @return the command timeout, or null for relock's default */
    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    /** @param commandTimeout the command timeout */
    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    /** @return the subscription timeout, or null for relock's default */
    public Duration getSubscriptionTimeout() {
        return subscriptionTimeout;
    }

    /** @param subscriptionTimeout the subscription timeout */
    public void setSubscriptionTimeout(Duration subscriptionTimeout) {
        this.subscriptionTimeout = subscriptionTimeout;
    }

    /** @return the pub/sub probe interval, or null for relock's default */
    public Duration getPubSubProbeInterval() {
        return pubSubProbeInterval;
    }

    /** @param pubSubProbeInterval the pub/sub probe interval */
    public void setPubSubProbeInterval(Duration pubSubProbeInterval) {
        this.pubSubProbeInterval = pubSubProbeInterval;
    }

    /** @return the renewal batch size, or null for relock's default */
    public Integer getRenewalBatchSize() {
        return renewalBatchSize;
    }

    /** @param renewalBatchSize the renewal batch size */
    public void setRenewalBatchSize(Integer renewalBatchSize) {
        this.renewalBatchSize = renewalBatchSize;
    }

    /** @return the client id, or null for a random one */
    public String getClientId() {
        return clientId;
    }

    /** @param clientId the client id */
    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    /** @return the key prefix, or null for none */
    public String getKeyPrefix() {
        return keyPrefix;
    }

    /** @param keyPrefix the key prefix */
    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /** @return the spin lock's back-off properties */
    public SpinBackOff getSpinBackOff() {
        return spinBackOff;
    }

    /** @return the replica acknowledgement properties */
    public ReplicaSync getReplicaSync() {
        return replicaSync;
    }

    /** @return the Micrometer metrics properties */
    public Metrics getMetrics() {
        return metrics;
    }

    /** @return the {@code relock.integration.*} properties */
    public Integration getIntegration() {
        return integration;
    }

    /** @return the local hand-off properties */
    public LocalHandoff getLocalHandoff() {
        return localHandoff;
    }

    /** @return the {@code relock.owner-info.*} properties */
    public OwnerInfoProperties getOwnerInfo() {
        return ownerInfo;
    }

    /**
     * @return the options these properties describe
     * @throws InvalidRelockPropertyException naming the property, when LockOptions refuses a value
     */
    LockOptions toLockOptions() {
        LockOptions.Builder b = LockOptions.builder();
        set("relock.lock-watchdog-timeout", lockWatchdogTimeout, b::lockWatchdogTimeout);
        set("relock.fair-lock-wait-timeout", fairLockWaitTimeout, b::fairLockWaitTimeout);
        set("relock.command-timeout", commandTimeout, b::commandTimeout);
        set("relock.subscription-timeout", subscriptionTimeout, b::subscriptionTimeout);
        set("relock.pub-sub-probe-interval", pubSubProbeInterval, b::pubSubProbeInterval);
        set("relock.renewal-batch-size", renewalBatchSize, b::renewalBatchSize);
        set("relock.client-id", clientId, b::clientId);
        set("relock.key-prefix", keyPrefix, prefix -> b.nameMapper(NameMapper.prefix(prefix)));
        if (spinBackOff.initial != null || spinBackOff.max != null) {
            Duration initial = spinBackOff.initial != null ? spinBackOff.initial : LockOptions.DEFAULT_SPIN_BACK_OFF_INITIAL;
            Duration max = spinBackOff.max != null ? spinBackOff.max : LockOptions.DEFAULT_SPIN_BACK_OFF_MAX;
            set("relock.spin-back-off", "initial " + initial + ", max " + max, initial, i -> b.spinBackOff(i, max));
        }
        if (!localHandoff.enabled) {
            b.noLocalHandoff();
        } else if (localHandoff.maxConsecutive != null || localHandoff.maxRun != null) {
            int max = localHandoff.maxConsecutive != null ? localHandoff.maxConsecutive
                    : LockOptions.DEFAULT_LOCAL_HANDOFF_MAX_CONSECUTIVE;
            Duration run = localHandoff.maxRun != null ? localHandoff.maxRun : LockOptions.DEFAULT_LOCAL_HANDOFF_MAX_RUN;
            set("relock.local-handoff", "max-consecutive " + max + ", max-run " + run, max, m -> b.localHandoff(m, run));
        }
        if (!replicaSync.enabled) {
            if (replicaSync.replicas != null || replicaSync.timeout != null) {
                throw new InvalidRelockPropertyException("relock.replica-sync.enabled", "false",
                        "relock.replica-sync.replicas and .timeout need relock.replica-sync.enabled=true (the default),"
                                + " was set with enabled=false", null);
            }
            b.noReplicaSync();
        } else if (replicaSync.replicas != null) {
            Duration timeout = replicaSync.timeout != null ? replicaSync.timeout : LockOptions.DEFAULT_REPLICA_SYNC_TIMEOUT;
            set("relock.replica-sync", "replicas " + replicaSync.replicas + ", timeout " + timeout,
                    replicaSync.replicas, r -> b.replicaSync(r, timeout));
        } else {
            set("relock.replica-sync.timeout", replicaSync.timeout, t -> b.replicaSync(t));
        }
        return b.build();
    }

    private static <T> void set(String property, T value, java.util.function.Consumer<T> setter) {
        set(property, String.valueOf(value), value, setter);
    }

    /**
     * @param given the value as the failure shows it (a group of properties names each of its members)
     * @throws InvalidRelockPropertyException naming {@code property}, when LockOptions refuses {@code value}
     */
    private static <T> void set(String property, String given, T value, java.util.function.Consumer<T> setter) {
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidRelockPropertyException(property, given, e.getMessage(), e);
        }
    }

    /**
     * {@code relock.spin-back-off.*}: the spin lock's exponential back-off.
     *
     * <p>Thread-safety: as {@link RelockProperties}.
     */
    public static class SpinBackOff {

        /** The first pause between polls. Default 1 ms. */
        private Duration initial;

        /** The longest pause between polls, at most 1 minute. Default 128 ms. */
        private Duration max;

        /** Creates the properties with relock's default back-off; Spring's binder then sets what is configured. */
        public SpinBackOff() {
        }

        /** @return the first pause, or null for relock's default */
        public Duration getInitial() {
            return initial;
        }

        /** @param initial the first pause */
        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        /** @return the longest pause, or null for relock's default */
        public Duration getMax() {
            return max;
        }

        /** @param max the longest pause */
        public void setMax(Duration max) {
            this.max = max;
        }
    }

    /**
     * {@code relock.local-handoff.*}: whether a release may hand the lock straight to a waiting
     * thread of the same client, and how long a run of such hand-offs may keep other clients out.
     *
     * <p>Thread-safety: as {@link RelockProperties}.
     */
    public static class LocalHandoff {

        /** Whether a release may hand the lock to a blocked waiter of the same client in one step. Default true. */
        private boolean enabled = true;

        /** The longest run of consecutive hand-offs of one lock, 1 to 10000. Default 16. */
        private Integer maxConsecutive;

        /** The longest time one run of hand-offs may last, 1 ms to 1 minute. Default 20 ms. */
        private Duration maxRun;

        /** Creates the properties with local hand-off on, with relock's default bounds; Spring's binder then sets what is configured. */
        public LocalHandoff() {
        }

        /** @return whether local hand-off is on */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether local hand-off is on */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the longest run, or null for relock's default */
        public Integer getMaxConsecutive() {
            return maxConsecutive;
        }

        /** @param maxConsecutive the longest run */
        public void setMaxConsecutive(Integer maxConsecutive) {
            this.maxConsecutive = maxConsecutive;
        }

        /** @return the longest run time, or null for relock's default */
        public Duration getMaxRun() {
            return maxRun;
        }

        /** @param maxRun the longest run time */
        public void setMaxRun(Duration maxRun) {
            this.maxRun = maxRun;
        }
    }

    /**
     * {@code relock.metrics.*}: what {@code RelockMetricsAutoConfiguration} adds when the application
     * has a Micrometer {@code MeterRegistry} bean and {@code relock-micrometer} is on the class path.
     *
     * <p>Thread-safety: as {@link RelockProperties}.
     */
    public static class Metrics {

        /**
         * Whether to record lock events (wait and hold timers, lost and renewal-failure counters) and
         * gauges of held locks, waiters and pub/sub subscriptions in the application's MeterRegistry,
         * when Micrometer and relock-micrometer are on the class path.
         */
        private boolean enabled = true;

        /** Creates the properties with metrics on; Spring's binder then sets what is configured. */
        public Metrics() {
        }

        /** @return whether the metrics are auto-configured */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the metrics are auto-configured */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * {@code relock.replica-sync.*}: replica acknowledgement of every lock write.
     *
     * <p>Thread-safety: as {@link RelockProperties}.
     */
    public static class ReplicaSync {

        /** Whether lock writes wait for replicas at all (true: the default, as Redisson's checkLockSyncedSlaves). */
        private boolean enabled = true;

        /** How many replicas must acknowledge each lock write; unset: the replicas the serving node has connected. */
        private Integer replicas;

        /** How long each write waits for the replicas, 1 ms to 1 minute; unset: 1 s (Redisson's slavesSyncTimeout). */
        private Duration timeout;

        /** Creates the properties with the default (the connected replicas, 1 s); Spring's binder then sets what is configured. */
        public ReplicaSync() {
        }

        /** @return whether replica acknowledgement is on */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled false turns replica acknowledgement off */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the pinned replica count, or null for the connected replicas */
        public Integer getReplicas() {
            return replicas;
        }

        /** @param replicas the replica count */
        public void setReplicas(Integer replicas) {
            this.replicas = replicas;
        }

        /** @return the wait per write */
        public Duration getTimeout() {
            return timeout;
        }

        /** @param timeout the wait per write */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /**
     * {@code relock.integration.*}: the Spring Integration {@code LockRegistry} that
     * {@code RelockIntegrationAutoConfiguration} declares when {@code relock-spring-integration} and
     * Spring Integration 7 are on the class path.
     *
     * <p>Thread-safety: as {@link RelockProperties}.
     */
    public static class Integration {

        /** Whether to declare a RelockLockRegistry bean as the application's LockRegistry. */
        private boolean enabled = true;

        /** The prefix of every lock name the registry takes: the lock of key k is "registry-key:k". */
        private String registryKey = "relock-spring-integration";

        /** Creates the properties with the registry on, under the default registry key; Spring's binder then sets what is configured. */
        public Integration() {
        }

        /** @return whether the registry bean is auto-configured */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the registry bean is auto-configured */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the prefix of every lock name */
        public String getRegistryKey() {
            return registryKey;
        }

        /** @param registryKey the prefix of every lock name */
        public void setRegistryKey(String registryKey) {
            this.registryKey = registryKey;
        }
    }

    /**
     * {@code relock.owner-info.*}: who the auto-configured client says it is
     * ({@code LockOptions.Builder.ownerInfo}), kept in Redis under {@code relock:{clients}:<clientId>}
     * while it is open, so that an inspection ({@code LockClient.inspect}, the {@code locks}
     * endpoint) names the application and pod holding a lock, not only a UUID. On by default in the
     * starter; each part unset takes the default named below.
     *
     * <p>Thread-safety: as {@link RelockProperties}.
     */
    public static class OwnerInfoProperties {

        /** Whether the client registers its owner info in Redis (one small hash, rewritten every third of the watchdog timeout). */
        private boolean enabled = true;

        /** The application's name, at most 256 chars. Default: spring.application.name, else empty. */
        private String application;

        /** The application's version, at most 256 chars. Default: the build info's version (META-INF/build-info.properties), else empty. */
        private String version;

        /** The machine or pod, at most 256 chars. Default: $HOSTNAME, else the local host name. */
        private String host;

        /** Which process of the application, at most 256 chars. Default: the process id. */
        private String instance;

        /** Creates the properties with owner info on and every part defaulted; Spring's binder then sets what is configured. */
        public OwnerInfoProperties() {
        }

        /** @return whether owner info is registered */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether owner info is registered */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the application's name, or null for the default */
        public String getApplication() {
            return application;
        }

        /** @param application the application's name */
        public void setApplication(String application) {
            this.application = application;
        }

        /** @return the version, or null for the default */
        public String getVersion() {
            return version;
        }

        /** @param version the version */
        public void setVersion(String version) {
            this.version = version;
        }

        /** @return the host, or null for the default */
        public String getHost() {
            return host;
        }

        /** @param host the host */
        public void setHost(String host) {
            this.host = host;
        }

        /** @return the instance, or null for the default */
        public String getInstance() {
            return instance;
        }

        /** @param instance the instance */
        public void setInstance(String instance) {
            this.instance = instance;
        }

        /**
         * @param defaultApplication the application name to use when none is set, or null
         * @param defaultVersion the version to use when none is set, or null
         * @return the owner info these properties describe, or empty when turned off
         * @throws IllegalArgumentException naming the property, when a part is too long
         */
        java.util.Optional<io.github.relock.api.OwnerInfo> toOwnerInfo(String defaultApplication, String defaultVersion) {
            if (!enabled) {
                return java.util.Optional.empty();
            }
            io.github.relock.api.OwnerInfo local = io.github.relock.api.OwnerInfo.of("", "");
            String h = part("relock.owner-info.host", host, local.host());
            String a = part("relock.owner-info.application", application, defaultApplication);
            String i = part("relock.owner-info.instance", instance, local.instance());
            String v = part("relock.owner-info.version", version, defaultVersion);
            return java.util.Optional.of(new io.github.relock.api.OwnerInfo(h, a, i, v));
        }

        private static String part(String property, String value, String fallback) {
            String v = value != null ? value.strip() : fallback == null ? "" : fallback.strip();
            if (v.length() > io.github.relock.api.OwnerInfo.MAX_LENGTH) {
                throw new IllegalArgumentException(property + " must be at most " + io.github.relock.api.OwnerInfo.MAX_LENGTH
                        + " chars, was " + v.length() + " chars" + (value != null ? "" : " (its default)")
                        + ": '" + v.substring(0, 40) + "...'");
            }
            return v;
        }
    }
}
