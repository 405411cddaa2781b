package io.github.relock.driver.springdata;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.spi.pubsub.ConnectionPubSub;
import io.github.relock.spi.pubsub.SessionPubSub;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * relock's executor over an application's {@link RedisConnectionFactory}: every script borrows a
 * factory connection for one call; pub/sub is core's {@link SessionPubSub} over
 * {@link JedisPubSubTransport} or {@link ConnectionPubSub} over {@link LettucePubSubTransport}. A
 * cluster factory declares {@link Capability#CLUSTER} (scripts are routed by their first key) and,
 * Lettuce-backed, {@link Capability#SHARDED_PUBSUB} (Jedis' sharded subscribe is a blocking loop per
 * node). No {@code REPLICA_WAIT}: Spring offers no pipelined {@code WAIT}. {@link #close()} stops
 * the driver's threads and pub/sub connection, never the factory. The watchdog's renewals
 * ({@link Lane#RENEWAL}) have a lane of their own: threads (Jedis) or a connection (Lettuce)
 * the application's calls never use.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class SpringDataCommandExecutor implements CommandExecutor {

    private final String description;
    private final ScriptCalls scripts;
    /** Exactly one is set, as the factory is Lettuce- or Jedis-backed. */
    private final ConnectionPubSub lettucePubSub;
    private final SessionPubSub jedisPubSub;
    private final Set<Capability> capabilities;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param lettuce Lettuce-backed, else Jedis-backed: only that client's classes are loaded */
    SpringDataCommandExecutor(RedisConnectionFactory factory, ScriptCalls scripts, boolean lettuce, boolean cluster,
                              DriverOptions options) {
        this.description = factory.getClass().getSimpleName() + (cluster ? " (cluster)" : "");
        this.scripts = scripts;
        boolean sharded = lettuce && cluster;
        this.capabilities = !cluster ? Set.of()
                : sharded ? Set.of(Capability.CLUSTER, Capability.SHARDED_PUBSUB) : Set.of(Capability.CLUSTER);
        this.lettucePubSub = lettuce ? new ConnectionPubSub(events -> new LettucePubSubTransport(factory, events), description,
                options.commandTimeout(), sharded, options.pubSubProbeInterval()) : null;
        // Jedis' classes load with the first session, not before (the factory may be neither client's)
        this.jedisPubSub = lettuce ? null : new SessionPubSub(events -> new JedisPubSubTransport(factory).open(events),
                "relock-sdr-pubsub", description, options.commandTimeout().plusSeconds(1), options.pubSubProbeInterval(),
                options.commandTimeout());
    }

    @Override
    public Object eval(ScriptCall call) {
        Objects.requireNonNull(call, "call must not be null");
        open();
        Script script = call.script();
        return call.bySha()
                ? scripts.call("EVALSHA", script.sha1(), call.keys(), call.args(), "EVALSHA " + script.name())
                : scripts.call("EVAL", script.text(), call.keys(), call.args(), "EVAL " + script.name());
    }

    @Override
    public CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        Objects.requireNonNull(call, "call must not be null");
        Objects.requireNonNull(lane, "lane must not be null");
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedError());
        }
        Script script = call.script();
        String command = call.bySha() ? "EVALSHA" : "EVAL";
        String body = call.bySha() ? script.sha1() : script.text();
        String label = command + " " + script.name();
        return lane == Lane.RENEWAL
                ? scripts.callUrgentAsync(command, body, call.keys(), call.args(), label)
                : scripts.callAsync(command, body, call.keys(), call.args(), label);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        if (sharded && !capabilities.contains(Capability.SHARDED_PUBSUB)) {
            throw new UnsupportedOperationException("the spring-data-redis driver declares "
                    + Capability.SHARDED_PUBSUB + " only on a Lettuce-backed cluster factory (Spring Data Redis "
                    + "has no SSUBSCRIBE), not on " + description);
        }
        // both check their arguments, and fail once closed (close() closes them first)
        return lettucePubSub != null ? lettucePubSub.subscribe(channel, sharded, listener)
                : jedisPubSub.subscribe(channel, listener);
    }

    @Override
    public void setConnectionListener(ConnectionListener listener) {
        if (lettucePubSub != null) {
            lettucePubSub.setConnectionListener(listener);
        } else {
            jedisPubSub.setConnectionListener(listener);
        }
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            if (lettucePubSub != null) {
                lettucePubSub.close();
            } else {
                jedisPubSub.close();
            }
            scripts.close();
        }
    }

    private void open() {
        if (closed.get()) {
            throw closedError();
        }
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("this relock executor over " + description + " is closed");
    }

    @Override
    public String toString() {
        return "SpringDataCommandExecutor[" + description + "]";
    }
}
