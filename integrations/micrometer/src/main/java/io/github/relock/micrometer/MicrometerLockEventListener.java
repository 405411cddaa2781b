package io.github.relock.micrometer;

import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockLostEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Records relock's lock events in a Micrometer {@link MeterRegistry}:
 * <ul>
 *   <li>{@code relock.lock.wait} timer: time from the first attempt to the grant (tag
 *       {@code outcome=acquired|timeout});</li>
 *   <li>{@code relock.lock.hold} timer: time from the grant to the last release;</li>
 *   <li>{@code relock.lock.lost} counter, tag {@code reason} ({@link LockLostEvent.Reason});</li>
 *   <li>{@code relock.renewal.batches} timer and {@code relock.renewal.failures} counter.</li>
 * </ul>
 * The lock name becomes a {@code lock} tag only with {@link Builder#lockNameTag(boolean)}: names are
 * often unbounded (one per order, per user), and each name would be a new time series.
 *
 * <pre>{@code
 * LockOptions options = LockOptions.builder()
 *         .eventListener(MicrometerLockEventListener.builder(registry).build())
 *         .build();
 * }</pre>
 *
 * <p>Thread-safety: thread-safe; meters are registered once and looked up per event only when the
 * lock name tag is on.
 */
public final class MicrometerLockEventListener implements LockEventListener {

    private final MeterRegistry registry;
    private final boolean nameTag;
    private final Tags tags;
    private final Timer acquired;
    private final Timer timedOut;
    private final Timer held;
    private final Timer renewals;
    private final Counter renewalFailures;
    private final Map<LockLostEvent.Reason, Counter> lost = new EnumMap<>(LockLostEvent.Reason.class);

    private MicrometerLockEventListener(Builder b) {
        this.registry = b.registry;
        this.nameTag = b.nameTag;
        this.tags = b.tags;
        this.acquired = waitTimer(Tags.empty(), "acquired");
        this.timedOut = waitTimer(Tags.empty(), "timeout");
        this.held = holdTimer(Tags.empty());
        this.renewals = Timer.builder("relock.renewal.batches").description("Watchdog renewal batches")
                .tags(tags).register(registry);
        this.renewalFailures = Counter.builder("relock.renewal.failures")
                .description("Holds whose renewal failed (key gone or no reply)").tags(tags).register(registry);
        for (LockLostEvent.Reason r : LockLostEvent.Reason.values()) {
            lost.put(r, lostCounter(Tags.empty(), r));
        }
    }

    /**
     * @param registry where the meters go
     * @return a builder (lock name tag off, no extra tags)
     */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    private Timer waitTimer(Tags extra, String outcome) {
        return Timer.builder("relock.lock.wait").description("Time waited to acquire a lock")
                .tags(tags).tags(extra).tag("outcome", outcome).register(registry);
    }

    private Timer holdTimer(Tags extra) {
        return Timer.builder("relock.lock.hold").description("Time a lock was held, grant to last release")
                .tags(tags).tags(extra).register(registry);
    }

    private Counter lostCounter(Tags extra, LockLostEvent.Reason reason) {
        return Counter.builder("relock.lock.lost").description("Holds lost before their release")
                .tags(tags).tags(extra).tag("reason", reason.name()).register(registry);
    }

    @Override
    public void acquired(String lockName, Duration waited) {
        (nameTag ? waitTimer(Tags.of("lock", lockName), "acquired") : acquired).record(waited);
    }

    @Override
    public void acquireTimedOut(String lockName, Duration waited) {
        (nameTag ? waitTimer(Tags.of("lock", lockName), "timeout") : timedOut).record(waited);
    }

    @Override
    public void released(String lockName, Duration heldFor) {
        (nameTag ? holdTimer(Tags.of("lock", lockName)) : held).record(heldFor);
    }

    @Override
    public void lost(String lockName, LockLostEvent.Reason reason) {
        (nameTag ? lostCounter(Tags.of("lock", lockName), reason) : lost.get(reason)).increment();
    }

    @Override
    public void renewalBatch(int renewed, int failed, Duration duration) {
        renewals.record(duration);
        if (failed > 0) {
            renewalFailures.increment(failed);
        }
    }

    @Override
    public String toString() {
        return "MicrometerLockEventListener{registry=" + registry.getClass().getSimpleName()
                + ", lockNameTag=" + nameTag + ", tags=" + tags + '}';
    }

    /**
     * Builds a {@link MicrometerLockEventListener}.
     *
     * <p>Thread-safety: not thread-safe; confine a builder to one thread.
     */
    public static final class Builder {
        private final MeterRegistry registry;
        private boolean nameTag;
        private Tags tags = Tags.empty();

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry must not be null");
        }

        /**
         * @param on whether each meter gets a {@code lock} tag with the lock's name (default off:
         *        only turn it on when the set of lock names is small and fixed)
         * @return this builder
         */
        public Builder lockNameTag(boolean on) {
            this.nameTag = on;
            return this;
        }

        /**
         * @param extra tags added to every meter (e.g. {@code client=orders})
         * @return this builder
         */
        public Builder tags(Iterable<io.micrometer.core.instrument.Tag> extra) {
            this.tags = Tags.of(Objects.requireNonNull(extra, "tags must not be null"));
            return this;
        }

        /** @return the listener, its meters registered */
        public MicrometerLockEventListener build() {
            return new MicrometerLockEventListener(this);
        }
    }
}
