package io.github.relock.driver.springdata;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Script;
import io.github.relock.spi.Subscription;
import io.github.relock.spi.pubsub.SessionPubSub;
import io.github.relock.spi.pubsub.SessionTransport;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * relock's executor over an application's {@link RedisConnectionFactory}: every script borrows a
 * connection from the factory for one call; pub/sub lives on one connection of its own (Jedis:
 * core's {@link SessionPubSub} over {@link JedisPubSubTransport}; Lettuce: {@link SpringPubSub}). On a cluster factory it declares {@link Capability#CLUSTER} (scripts are
 * routed by their first key's slot) and, Lettuce-backed, {@link Capability#SHARDED_PUBSUB} through
 * the factory's Lettuce client ({@link LettuceShardedPubSub}; Spring Data Redis has no sharded
 * subscribe, and Jedis' is a blocking loop per node). No replica acknowledgement: Spring offers no
 * pipelined {@code WAIT} through its connection API. {@link #close()} stops the
 * driver's threads and its pub/sub connection, never the factory.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class SpringDataCommandExecutor implements CommandExecutor {

    private final String description;
    private final ScriptCalls scripts;
    /** Exactly one of the two is set: core's session pub/sub on a Jedis-backed factory, else Spring's. */
    private final SessionPubSub jedisPubSub;
    private final SpringPubSub pubSub;
    /** Null unless the factory is a Lettuce-backed cluster one. */
    private final LettuceShardedPubSub shardedPubSub;
    private final Set<Capability> capabilities;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param jedisPubSub the Jedis-backed factory's raw pub/sub, or null on a Lettuce-backed one
     * @param cluster whether the factory talks to a Redis Cluster (scripts are routed by key)
     * @param shardedPubSub sharded pub/sub where the backing client offers it (Lettuce on a cluster), else null
     */
    SpringDataCommandExecutor(RedisConnectionFactory factory, ScriptCalls scripts, SessionTransport jedisPubSub,
                              boolean cluster, LettuceShardedPubSub shardedPubSub, DriverOptions options) {
        this.description = factory.getClass().getSimpleName() + (cluster ? " (cluster)" : "");
        this.scripts = scripts;
        this.shardedPubSub = shardedPubSub;
        this.capabilities = !cluster ? Set.of()
                : shardedPubSub == null ? Set.of(Capability.CLUSTER) : Set.of(Capability.CLUSTER, Capability.SHARDED_PUBSUB);
        this.jedisPubSub = jedisPubSub == null ? null : new SessionPubSub(jedisPubSub, "relock-sdr-pubsub",
                description, options.commandTimeout().plusSeconds(1));
        this.pubSub = jedisPubSub != null ? null : new SpringPubSub(factory, options.commandTimeout(), false);
    }

    @Override
    public Object evalSha(Script script, List<String> keys, List<String> args) {
        open();
        return scripts.call("EVALSHA", script.sha1(), keys, args, "EVALSHA " + script.name());
    }

    @Override
    public Object eval(Script script, List<String> keys, List<String> args) {
        open();
        return scripts.call("EVAL", script.text(), keys, args, "EVAL " + script.name());
    }

    @Override
    public CompletableFuture<Object> evalShaAsync(Script script, List<String> keys, List<String> args) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedError());
        }
        return scripts.callAsync("EVALSHA", script.sha1(), keys, args, "EVALSHA " + script.name());
    }

    @Override
    public CompletableFuture<Object> evalAsync(Script script, List<String> keys, List<String> args) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedError());
        }
        return scripts.callAsync("EVAL", script.text(), keys, args, "EVAL " + script.name());
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        Objects.requireNonNull(channel, "channel must not be null");
        Objects.requireNonNull(listener, "listener must not be null");
        if (sharded && shardedPubSub == null) {
            throw new UnsupportedOperationException("the spring-data-redis driver declares "
                    + Capability.SHARDED_PUBSUB + " only on a Lettuce-backed cluster factory (Spring Data Redis "
                    + "has no SSUBSCRIBE), not on " + description);
        }
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedError());
        }
        return sharded ? shardedPubSub.subscribe(channel, listener)
                : jedisPubSub != null ? jedisPubSub.subscribe(channel, listener) : pubSub.subscribe(channel, listener);
    }

    @Override
    public void setConnectionListener(ConnectionListener listener) {
        if (jedisPubSub != null) {
            jedisPubSub.setConnectionListener(listener);
        } else {
            pubSub.setConnectionListener(listener);
        }
        if (shardedPubSub != null) {
            shardedPubSub.setConnectionListener(listener);
        }
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            if (jedisPubSub != null) {
                jedisPubSub.close();
            } else {
                pubSub.close();
            }
            if (shardedPubSub != null) {
                shardedPubSub.close();
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
