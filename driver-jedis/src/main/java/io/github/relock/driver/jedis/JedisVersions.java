package io.github.relock.driver.jedis;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.providers.ConnectionProvider;

/**
 * The one place that knows what differs between Jedis 6, 7 and 8. The driver is compiled against
 * Jedis 8 and runs on 6.0 and later; every call whose class, signature or visibility changed in
 * that range goes through here, resolved once when this class initialises:
 *
 * <table>
 *   <caption>What differs</caption>
 *   <tr><th>What</th><th>Jedis 6</th><th>Jedis 7</th><th>Jedis 8</th></tr>
 *   <tr><td>{@code UnifiedJedis.pipelined()} returns</td><td>{@code PipelineBase}</td>
 *       <td>{@code AbstractPipeline}</td><td>{@code AbstractPipeline}</td></tr>
 *   <tr><td>cluster clients</td><td>{@code JedisCluster}</td>
 *       <td>{@code JedisCluster}, {@code RedisClusterClient}</td>
 *       <td>{@code JedisCluster}, {@code RedisClusterClient}</td></tr>
 *   <tr><td>pooled single-node client</td><td>{@code JedisPooled}</td>
 *       <td>{@code RedisClient} (and {@code JedisPooled})</td><td>{@code RedisClient}</td></tr>
 *   <tr><td>{@code Connection.getHostAndPort()}</td><td>package-private</td><td>package-private</td>
 *       <td>public</td></tr>
 * </table>
 *
 * A call site compiled against 8 names the return type {@code AbstractPipeline}, which does not
 * link on 6, so {@link #pipelined} calls through a method handle adapted to whatever the running
 * Jedis declares. Classes that exist only in some versions are never named in code that runs on
 * the others: {@code RedisClusterClient} is looked up by name and {@link RedisClient} is named
 * only inside {@link Jedis7}, which loads only when that class is present. The package-private
 * {@code getHostAndPort()} is opened with reflection (Jedis is on the class path or an automatic
 * module, whose packages are open); where that is refused, {@link #hostAndPort} answers
 * {@code null} and the caller treats the node as unknown. The same goes for the protected
 * {@code UnifiedJedis.provider} field ({@link #provider}), through which the driver reads the slot
 * cache ({@link #slotNode}) and borrows the pub/sub connection it must be able to discard.
 *
 * <p>Thread-safety: stateless after class initialisation; safe for use by several threads.
 */
final class JedisVersions {
    private static final System.Logger LOG = System.getLogger(JedisVersions.class.getName());

    /** The running Jedis version (from its jar's {@code pom.properties}), or "unknown". */
    static final String VERSION;
    /** {@code RedisClusterClient} (Jedis 7+), or null. */
    private static final Class<?> CLUSTER_CLIENT;
    /** {@code (UnifiedJedis, int) Connection} on a {@code RedisClusterClient}, or null. */
    private static final MethodHandle CLUSTER_CLIENT_SLOT;
    /** {@code (UnifiedJedis) Map} on a {@code RedisClusterClient}, or null. */
    private static final MethodHandle CLUSTER_CLIENT_NODES;
    /** {@code (UnifiedJedis) AbstractPipeline}, whatever the declared return type. */
    private static final MethodHandle PIPELINED;
    /** {@code (Connection) HostAndPort}, or null when it cannot be opened. */
    private static final MethodHandle HOST_AND_PORT;
    /** {@code (UnifiedJedis) ConnectionProvider}: the protected field, or null when it cannot be opened. */
    private static final MethodHandle PROVIDER;
    /** {@code (Connection) void}: the protected {@code Connection.flush()}, or null when it cannot be opened. */
    private static final MethodHandle FLUSH;
    /** Whether {@code ClusterConnectionProvider.getNode(int)} (the slot cache's master of a slot) exists. */
    private static final boolean HAS_SLOT_NODE;
    /** {@code (HostAndPort, JedisClientConfig) JedisPooled} on Jedis 6, or null. */
    private static final MethodHandle JEDIS_POOLED;
    private static final boolean HAS_REDIS_CLIENT;

    static {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        VERSION = bundleVersion();
        CLUSTER_CLIENT = find("redis.clients.jedis.RedisClusterClient");
        HAS_REDIS_CLIENT = find("redis.clients.jedis.RedisClient") != null;
        try {
            if (CLUSTER_CLIENT != null) {
                CLUSTER_CLIENT_SLOT = lookup.unreflect(CLUSTER_CLIENT.getMethod("getConnectionFromSlot", int.class))
                        .asType(MethodType.methodType(Connection.class, UnifiedJedis.class, int.class));
                CLUSTER_CLIENT_NODES = lookup.unreflect(CLUSTER_CLIENT.getMethod("getClusterNodes"))
                        .asType(MethodType.methodType(Map.class, UnifiedJedis.class));
            } else {
                CLUSTER_CLIENT_SLOT = null;
                CLUSTER_CLIENT_NODES = null;
            }
            PIPELINED = lookup.unreflect(UnifiedJedis.class.getMethod("pipelined"))
                    .asType(MethodType.methodType(AbstractPipeline.class, UnifiedJedis.class));
            Class<?> pooled = HAS_REDIS_CLIENT ? null : find("redis.clients.jedis.JedisPooled");
            JEDIS_POOLED = pooled == null ? null
                    : lookup.findConstructor(pooled, MethodType.methodType(void.class, HostAndPort.class,
                            JedisClientConfig.class)).asType(MethodType.methodType(UnifiedJedis.class,
                            HostAndPort.class, JedisClientConfig.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("relock's jedis driver does not know Jedis " + VERSION
                    + " (it supports 6.0 to 8.x): " + e);
        }
        HOST_AND_PORT = openHostAndPort();
        PROVIDER = openProvider();
        FLUSH = openFlush();
        HAS_SLOT_NODE = hasMethod(ClusterConnectionProvider.class, "getNode", int.class);
    }

    private JedisVersions() {
    }

    /** @return whether {@code client} routes by slot ({@code JedisCluster} or {@code RedisClusterClient}) */
    static boolean isCluster(UnifiedJedis client) {
        return client instanceof JedisCluster || (CLUSTER_CLIENT != null && CLUSTER_CLIENT.isInstance(client));
    }

    /**
     * @param cluster a client for which {@link #isCluster} holds
     * @return borrows a pooled connection to the master serving a slot
     */
    static IntFunction<Connection> slotConnection(UnifiedJedis cluster) {
        if (cluster instanceof JedisCluster jc) {
            return jc::getConnectionFromSlot;
        }
        return slot -> {
            try {
                return (Connection) CLUSTER_CLIENT_SLOT.invokeExact(cluster, slot);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        };
    }

    /**
     * @param cluster a client for which {@link #isCluster} holds
     * @return the client's connection pools by {@code host:port}
     */
    @SuppressWarnings("unchecked")
    static Supplier<Map<String, ConnectionPool>> clusterNodes(UnifiedJedis cluster) {
        if (cluster instanceof JedisCluster jc) {
            return jc::getClusterNodes;
        }
        return () -> {
            try {
                return (Map<String, ConnectionPool>) (Map<?, ?>) CLUSTER_CLIENT_NODES.invokeExact(cluster);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        };
    }

    /**
     * The master serving a slot as the cluster client's slot cache says, read without borrowing a
     * connection or making a round trip: {@code ClusterConnectionProvider.getNode(int)}, which
     * takes the cache's read lock only (Jedis refreshes the cache's arrays under the write lock
     * after its {@code CLUSTER SLOTS} round trip, not during it).
     *
     * @param cluster a client for which {@link #isCluster} holds
     * @return the lookup (answering null for a slot the cache does not map), or null when this
     *     Jedis or this client does not let the driver read the cache
     */
    static IntFunction<HostAndPort> slotNode(UnifiedJedis cluster) {
        if (HAS_SLOT_NODE && provider(cluster) instanceof ClusterConnectionProvider p) {
            return p::getNode;
        }
        return null;
    }

    /**
     * @param client any client
     * @return the client's connection provider (its pool, or its pools by node), or null when this
     *     Jedis does not let the driver read it
     */
    static ConnectionProvider provider(UnifiedJedis client) {
        if (PROVIDER == null) {
            return null;
        }
        try {
            return (ConnectionProvider) PROVIDER.invokeExact(client);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return whether {@link #flush} can flush a connection's buffered commands on this Jedis */
    static boolean flushes() {
        return FLUSH != null;
    }

    /** Flushes the commands {@code c} has buffered ({@code Connection.sendCommand} does not). */
    static void flush(Connection c) {
        try {
            FLUSH.invokeExact(c);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return a new pipeline on {@code client} (close it) */
    static AbstractPipeline pipelined(UnifiedJedis client) {
        try {
            return (AbstractPipeline) PIPELINED.invokeExact(client);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return whether {@link #hostAndPort} can read a connection's address on this Jedis */
    static boolean readsNodeAddresses() {
        return HOST_AND_PORT != null;
    }

    /** @return the address {@code c} is connected to, or null when this Jedis does not let us read it */
    static HostAndPort hostAndPort(Connection c) {
        if (HOST_AND_PORT == null) {
            return null;
        }
        try {
            return (HostAndPort) HOST_AND_PORT.invokeExact(c);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** @return a pooled single-node client: {@code RedisClient} on Jedis 7+, {@code JedisPooled} on 6 */
    static UnifiedJedis openPooled(HostAndPort node, JedisClientConfig config) {
        if (HAS_REDIS_CLIENT) {
            return Jedis7.openPooled(node, config);
        }
        try {
            return (UnifiedJedis) JEDIS_POOLED.invokeExact(node, config);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Code naming classes that Jedis 7 added; loads only when they are there. */
    private static final class Jedis7 {
        static UnifiedJedis openPooled(HostAndPort node, JedisClientConfig config) {
            return RedisClient.builder().hostAndPort(node).clientConfig(config).build();
        }
    }

    /** What a method handle threw, unchanged when unchecked (the targets declare no checked exception). */
    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return t instanceof RuntimeException r ? r : new IllegalStateException(t);
    }

    private static MethodHandle openHostAndPort() {
        try {
            Method m = Connection.class.getDeclaredMethod("getHostAndPort");
            if (!Modifier.isPublic(m.getModifiers())) {
                m.setAccessible(true); // Jedis 6/7: package-private
            }
            return MethodHandles.lookup().unreflect(m);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot read a Jedis " + VERSION + " connection's address (" + e
                    + "); the jedis driver reports no node for a slot and sharded pub/sub is off");
            return null;
        }
    }

    private static MethodHandle openProvider() {
        try {
            Field f = UnifiedJedis.class.getDeclaredField("provider");
            f.setAccessible(true); // protected
            return MethodHandles.lookup().unreflectGetter(f)
                    .asType(MethodType.methodType(ConnectionProvider.class, UnifiedJedis.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot read a Jedis " + VERSION + " client's connection provider ("
                    + e + "); the jedis driver reports no node for a slot, and a pub/sub connection Redis refused "
                    + "a channel on is closed by the client's own pool only");
            return null;
        }
    }

    private static MethodHandle openFlush() {
        try {
            Method m = Connection.class.getDeclaredMethod("flush");
            m.setAccessible(true); // protected
            return MethodHandles.lookup().unreflect(m).asType(MethodType.methodType(void.class, Connection.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot flush a Jedis " + VERSION + " connection (" + e
                    + "); sharded pub/sub reads with Jedis' own loop, which ends a node's session at an error reply");
            return null;
        }
    }

    private static boolean hasMethod(Class<?> type, String name, Class<?>... parameters) {
        try {
            type.getMethod(name, parameters);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static Class<?> find(String name) {
        try {
            return Class.forName(name, false, UnifiedJedis.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    private static String bundleVersion() {
        try (var in = UnifiedJedis.class.getResourceAsStream("/redis/clients/jedis/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
