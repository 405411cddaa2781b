package io.github.relock.driver.springdata;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.RedisPubSubListener;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Sharded pub/sub ({@code SSUBSCRIBE}) on a cluster-aware {@code LettuceConnectionFactory}. Spring
 * Data Redis has no sharded subscribe, so this class opens one cluster pub/sub connection of its
 * own from the factory's Lettuce client ({@code getRequiredNativeClient()}, so the factory's
 * options, credentials and resources apply) the first time a sharded channel is wanted, and closes
 * it on {@link #close()}; the factory's client stays the application's.
 *
 * <p>Design. Lettuce routes each {@code SSUBSCRIBE} to the node serving the channel's slot and
 * delivers {@code smessage}s of every node to the listener on this connection. A channel is put in
 * the map before its {@code SSUBSCRIBE} is sent and taken out before its {@code SUNSUBSCRIBE}, so a
 * message is never lost between confirmation and use and never delivered after an unsubscribe.
 * Two events lose channels: the slot moved (Redis sends an unrequested {@code sunsubscribe} to the
 * old owner's subscribers) and the connection broke (Lettuce reconnects and resubscribes, and this
 * class subscribes its channels again too, not relying on when that runs). Either way the channels
 * are subscribed again, retried with a growing delay while still wanted, and then
 * {@link ConnectionListener#onReconnect()} lets core's waiters try once more.
 *
 * <p>The only class besides {@link LettuceScriptCalls} and {@link LettuceReply} that touches
 * Lettuce; loaded only for a Lettuce-backed cluster factory.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class LettuceShardedPubSub {

    private static final System.Logger LOG = System.getLogger(LettuceShardedPubSub.class.getName());
    private static final long MAX_RETRY_MS = 2_000;

    private final LettuceConnectionFactory factory;
    private final Duration timeout;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final ReentrantLock openLock = new ReentrantLock();
    private final Events events = new Events();
    /** The connection, once asked for; a failed open is tried again by the next caller. Guarded by openLock. */
    private CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connection;
    private volatile ConnectionListener connectionListener;
    private volatile boolean closed;

    LettuceShardedPubSub(RedisConnectionFactory factory, Duration timeout) {
        this.factory = (LettuceConnectionFactory) factory;
        this.timeout = timeout;
    }

    void setConnectionListener(ConnectionListener listener) {
        this.connectionListener = listener;
    }

    CompletableFuture<Subscription> subscribe(String name, MessageListener listener) {
        Channel ch = new Channel(name, listener);
        if (channels.putIfAbsent(name, ch) != null) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "sharded channel " + name + " is already subscribed on this executor"));
        }
        String what = "SSUBSCRIBE " + name;
        CompletableFuture<Subscription> result = new CompletableFuture<>();
        send(ch.raw, true).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((v, failure) -> {
            if (failure == null) {
                result.complete(ch);
                return;
            }
            channels.remove(name, ch);
            unsubscribeIfUnwanted(ch.raw); // a confirmation after the timeout must not leave it subscribed
            result.completeExceptionally(failure instanceof TimeoutException
                    ? new RedisUnavailableException(what + ": Redis did not confirm within " + timeout, failure)
                    : SpringErrors.translate(failure, what));
        });
        return result;
    }

    /** Sends {@code SSUBSCRIBE} or {@code SUNSUBSCRIBE} of one channel; Lettuce routes it by slot. */
    private CompletableFuture<Void> send(byte[] raw, boolean subscribe) {
        try {
            return connection().thenCompose(c -> (subscribe ? c.async().ssubscribe(raw) : c.async().sunsubscribe(raw)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Opens the connection without blocking: core subscribes from the thread that completed a
     * script's reply, which can be a Lettuce event loop, and a blocking connect there waits for
     * that same loop (a deadlock seen in the cluster kit).
     */
    private CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connection() {
        openLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the executor is closed");
            }
            if (connection == null || connection.isCompletedExceptionally()) {
                RedisClusterClient client = (RedisClusterClient) factory.getRequiredNativeClient();
                // Spring may not have connected the client yet, and a cluster pub/sub connect refuses
                // to start before the client knows the topology: learn it first (without blocking)
                connection = client.refreshPartitionsAsync().toCompletableFuture()
                        .thenCompose(v -> client.connectPubSubAsync(ByteArrayCodec.INSTANCE)).thenApply(c -> {
                    // Lettuce sends each SSUBSCRIBE on a pub/sub connection of the slot's node; their
                    // messages reach this connection's listeners only with propagation on
                    c.setNodeMessagePropagation(true);
                    c.addListener((RedisPubSubListener<byte[], byte[]>) events);
                    c.addListener((RedisConnectionStateListener) events);
                    return c;
                });
            }
            return connection;
        } finally {
            openLock.unlock();
        }
    }

    private void unsubscribeIfUnwanted(byte[] raw) {
        String name = new String(raw, StandardCharsets.UTF_8);
        if (!channels.containsKey(name) && !closed) {
            send(raw, false);
        }
    }

    /** Subscribes the channels again (after a slot moved or a reconnect), retrying while wanted. */
    private void resubscribe(List<Channel> lost, long delayMs) {
        if (closed || lost.isEmpty()) {
            return;
        }
        List<CompletableFuture<Void>> confirmations = new ArrayList<>();
        for (Channel ch : lost) {
            confirmations.add(send(ch.raw, true).whenComplete((v, failure) -> {
                if (failure == null && channels.get(ch.name) != ch) {
                    unsubscribeIfUnwanted(ch.raw); // unsubscribed meanwhile: undo ours
                }
            }));
        }
        CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new)).whenComplete((v, failure) -> {
            if (closed) {
                return;
            }
            if (failure != null) {
                long next = Math.min(MAX_RETRY_MS, Math.max(50, delayMs * 2));
                LOG.log(System.Logger.Level.DEBUG, "sharded resubscribe failed, retrying in {0} ms: {1}", next,
                        failure.getMessage());
                CompletableFuture.delayedExecutor(next, TimeUnit.MILLISECONDS)
                        .execute(() -> resubscribe(wanted(lost), next));
                return;
            }
            ConnectionListener l = connectionListener;
            if (l != null) {
                l.onReconnect();
            }
        });
    }

    private List<Channel> wanted(List<Channel> candidates) {
        List<Channel> out = new ArrayList<>();
        for (Channel ch : candidates) {
            if (channels.get(ch.name) == ch) {
                out.add(ch);
            }
        }
        return out;
    }

    void close() {
        openLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (connection != null) {
                // now, or when an open still under way ends
                connection.thenAccept(c -> {
                    c.removeListener((RedisPubSubListener<byte[], byte[]>) events);
                    c.removeListener((RedisConnectionStateListener) events);
                    c.closeAsync().whenComplete((v, e) -> {
                        if (e != null) {
                            LOG.log(System.Logger.Level.DEBUG, "closing the sharded pub/sub connection failed", e);
                        }
                    });
                });
            }
        } finally {
            openLock.unlock();
        }
        channels.clear();
    }

    /** Lettuce's callbacks, on its event loop. */
    private final class Events extends RedisPubSubAdapter<byte[], byte[]> implements RedisConnectionStateListener {
        @Override
        public void smessage(byte[] raw, byte[] message) {
            Channel ch = channels.get(new String(raw, StandardCharsets.UTF_8));
            if (ch != null) {
                ch.listener.onMessage(ch.name, new String(message, StandardCharsets.UTF_8));
            }
        }

        /** Ours are sent after the channel left the map; one for a wanted channel means its slot moved. */
        @Override
        public void sunsubscribed(byte[] raw, long count) {
            Channel ch = channels.get(new String(raw, StandardCharsets.UTF_8));
            if (ch != null && !closed) {
                LOG.log(System.Logger.Level.DEBUG, "sharded channel {0} dropped by Redis (slot moved); resubscribing", ch.name);
                resubscribe(List.of(ch), 0);
            }
        }

        /** Lettuce calls it after a reconnect, not for the first connect. */
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
            resubscribe(new ArrayList<>(channels.values()), 0);
        }
    }

    /** One sharded channel; also the {@link Subscription} handed to core. */
    private final class Channel extends ChannelSubscription {
        private final CompletableFuture<Void> unsubscribed = new CompletableFuture<>();

        Channel(String name, MessageListener listener) {
            super(name, listener);
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            if (channels.remove(name, this) && !closed) {
                send(raw, false).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .whenComplete((v, failure) -> unsubscribed.complete(null)); // confirmed, or gone with the connection
            } else {
                unsubscribed.complete(null);
            }
            return unsubscribed.thenApply(v -> v);
        }

        @Override
        public String toString() {
            return "ShardedSubscription[" + name + "]";
        }
    }
}
