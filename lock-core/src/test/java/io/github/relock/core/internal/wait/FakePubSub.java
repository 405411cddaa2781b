package io.github.relock.core.internal.wait;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A driver that only subscribes: subscriptions are confirmed at once, or held until
 * {@link #confirm} when {@code hold} is set; scripts are not its business (the wait tests run
 * attempts through a {@link FakeLock}).
 */
final class FakePubSub implements CommandExecutor {
    final Map<String, CompletableFuture<Subscription>> pending = new ConcurrentHashMap<>();
    final AtomicInteger subscribes = new AtomicInteger();
    final AtomicInteger unsubscribes = new AtomicInteger();
    final Set<String> subscribed = ConcurrentHashMap.newKeySet();
    volatile boolean hold;
    volatile RuntimeException failWith;
    /** Fails the sharded subscriptions only (a server without SSUBSCRIBE), when set. */
    volatile RuntimeException shardedFailWith;
    /** The listener of each subscription, by {@code "classic "} or {@code "sharded "} and the channel. */
    final Map<String, MessageListener> listeners = new ConcurrentHashMap<>();

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        subscribes.incrementAndGet();
        listeners.put((sharded ? "sharded " : "classic ") + channel, listener);
        if (failWith != null) {
            return CompletableFuture.failedFuture(failWith);
        }
        if (sharded && shardedFailWith != null) {
            return CompletableFuture.failedFuture(shardedFailWith);
        }
        Subscription s = subscription(channel);
        if (hold) {
            CompletableFuture<Subscription> f = new CompletableFuture<>();
            pending.put(channel, f);
            return f;
        }
        subscribed.add(channel);
        return CompletableFuture.completedFuture(s);
    }

    /** Delivers a message as a PUBLISH ({@code sharded} false) or an SPUBLISH would, to that subscription's listener. */
    void publish(String channel, String message, boolean sharded) {
        MessageListener l = listeners.get((sharded ? "sharded " : "classic ") + channel);
        if (l != null) {
            l.onMessage(channel, message);
        }
    }

    /** Confirms a held subscription. */
    void confirm(String channel) {
        CompletableFuture<Subscription> f = pending.remove(channel);
        subscribed.add(channel);
        f.complete(subscription(channel));
    }

    private Subscription subscription(String channel) {
        return new Subscription() {
            @Override
            public String channel() {
                return channel;
            }

            @Override
            public CompletableFuture<Void> unsubscribe() {
                unsubscribes.incrementAndGet();
                subscribed.remove(channel);
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    @Override
    public Object eval(ScriptCall call) {
        throw new UnsupportedOperationException("the wait tests send no scripts");
    }

    @Override
    public CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        throw new UnsupportedOperationException("the wait tests send no scripts");
    }

    @Override
    public void setConnectionListener(ConnectionListener listener) {
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.of();
    }

    @Override
    public void close() {
    }
}
