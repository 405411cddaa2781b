package io.github.relock.micrometer;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockClientStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * Gauges of one {@link LockClient}'s live state, read from {@link LockClient#stats()} on each
 * scrape (counters in memory, never a Redis call):
 * <ul>
 *   <li>{@code relock.locks.held}: the holds the client keeps (one per lock and owner);</li>
 *   <li>{@code relock.locks.waiters}: the calls now waiting for a lock held elsewhere;</li>
 *   <li>{@code relock.pubsub.subscriptions}: the pub/sub channels it listens on for those waiters.</li>
 * </ul>
 * The gauges reference the client weakly, as Micrometer gauges do, and read 0 once it is closed.
 * Binding two clients to one registry needs a tag that tells them apart (e.g.
 * {@code Tags.of("client", "orders")}): a second gauge with the same name and tags is ignored.
 *
 * <pre>{@code
 * new RelockClientMetrics(lockClient).bindTo(registry);
 * }</pre>
 *
 * <p>Thread-safety: thread-safe; immutable once built, and the gauges read the client's thread-safe counters.
 */
public final class RelockClientMetrics implements MeterBinder {

    private final LockClient client;
    private final Tags tags;

    /** @param client the client whose state the gauges show */
    public RelockClientMetrics(LockClient client) {
        this(client, Tags.empty());
    }

    /**
     * @param client the client whose state the gauges show
     * @param tags tags added to every gauge (e.g. {@code client=orders})
     */
    public RelockClientMetrics(LockClient client, Iterable<Tag> tags) {
        this.client = Objects.requireNonNull(client, "client must not be null");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags must not be null"));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry must not be null");
        gauge(registry, "relock.locks.held", "Locks this client holds, one per lock and owner",
                LockClientStats::heldLocks);
        gauge(registry, "relock.locks.waiters", "Calls waiting for a lock held elsewhere",
                LockClientStats::waiters);
        gauge(registry, "relock.pubsub.subscriptions", "Pub/sub channels subscribed for waiters",
                LockClientStats::subscriptions);
    }

    private void gauge(MeterRegistry registry, String name, String description,
            ToIntFunction<LockClientStats> count) {
        ToDoubleFunction<LockClient> read = c -> count.applyAsInt(c.stats());
        Gauge.builder(name, client, read).description(description).tags(tags).register(registry);
    }

    @Override
    public String toString() {
        return "RelockClientMetrics{client=" + client.clientId() + ", tags=" + tags + '}';
    }
}
