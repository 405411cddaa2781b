package io.github.relock.driver.springdata;

import io.github.relock.spi.pubsub.ConnectionPubSub;
import io.github.relock.spi.pubsub.ConnectionTransport;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The raw pub/sub of a Lettuce-backed factory, run by core's {@link ConnectionPubSub}: one pub/sub
 * connection of the factory's own Lettuce client ({@code getRequiredNativeClient()}: its options,
 * credentials and reconnects apply), from the first subscribe until the executor closes, carrying
 * classic and, on a cluster, sharded channels (Spring has no {@code SSUBSCRIBE}). A sharded
 * unsubscribe goes to every node the channel was subscribed on and to today's owner.
 *
 * <p>Design. Core subscribes from whatever thread completed a script's reply, maybe a Lettuce
 * event loop, where a blocking connect waits for that same loop (a deadlock seen in the cluster
 * kit). So the connection opens on a short-lived thread {@code relock-sdr-pubsub-connect} (a
 * {@link RedisClient}'s own URI is reachable only through its blocking {@code connectPubSub}, as
 * Spring connects), and commands sent meanwhile follow in order; a failed open is tried again by
 * the next subscribe. A factory that is stopped ({@code SmartLifecycle.stop()}: a context restart, a
 * Spring Cloud refresh, a CRaC checkpoint) shuts its client down, which closes the connection for
 * good (Lettuce reconnects only a connection that broke); once the factory runs again (or at the
 * next subscribe, whichever comes first) a new one opens from the factory's client as it is then,
 * and {@link Events#reconnected()} has the channels of the old one subscribed again there. While the factory is stopped a subscribe fails as Redis being
 * unavailable, never with {@link IllegalStateException}, which the SPI keeps for "the executor is
 * closed". A static master/replica configuration's client has no URI of its own (Spring has no
 * pub/sub there either): subscribing fails with a {@link Misconfigured} saying so.
 *
 * <p>With {@link LettuceScriptCalls} and {@link LettuceReply}, the only classes that touch Lettuce;
 * loaded only for a {@code LettuceConnectionFactory}.
 *
 * <p>Thread-safety: commands are sent one at a time, as {@link ConnectionPubSub} sends them under
 * its lock; {@link #close()} and Lettuce's callbacks may run on any thread.
 */
final class LettucePubSubTransport extends RedisPubSubAdapter<String, String>
        implements ConnectionTransport, RedisConnectionStateListener {

    private final LettuceConnectionFactory factory; // only ever a LettuceConnectionFactory
    private final Events events;
    /** Sharded, on a cluster: every node ({@code host:port}) an {@code SSUBSCRIBE} of a channel went to. */
    private final Map<String, Set<String>> shardNodes = new ConcurrentHashMap<>();
    /** Sharded, on a cluster: the node ({@code host:port}) the latest {@code SSUBSCRIBE} of each channel went to. */
    private final Map<String, String> shardNode = new ConcurrentHashMap<>();
    /** The node pub/sub connections (Lettuce's, one per node) a {@link NodeLinkHook} listens on. */
    private final Set<StatefulRedisPubSubConnection<String, String>> watchedNodeLinks = ConcurrentHashMap.newKeySet();
    /** Opened at the first subscribe; again at the next one after a failed open. */
    private volatile CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection;
    /** A connection that was open is closed for good (the factory stopped): tell ConnectionPubSub once a new one opens. */
    private volatile boolean lost;
    /** {@link #close()} was called. */
    private volatile boolean shut;
    /** The last command handed to the client, or waiting for the connection: the next one goes after it. */
    private CompletableFuture<?> last = CompletableFuture.completedFuture(null);

    LettucePubSubTransport(RedisConnectionFactory factory, Events events) {
        this.factory = (LettuceConnectionFactory) factory;
        this.events = events;
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel, boolean sharded) {
        return send(c -> {
            if (sharded && c instanceof StatefulRedisClusterPubSubConnection<String, String> cluster) {
                String owner = owner(cluster, channel);
                if (owner != null) {
                    shardNodes.computeIfAbsent(channel, k -> ConcurrentHashMap.newKeySet()).add(owner);
                    shardNode.put(channel, owner);
                    watchNodeLink(cluster, owner);
                }
            }
            return sharded ? c.async().ssubscribe(channel) : c.async().subscribe(channel);
        }, true, (sharded ? "SSUBSCRIBE " : "SUBSCRIBE ") + channel);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel, boolean sharded) {
        return send(c -> {
            if (!sharded || !(c instanceof StatefulRedisClusterPubSubConnection<String, String> cluster)) {
                return sharded ? c.async().sunsubscribe(channel) : c.async().unsubscribe(channel);
            }
            shardNode.remove(channel);
            Set<String> nodes = new HashSet<>(Objects.requireNonNullElse(shardNodes.remove(channel), Set.of()));
            String owner = owner(cluster, channel);
            if (owner != null) {
                nodes.add(owner); // Lettuce may have resubscribed it there
            }
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (String node : nodes) {
                int colon = node.lastIndexOf(':');
                all.add(cluster.getConnectionAsync(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)))
                        .thenCompose(n -> n.async().sunsubscribe(channel)));
            }
            return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
        }, false, (sharded ? "SUNSUBSCRIBE " : "UNSUBSCRIBE ") + channel);
    }

    /** @return {@code host:port} of the slot's master, the key Lettuce routes a sharded command by, or null if unknown */
    private static String owner(StatefulRedisClusterPubSubConnection<String, String> cluster, String channel) {
        RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
        return master == null || master.getUri() == null ? null
                : master.getUri().getHost() + ":" + master.getUri().getPort();
    }

    /**
     * Listens on the pub/sub connection Lettuce keeps to {@code node} (the one a sharded command
     * routed there travels), once per connection: Lettuce reports that connection's breaks and
     * reconnects to no listener of the cluster connection.
     */
    private void watchNodeLink(StatefulRedisClusterPubSubConnection<String, String> cluster, String node) {
        int colon = node.lastIndexOf(':');
        cluster.getConnectionAsync(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)))
                .thenAccept(link -> {
                    if (watchedNodeLinks.add(link)) {
                        link.addListener(new NodeLinkHook(node));
                    }
                });
    }

    /**
     * A node's pub/sub link broke: its sharded channels are handed back to core's
     * {@link ConnectionPubSub} as dropped, which subscribes them again, routed by the slot's owner
     * now, and tells core once they are confirmed. Lettuce's own resubscribe on that link covers a
     * blip but not a master that died: it is never heard again, and its replica took the slot.
     */
    private final class NodeLinkHook implements RedisConnectionStateListener {
        private final String node;

        NodeLinkHook(String node) {
            this.node = node;
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> link) {
            shardNode.forEach((channel, at) -> {
                if (at.equals(node)) {
                    events.shardDropped(channel);
                }
            });
        }
    }

    /**
     * Hands {@code command} to the connection once the commands before it were; opens the
     * connection for a subscribe. An unsubscribe with no connection open has nothing to undo.
     */
    private CompletableFuture<Void> send(Function<StatefulRedisPubSubConnection<String, String>, CompletionStage<Void>> command,
                                         boolean subscribe, String what) {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> c = connection;
        boolean closedForGood = closedForGood(c);
        if (c == null || c.isCompletedExceptionally() || closedForGood) {
            if (!subscribe) {
                return CompletableFuture.completedFuture(null);
            }
            if (closedForGood) { // the factory was stopped (and maybe started again): its client closed it
                lost = true;
                shardNodes.clear();
            }
            connection = c = connect();
            c.thenRun(() -> {
                if (lost) { // the channels of the closed connection: ConnectionPubSub subscribes them again here
                    lost = false;
                    events.reconnected();
                }
            });
        }
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> open = c;
        CompletableFuture<CompletionStage<Void>> handed = last.handle((v, e) -> null).thenCompose(v -> open).thenApply(command);
        last = handed;
        return handed.thenCompose(f -> f).exceptionally(failure -> {
            throw SpringErrors.translate(failure, what);
        });
    }

    /** @return whether {@code c} opened and was closed since, by its client's shutdown (Lettuce reconnects only a break) */
    private static boolean closedForGood(CompletableFuture<StatefulRedisPubSubConnection<String, String>> c) {
        return c != null && c.isDone() && !c.isCompletedExceptionally()
                && c.join() instanceof RedisChannelHandler<?, ?> h && h.isClosed();
    }

    /**
     * After a disconnect of {@code link}: watches it until it is settled. Open again: Lettuce
     * reconnected a break, and its reconnect event told core. Closed for good by its client's
     * shutdown (the factory stopped): once the factory runs again, has {@link ConnectionPubSub}
     * subscribe its channels again ({@link Events#reconnected()}), which reopens the connection
     * through {@link #send}, so that a waiter parked across the restart hears the next release
     * without waiting for another subscribe. Neither yet: looks again. A disconnect event cannot be
     * judged when it comes: the shutdown closes the connection's channel and marks the connection
     * closed from different threads, in no fixed order (Lettuce closes the resources of a client in
     * the order of a hash set), so the event may run before the mark (kit rule 28.5 on a loaded
     * machine: the channels were never subscribed again). Looks after 50 ms, then less often, up to
     * every 2 s; stops once the connection was replaced or this transport closed. One watch per
     * disconnect; it runs on the JDK's delayed executor: no thread waits meanwhile.
     */
    private void watchAfterDisconnect(StatefulRedisPubSubConnection<String, String> link, long delayMs) {
        CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS).execute(() -> {
            CompletableFuture<StatefulRedisPubSubConnection<String, String>> c = connection;
            if (shut || c == null || c.getNow(null) != link) {
                return; // closed, or a later subscribe replaced the connection (and told core)
            }
            long next = Math.min(2000, delayMs * 2);
            if (!closedForGood(c)) {
                if (!link.isOpen()) {
                    watchAfterDisconnect(link, next); // a break Lettuce reconnects, or a shutdown not yet marked
                }
                return;
            }
            if (!factory.isRunning()) {
                watchAfterDisconnect(link, next);
                return;
            }
            events.reconnected(); // nothing wanted: nothing sent, and the next subscribe reopens it
        });
    }

    /** Opens the connection on a thread of its own, never the caller's (see the class comment). */
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connect() {
        return CompletableFuture.supplyAsync(() -> {
            AbstractRedisClient client = factory.getRequiredNativeClient(); // fails until the factory started
            StatefulRedisPubSubConnection<String, String> c;
            if (client instanceof RedisClusterClient cluster) {
                cluster.getPartitions(); // a cluster pub/sub connect needs the topology; Spring may not have it yet
                StatefulRedisClusterPubSubConnection<String, String> clusterPubSub = cluster.connectPubSub(StringCodec.UTF8);
                clusterPubSub.setNodeMessagePropagation(true); // sharded messages arrive on node connections
                c = clusterPubSub;
            } else {
                try {
                    c = ((RedisClient) client).connectPubSub(StringCodec.UTF8);
                } catch (IllegalStateException e) { // the client has no URI of its own
                    throw !String.valueOf(e.getMessage()).contains("RedisURI") ? e : new Misconfigured("relock's "
                            + "pub/sub on a LettuceConnectionFactory needs a standalone, socket, Sentinel or cluster "
                            + "configuration, not static master/replica: " + e.getMessage(), e);
                }
            }
            c.addListener((RedisPubSubListener<String, String>) this);
            c.addListener((RedisConnectionStateListener) this); // added after the connect: reconnects only
            return c;
        }, task -> {
            Thread t = new Thread(task, "relock-sdr-pubsub-connect");
            t.setDaemon(true);
            t.start();
        });
    }

    /**
     * A {@code PING} on the open connection (none open yet: nothing to probe, answered at once).
     *
     * @return null where the connection cannot be broken (a cluster connection's endpoint is not
     *     reachable): it is not probed
     */
    @Override
    public CompletableFuture<Void> ping() {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> c = connection;
        StatefulRedisPubSubConnection<String, String> open = c == null ? null : c.getNow(null);
        if (open == null) {
            return c == null || !c.isDone() ? CompletableFuture.completedFuture(null) : null;
        }
        if (endpoint(open) == null) {
            return null;
        }
        return open.async().ping().toCompletableFuture().<Void>thenApply(pong -> null)
                .exceptionally(failure -> {
                    throw SpringErrors.translate(failure, "PING");
                });
    }

    /** Closes the open connection's channel, not the connection: Lettuce's watchdog reconnects and resubscribes. */
    @Override
    public void reconnect() {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> c = connection;
        DefaultEndpoint endpoint = c == null ? null : endpoint(c.getNow(null));
        if (endpoint != null) {
            endpoint.disconnect();
        }
    }

    /** @return the endpoint under the connection's writer (Lettuce's only way to drop a channel and reconnect), or null */
    private static DefaultEndpoint endpoint(StatefulRedisPubSubConnection<String, String> open) {
        RedisChannelWriter writer = open instanceof RedisChannelHandler<?, ?> h ? h.getChannelWriter() : null;
        while (writer instanceof Delegating<?> d && d.getDelegate() instanceof RedisChannelWriter inner && inner != writer) {
            writer = inner;
        }
        return writer instanceof DefaultEndpoint endpoint ? endpoint : null;
    }

    /** Detaches from and closes the connection now, or when an open still under way ends. */
    @Override
    public void close() {
        shut = true;
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> c = connection;
        if (c != null) {
            c.thenAccept(open -> {
                open.removeListener((RedisPubSubListener<String, String>) this);
                open.removeListener((RedisConnectionStateListener) this);
                open.closeAsync();
            });
        }
    }

    // ------------------------------------------------------------------ Lettuce's callbacks, on its event loop

    @Override
    public void message(String channel, String message) {
        events.message(channel, message, false);
    }

    @Override
    public void smessage(String channel, String message) {
        events.message(channel, message, true);
    }

    @Override
    public void sunsubscribed(String channel, long count) {
        events.shardDropped(channel);
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
        if (shut) {
            return;
        }
        events.disconnected();
        StatefulRedisPubSubConnection<String, String> link = current();
        if (link != null && link == handler) {
            watchAfterDisconnect(link, 50); // a break Lettuce reconnects, or its client's shutdown: not known yet
        }
    }

    /** @return the connection open now, or null (for tests in this package) */
    StatefulRedisPubSubConnection<String, String> current() {
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> c = connection;
        return c == null ? null : c.getNow(null);
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
        events.reconnected();
    }
}
