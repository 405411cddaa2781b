package io.github.relock.driver.lettuce;

import io.github.relock.spi.pubsub.ConnectionPubSub;
import io.github.relock.spi.pubsub.ConnectionTransport;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Lettuce driver's raw pub/sub, run by core's {@link ConnectionPubSub}: one
 * {@link StatefulRedisPubSubConnection}, which Lettuce reconnects and resubscribes by itself.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Events</b>: one {@link RedisPubSubAdapter} forwards messages, sharded messages and
 *       {@code sunsubscribe} pushes; a {@link RedisConnectionStateListener} forwards each break and
 *       reconnect (Lettuce does not fire it for the first connect, which happened before it was added). Both
 *       run on the connection's event-loop thread.</li>
 *   <li><b>Sharded on a cluster</b>: Lettuce routes {@code SSUBSCRIBE} by the channel's slot to a
 *       pub/sub connection of the slot's master, and a slot may move. So every node
 *       ({@code host:port}) a channel's {@code SSUBSCRIBE} went to is remembered, and
 *       {@code SUNSUBSCRIBE} goes to each of them and to today's owner (Lettuce may have
 *       resubscribed it there after a topology refresh).</li>
 *   <li><b>Errors</b>: a failed command is translated by {@link Errors}, so an error reply reaches
 *       core as {@link io.github.relock.api.RedisErrorException}; what Lettuce throws at once
 *       (a closed connection, a full request queue) core takes as Redis being unavailable.</li>
 * </ul>
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class PubSubTransport implements ConnectionTransport {
    private static final System.Logger LOG = System.getLogger(PubSubTransport.class.getName());

    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final String target;
    private final Events events;
    /** Sharded on a cluster: every node ({@code host:port}) an SSUBSCRIBE of a channel went to. */
    private final Map<String, Set<String>> shardNodes = new ConcurrentHashMap<>();
    /** Sharded on a cluster: the node ({@code host:port}) the latest SSUBSCRIBE of each channel went to. */
    private final Map<String, String> shardNode = new ConcurrentHashMap<>();
    /** The node pub/sub connections (Lettuce's, one per node) a {@link NodeLinkHook} listens on. */
    private final Set<StatefulRedisPubSubConnection<String, String>> watchedNodeLinks = ConcurrentHashMap.newKeySet();

    private final RedisPubSubAdapter<String, String> dispatcher = new RedisPubSubAdapter<>() {
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
    };

    private final RedisConnectionStateListener reconnectHook = new RedisConnectionStateListener() {
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
            events.reconnected();
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            events.disconnected();
        }
    };

    PubSubTransport(StatefulRedisPubSubConnection<String, String> pubSub, String target, Events events) {
        this.pubSub = pubSub;
        this.target = target;
        this.events = events;
        pubSub.addListener(dispatcher);
        pubSub.addListener(reconnectHook);
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel, boolean sharded) {
        if (sharded) {
            String owner = shardOwner(channel);
            if (owner != null) {
                shardNodes.computeIfAbsent(channel, c -> ConcurrentHashMap.newKeySet()).add(owner);
                shardNode.put(channel, owner);
                watchNodeLink(owner);
            }
        }
        return Errors.translated(sharded ? pubSub.async().ssubscribe(channel) : pubSub.async().subscribe(channel),
                () -> (sharded ? "SSUBSCRIBE " : "SUBSCRIBE ") + channel + " on " + target);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel, boolean sharded) {
        if (sharded) {
            shardNode.remove(channel);
        }
        Set<String> nodes = sharded ? shardNodes.remove(channel) : null;
        if (nodes != null && pubSub instanceof StatefulRedisClusterPubSubConnection<String, String> cluster) {
            String owner = shardOwner(channel);
            if (owner != null) {
                nodes.add(owner);
            }
            // Every node is waited for; a failure (that node's connection is gone, and the
            // subscription with it) is logged by core with the first one.
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (String node : nodes) {
                int colon = node.lastIndexOf(':');
                all.add(cluster.getConnectionAsync(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)))
                        .thenCompose(c -> c.async().sunsubscribe(channel).toCompletableFuture()));
            }
            return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
        }
        return Errors.translated(sharded ? pubSub.async().sunsubscribe(channel) : pubSub.async().unsubscribe(channel),
                () -> (sharded ? "SUNSUBSCRIBE " : "UNSUBSCRIBE ") + channel + " on " + target);
    }

    /**
     * Listens on the pub/sub connection Lettuce keeps to {@code node} (the one a sharded command
     * routed there travels), once per connection: Lettuce reports that connection's breaks and
     * reconnects to no listener of the cluster connection (F6 of issue 38).
     */
    private void watchNodeLink(String node) {
        if (pubSub instanceof StatefulRedisClusterPubSubConnection<String, String> cluster) {
            int colon = node.lastIndexOf(':');
            cluster.getConnectionAsync(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)))
                    .thenAccept(link -> {
                        if (watchedNodeLinks.add(link)) {
                            link.addListener(new NodeLinkHook(node));
                        }
                    });
        }
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
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            shardNode.forEach((channel, at) -> {
                if (at.equals(node)) {
                    events.shardDropped(channel);
                }
            });
        }
    }

    /** On a cluster: {@code host:port} of the node Lettuce routes a sharded channel to now (its slot's master), else null. */
    private String shardOwner(String channel) {
        if (pubSub instanceof StatefulRedisClusterPubSubConnection<String, String> cluster) {
            try {
                RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
                // host:port, the key Lettuce routes slot commands by (its node-id connections are others)
                return master == null ? null : master.getUri().getHost() + ":" + master.getUri().getPort();
            } catch (RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /** @return null where the connection cannot be broken ({@link LettuceChannels}): it is not probed */
    @Override
    public CompletableFuture<Void> ping() {
        if (LettuceChannels.endpoint(pubSub) == null) {
            return null;
        }
        return Errors.translated(pubSub.async().ping(), () -> "PING on the pub/sub connection to " + target)
                .thenAccept(pong -> { });
    }

    /** Closes the connection's channel but not the connection: Lettuce's watchdog reconnects and resubscribes. */
    @Override
    public void reconnect() {
        LettuceChannels.disconnect(pubSub);
    }

    /** Detaches from and closes the pub/sub connection. Idempotent, as Lettuce's calls are. */
    @Override
    public void close() {
        pubSub.removeListener(reconnectHook);
        pubSub.removeListener(dispatcher);
        try {
            pubSub.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the pub/sub connection to " + target + " failed", e);
        }
    }
}
