package io.github.relock.driver.lettuce;

import io.github.relock.spi.Capability;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Lettuce driver's pub/sub: every subscription of one executor on its one
 * {@link StatefulRedisPubSubConnection} (the counterpart of core's
 * {@code io.github.relock.spi.pubsub.SessionPubSub}, which the Jedis driver runs).
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Dispatch</b>: one {@link RedisPubSubAdapter} dispatches by channel to two
 *       {@link ConcurrentHashMap}s (plain and sharded). A listener is registered before
 *       {@code SUBSCRIBE} is sent and removed before {@code UNSUBSCRIBE} is sent, so no message is
 *       lost between confirmation and use, and none arrives after the unsubscribe confirmation
 *       (both are handled on the pub/sub connection's one event-loop thread).</li>
 *   <li><b>Reconnect</b>: Lettuce reconnects and resubscribes by itself. A
 *       {@link RedisConnectionStateListener} on the connection sees each reconnect; we then send our
 *       own {@code SUBSCRIBE} per live channel (redundant with Lettuce's, harmless, and it does not
 *       depend on when Lettuce's internal resubscribe runs) and call
 *       {@link ConnectionListener#onReconnect()} once all of them are confirmed. A channel
 *       unsubscribed meanwhile is unsubscribed again after its confirmation, so the race between
 *       the two commands never leaves it subscribed. If the connection breaks again first, nothing
 *       is reported and the next reconnect reports.</li>
 * </ul>
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class LettucePubSub {
    private static final System.Logger LOG = System.getLogger(LettucePubSub.class.getName());

    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final String target;
    private final Set<Capability> capabilities;
    private final CommandTimer timer;
    private final ConcurrentHashMap<String, Sub> channels = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Sub> shardChannels = new ConcurrentHashMap<>();
    private final Dispatcher dispatcher = new Dispatcher();
    private final ReconnectHook reconnectHook = new ReconnectHook();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile ConnectionListener connectionListener = () -> { };

    LettucePubSub(StatefulRedisPubSubConnection<String, String> pubSub, String target, Set<Capability> capabilities,
                  CommandTimer timer) {
        this.pubSub = pubSub;
        this.target = target;
        this.capabilities = capabilities;
        this.timer = timer;
        pubSub.addListener(dispatcher);
        pubSub.addListener(reconnectHook);
    }

    CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(listener, "listener");
        if (sharded && !capabilities.contains(Capability.SHARDED_PUBSUB)) {
            throw new UnsupportedOperationException("sharded = true needs " + Capability.SHARDED_PUBSUB
                    + ", which the lettuce driver does not declare for " + target + " (declared: " + capabilities + ")");
        }
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedException());
        }
        Sub sub = new Sub(channel, sharded, listener);
        Sub previous = subs(sharded).put(channel, sub);
        if (previous != null) {
            LOG.log(System.Logger.Level.WARNING, "channel {0} subscribed again while subscribed; the new listener replaces the old one", channel);
        }
        CompletableFuture<Subscription> result = new CompletableFuture<>();
        String what = (sharded ? "SSUBSCRIBE " : "SUBSCRIBE ") + channel + " on " + target;
        try {
            if (sharded) {
                sub.routedTo(shardOwner(channel));
            }
            RedisFuture<Void> confirmed = sharded ? pubSub.async().ssubscribe(channel) : pubSub.async().subscribe(channel);
            confirmed.whenComplete((v, failure) -> {
                if (failure == null) {
                    result.complete(sub);
                } else {
                    result.completeExceptionally(Errors.translate(failure, what));
                }
            });
        } catch (RuntimeException e) {
            result.completeExceptionally(Errors.translate(e, what));
        }
        timer.failAfterTimeout(result, null, () -> what); // a late confirmation is undone below
        // A failed or timed-out subscribe must not leave a listener, or a late subscription, behind.
        result.whenComplete((s, failure) -> {
            if (failure != null) {
                sub.unsubscribe();
            }
        });
        return result;
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

    void setConnectionListener(ConnectionListener listener) {
        this.connectionListener = Objects.requireNonNull(listener, "listener");
    }

    private ConcurrentHashMap<String, Sub> subs(boolean sharded) {
        return sharded ? shardChannels : channels;
    }

    /** One channel's listener; its own {@link Subscription}. */
    private final class Sub implements Subscription {
        private final String channel;
        private final boolean sharded;
        private final MessageListener listener;
        private final AtomicReference<CompletableFuture<Void>> unsubscribed = new AtomicReference<>();
        /** Sharded on a cluster: every node ({@code host:port}) an SSUBSCRIBE of this channel went to (a slot may move). */
        private final Set<String> nodes = ConcurrentHashMap.newKeySet();

        Sub(String channel, boolean sharded, MessageListener listener) {
            this.channel = channel;
            this.sharded = sharded;
            this.listener = listener;
        }

        @Override
        public String channel() {
            return channel;
        }

        void routedTo(String nodeId) {
            if (nodeId != null) {
                nodes.add(nodeId);
            }
        }

        void deliver(String message) {
            if (unsubscribed.get() != null) {
                return;
            }
            try {
                listener.onMessage(channel, message);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "listener of channel " + channel + " threw", e);
            }
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            CompletableFuture<Void> mine = new CompletableFuture<>();
            if (!unsubscribed.compareAndSet(null, mine)) {
                return unsubscribed.get();
            }
            // Only the current subscriber of the channel may unsubscribe it from Redis.
            if (!subs(sharded).remove(channel, this) || closed.get()) {
                mine.complete(null);
                return mine;
            }
            try {
                if (sharded && pubSub instanceof StatefulRedisClusterPubSubConnection<String, String> cluster
                        && !nodes.isEmpty()) {
                    // Unsubscribe on every node the channel was subscribed on, and on today's owner
                    // (Lettuce may have resubscribed it there after a topology refresh).
                    routedTo(shardOwner(channel));
                    List<CompletableFuture<Void>> all = new ArrayList<>();
                    for (String nodeId : nodes) {
                        int colon = nodeId.lastIndexOf(':');
                        CompletableFuture<Void> one = cluster.getConnectionAsync(nodeId.substring(0, colon),
                                        Integer.parseInt(nodeId.substring(colon + 1)))
                                .thenCompose(c -> c.async().sunsubscribe(channel).toCompletableFuture());
                        timer.failAfterTimeout(one, null, () -> "SUNSUBSCRIBE " + channel);
                        all.add(one.exceptionally(failure -> {
                            LOG.log(System.Logger.Level.DEBUG, "unsubscribe of " + channel + " on node " + nodeId
                                    + " not confirmed", failure);
                            return null;
                        }));
                    }
                    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).whenComplete((v, t) -> mine.complete(null));
                    return mine;
                }
                RedisFuture<Void> f = sharded ? pubSub.async().sunsubscribe(channel) : pubSub.async().unsubscribe(channel);
                f.whenComplete((v, failure) -> {
                    if (failure != null) {
                        LOG.log(System.Logger.Level.DEBUG, "unsubscribe of " + channel + " not confirmed", failure);
                    }
                    mine.complete(null); // confirmed, or the connection is gone (and the subscription with it)
                });
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "unsubscribe of " + channel + " not sent", e);
                mine.complete(null);
            }
            return mine;
        }

        @Override
        public String toString() {
            return (sharded ? "sharded " : "") + "subscription to " + channel + " on " + target;
        }
    }

    /** The one Lettuce listener on the pub/sub connection. */
    private final class Dispatcher extends RedisPubSubAdapter<String, String> {
        @Override
        public void message(String channel, String message) {
            Sub s = channels.get(channel);
            if (s != null) {
                s.deliver(message);
            }
        }

        @Override
        public void smessage(String channel, String message) {
            Sub s = shardChannels.get(channel);
            if (s != null) {
                s.deliver(message);
            }
        }

        /**
         * A sharded channel we still want was dropped by the server: its slot moved (failover or
         * migration; Redis tells the old owner's subscribers with an unrequested SUNSUBSCRIBE). Our
         * own SUNSUBSCRIBE always removes the channel from the map first, so this is never ours.
         */
        @Override
        public void sunsubscribed(String channel, long count) {
            if (shardChannels.containsKey(channel) && !closed.get()) {
                resubscribeShard(channel, 0);
            }
        }
    }

    /**
     * Subscribes a dropped sharded channel again (Lettuce routes it by the slot, through its
     * partition table; a node of the slot's shard that is now a replica still delivers the shard's
     * messages), retrying with a backoff while the channel is wanted, then tells core so its
     * waiters poll once.
     */
    private void resubscribeShard(String channel, int attempt) {
        if (closed.get() || !shardChannels.containsKey(channel)) {
            return;
        }
        CompletableFuture<Void> sent;
        try {
            Sub sub = shardChannels.get(channel);
            if (sub != null) {
                sub.routedTo(shardOwner(channel));
            }
            sent = pubSub.async().ssubscribe(channel).toCompletableFuture();
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((v, failure) -> {
            if (failure != null) {
                long backoffMs = Math.min(2000, 50L << Math.min(attempt, 6));
                LOG.log(System.Logger.Level.DEBUG, "resubscribing " + channel + " failed; again in " + backoffMs + " ms",
                        failure);
                CompletableFuture.delayedExecutor(backoffMs, java.util.concurrent.TimeUnit.MILLISECONDS)
                        .execute(() -> resubscribeShard(channel, attempt + 1));
                return;
            }
            undoIfUnsubscribedMeanwhile(channel, true);
            if (!closed.get()) {
                LOG.log(System.Logger.Level.DEBUG, "sharded channel {0} moved; subscribed again", channel);
                try {
                    connectionListener.onReconnect();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "ConnectionListener.onReconnect threw", e);
                }
            }
        });
    }

    /** Sees the pub/sub connection come back (Lettuce does not fire it for the first connect). */
    private final class ReconnectHook implements RedisConnectionStateListener {
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
            resubscribeThenNotify();
        }
    }

    private void resubscribeThenNotify() {
        if (closed.get()) {
            return;
        }
        List<CompletableFuture<Void>> confirmations = new ArrayList<>();
        try {
            for (String ch : channels.keySet()) {
                confirmations.add(pubSub.async().subscribe(ch).toCompletableFuture()
                        .thenRun(() -> undoIfUnsubscribedMeanwhile(ch, false)));
            }
            for (Map.Entry<String, Sub> e : shardChannels.entrySet()) {
                String ch = e.getKey();
                e.getValue().routedTo(shardOwner(ch));
                confirmations.add(pubSub.async().ssubscribe(ch).toCompletableFuture()
                        .thenRun(() -> undoIfUnsubscribedMeanwhile(ch, true)));
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "resubscribe after reconnect not sent; the next reconnect reports", e);
            return;
        }
        CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new)).whenComplete((v, failure) -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.DEBUG, "resubscribe after reconnect failed; the next reconnect reports", failure);
                return;
            }
            if (closed.get()) {
                return;
            }
            LOG.log(System.Logger.Level.DEBUG, "pub/sub connection to {0} back, {1} channel(s) subscribed", target,
                    confirmations.size());
            try {
                connectionListener.onReconnect();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "ConnectionListener.onReconnect threw", e);
            }
        });
    }

    /**
     * A channel unsubscribed while the reconnect resubscribed it may have sent its UNSUBSCRIBE before
     * our SUBSCRIBE: Redis (and Lettuce's own resubscribe list) would keep it with no listener.
     * Checked under the map's per-key lock, so a new subscribe of the channel cannot interleave:
     * its entry is put before its SUBSCRIBE is sent, so either we see it or our UNSUBSCRIBE goes first.
     */
    private void undoIfUnsubscribedMeanwhile(String channel, boolean sharded) {
        subs(sharded).compute(channel, (ch, live) -> {
            if (live == null && !closed.get()) {
                try {
                    if (sharded) {
                        pubSub.async().sunsubscribe(ch);
                    } else {
                        pubSub.async().unsubscribe(ch);
                    }
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "undoing the resubscribe of " + ch + " not sent", e);
                }
            }
            return live;
        });
    }

    /** Detaches from and closes the pub/sub connection; every later subscribe fails. Idempotent. */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pubSub.removeListener(reconnectHook);
        pubSub.removeListener(dispatcher);
        try {
            pubSub.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the pub/sub connection to " + target + " failed", e);
        }
        channels.clear();
        shardChannels.clear();
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("the lettuce executor for " + target + " is closed");
    }
}
