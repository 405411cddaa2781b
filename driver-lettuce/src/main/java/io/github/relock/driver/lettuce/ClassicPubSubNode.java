package io.github.relock.driver.lettuce;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.function.Supplier;

/**
 * On a cluster: which node the classic pub/sub connection is connected to, for
 * {@link LettuceCommandExecutor#classicPubSubOnNodeOf}. Lettuce connects a cluster pub/sub
 * connection's classic channel to a node of its choice and may choose another on reconnect; it
 * reports each connect with the remote address to its state listeners. The first connect happens
 * inside {@code connectPubSub}, before a listener can be added to the connection, so it is heard by
 * a listener on the client for the length of that call ({@link #connecting}), the later ones by
 * this listener on the connection ({@link #attach}).
 *
 * <p>Thread-safety: safe for use by several threads; the address is one volatile reference.
 */
final class ClassicPubSubNode implements RedisConnectionStateListener {
    /** The address before any connect was heard: the node is unknown. */
    private static final SocketAddress UNKNOWN = new SocketAddress() {
    };

    private final Supplier<Partitions> partitions;
    private volatile Object connection;
    /** The remote address of the classic connection; null while it is down; {@link #UNKNOWN} before the first connect. */
    private volatile SocketAddress address = UNKNOWN;
    /** The first connect, heard by the client-wide listener before the connection is known. */
    private final java.util.Map<Object, SocketAddress> connecting =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** @param partitions the cluster connection's partition table (the slot cache) */
    ClassicPubSubNode(Supplier<Partitions> partitions) {
        this.partitions = partitions;
    }

    /** Starts listening on the connection once {@code connectPubSub} returned it (the client's listener is removed). */
    void attach(StatefulRedisPubSubConnection<?, ?> pubSub) {
        connection = pubSub;
        SocketAddress first = connecting.get(pubSub);
        connecting.clear();
        pubSub.addListener(this);
        if (first != null && address == UNKNOWN) {
            address = first;
        }
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> c, SocketAddress remote) {
        if (connection == null) {
            connecting.put(c, remote);
        } else if (c == connection) {
            address = remote;
        }
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> c) {
        if (c == connection) {
            address = null; // its subscriptions are gone with it until the reconnect
        }
    }

    /**
     * @return whether the classic connection is on the master serving {@code slot}; false while it
     *     is down; null when its node, or the slot's master, is not known
     */
    Boolean onMasterOf(int slot) {
        SocketAddress at = address;
        if (at == null) {
            return false;
        }
        if (!(at instanceof InetSocketAddress remote)) {
            return null;
        }
        Partitions table = partitions.get();
        RedisClusterNode master = table.getMasterBySlot(slot);
        if (master == null) {
            return null;
        }
        if (is(master.getUri(), remote)) {
            return true;
        }
        for (RedisClusterNode n : table) {
            if (is(n.getUri(), remote)) {
                return false; // another node of the cluster
            }
        }
        return null; // an address the table names otherwise (a host name): cannot tell
    }

    private static boolean is(RedisURI uri, InetSocketAddress remote) {
        return uri != null && uri.getPort() == remote.getPort() && (uri.getHost().equals(remote.getHostString())
                || remote.getAddress() != null && uri.getHost().equals(remote.getAddress().getHostAddress()));
    }
}
