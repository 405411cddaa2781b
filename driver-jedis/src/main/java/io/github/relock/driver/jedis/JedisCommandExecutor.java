package io.github.relock.driver.jedis;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.NotSentException;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.spi.pubsub.SessionPubSub;
import io.github.relock.spi.pubsub.ShardedPubSub;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * relock's {@link CommandExecutor} on a Jedis {@link UnifiedJedis} or a classic pool of {@code Jedis}
 * ({@link JedisAccess}), on Jedis 6.0 to 8.x ({@link JedisVersions}).
 *
 * <ul>
 *   <li>Scripts run on the caller's thread through the client ({@code EVALSHA}/{@code EVAL} with
 *       UTF-8 keys and args); a cluster client routes them by the first key. Jedis socket IO is not
 *       interruptible, so an interrupted caller still gets the reply and keeps its interrupt
 *       status.</li>
 *   <li>The async variants run the same call on a small pool of daemon threads
 *       ({@code relock-jedis-async-N}) owned by this executor: {@code max(2, cores)} threads,
 *       because each call blocks a thread for one round trip and the client's connection pool
 *       (8 by default) bounds useful parallelism anyway; threads start on demand and end after
 *       30 s idle. At most {@value #ASYNC_QUEUE} calls wait for a thread; beyond that a call
 *       fails at once as <i>not sent</i> ({@link NotSentException}) instead of blocking the caller. A
 *       call still waiting when its command timeout ({@link DriverOptions#commandTimeout()}) has
 *       passed is never sent: it fails as not sent too, so a release stuck behind a stall cannot
 *       run after its caller gave up.</li>
 *   <li>The renewal lane ({@link Lane#RENEWAL}): the watchdog's calls run on threads of
 *       their own ({@code relock-jedis-renewal-N}, at most {@value #URGENT_THREADS}, each borrowing
 *       its own connection from the client), never behind the application's queued calls, with
 *       the same deadline.</li>
 *   <li>Pub/sub: core's {@link SessionPubSub} over a Jedis {@link PubSubTransport#classic} link
 *       (one connection, one reader thread).</li>
 *   <li>{@link Capability#REPLICA_WAIT}: a client pipeline ({@code EVALSHA} then {@code WAIT}) on
 *       the connection of the first key's node. {@link Capability#CLUSTER} for cluster clients.
 *       {@link Capability#SHARDED_PUBSUB} for cluster clients on Redis 7+ (probed once with
 *       {@code PUBSUB SHARDNUMSUB}): core's {@link ShardedPubSub} over {@link PubSubTransport#nodes},
 *       one connection and reader thread per master that carries a channel.</li>
 * </ul>
 * A client handed to {@link JedisDriverProvider#create} keeps its own socket timeout; the
 * {@link DriverOptions#commandTimeout()} applies to clients the driver opens itself.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class JedisCommandExecutor implements CommandExecutor {
    static final String ASYNC_THREAD_PREFIX = "relock-jedis-async-";
    static final int ASYNC_QUEUE = 10_000;
    static final String URGENT_THREAD_PREFIX = "relock-jedis-renewal-";
    static final int URGENT_THREADS = 2;
    /** Renewal calls waiting for a renewal thread: a round sends a few batches at a time. */
    static final int URGENT_QUEUE = 1_000;
    private static final System.Logger LOG = System.getLogger(JedisCommandExecutor.class.getName());
    private static final AtomicInteger ASYNC_THREADS = new AtomicInteger();
    private static final AtomicInteger URGENT_THREAD_COUNT = new AtomicInteger();

    private final JedisAccess client;
    /** The client when it is a cluster client; otherwise null. */
    private final UnifiedJedis cluster;
    private final boolean ownsClient;
    private final String description;
    private final Duration commandTimeout;
    private final Set<Capability> capabilities;
    private final long commandTimeoutNanos;
    private final ThreadPoolExecutor async;
    /** The renewal lane: never shared with the application's async calls. */
    private final ThreadPoolExecutor urgent;
    private final SessionPubSub pubsub;
    /** Only for a cluster client on Redis 7+; otherwise null. */
    private final ShardedPubSub<HostAndPort> sharded;
    /**
     * Only for a cluster client whose slot cache the driver can read: the master of a slot from
     * Jedis' slot cache, without borrowing a connection. Otherwise null.
     */
    private final IntFunction<HostAndPort> slotNode;
    /**
     * {@link #slotNode} where the servers have sharded pub/sub (Redis 7+), for
     * {@link #classicPubSubOnNodeOf}; otherwise null, as before core batched renewals on 6.2.
     */
    private final IntFunction<HostAndPort> classicSlotNode;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param client the client or pool to run on
     * @param ownsClient whether {@link #close()} closes it (only when the driver created it)
     * @param description the server or client, for messages
     * @param options core's options
     */
    JedisCommandExecutor(JedisAccess client, boolean ownsClient, String description, DriverOptions options) {
        this.client = Objects.requireNonNull(client, "client");
        this.cluster = client.cluster();
        this.ownsClient = ownsClient;
        this.description = description;
        this.commandTimeout = options.commandTimeout();
        EnumSet<Capability> caps = EnumSet.of(Capability.REPLICA_WAIT);
        ShardedPubSub<HostAndPort> sharded = null;
        IntFunction<HostAndPort> slotNode = null;
        IntFunction<HostAndPort> classicSlotNode = null;
        if (cluster != null) {
            caps.add(Capability.CLUSTER);
            if (JedisVersions.readsNodeAddresses()) {
                // Whatever the server: core batches a node's renewals by it, and falls back to one
                // script per slot itself where the server refuses the batch's script flag (Redis 6.2)
                slotNode = JedisVersions.slotNode(cluster);
            }
            if (slotNode != null && supportsShardedPubSub(cluster, description)) {
                caps.add(Capability.SHARDED_PUBSUB);
                classicSlotNode = slotNode;
                IntFunction<Connection> slotConnection = JedisVersions.slotConnection(cluster);
                sharded = new ShardedPubSub<>(PubSubTransport.nodes(cluster, slotNode, slotConnection,
                        JedisVersions.clusterNodes(cluster), description), PubSubTransport.SHARDED_THREAD_PREFIX,
                        description, commandTimeout.plusSeconds(1));
            }
        }
        this.sharded = sharded;
        this.slotNode = slotNode;
        this.classicSlotNode = classicSlotNode;
        this.capabilities = Set.copyOf(caps);
        this.commandTimeoutNanos = commandTimeout.toNanos();
        this.async = lane(Math.max(2, Runtime.getRuntime().availableProcessors()), ASYNC_QUEUE, ASYNC_THREAD_PREFIX,
                ASYNC_THREADS);
        this.urgent = lane(URGENT_THREADS, URGENT_QUEUE, URGENT_THREAD_PREFIX, URGENT_THREAD_COUNT);
        this.pubsub = new SessionPubSub(PubSubTransport.classic(client), PubSubTransport.THREAD_NAME, description,
                commandTimeout.plusSeconds(1), options.pubSubProbeInterval(), commandTimeout);
    }

    @Override
    public Object eval(ScriptCall call) {
        Objects.requireNonNull(call, "call must not be null");
        Script script = call.script();
        return call.bySha()
                ? run("EVALSHA ", script, () -> client.evalsha(script.sha1(), call.keys(), call.args()))
                : run("EVAL ", script, () -> client.eval(script.text(), call.keys(), call.args()));
    }

    @Override
    public CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        Objects.requireNonNull(call, "call must not be null");
        Objects.requireNonNull(lane, "lane must not be null");
        return submit(lane == Lane.RENEWAL ? urgent : async, () -> eval(call),
                (call.bySha() ? "EVALSHA " : "EVAL ") + call.script().name());
    }

    @Override
    public List<Object> evalShaWithWait(Script script, List<String> keys, List<String> args,
                                        int replicas, long timeoutMs) {
        return withWait(ScriptCall.bySha(script, keys, args), replicas, timeoutMs);
    }

    /** The blocking pipeline of {@link #evalShaWithWait} on the lane's threads, as {@link #evalAsync}. */
    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<List<Object>> evalWithWaitAsync(ScriptCall call, int replicas, long timeoutMs, Lane lane) {
        Objects.requireNonNull(call, "call must not be null");
        Objects.requireNonNull(lane, "lane must not be null");
        return submit(lane == Lane.RENEWAL ? urgent : async, () -> withWait(call, replicas, timeoutMs),
                (call.bySha() ? "EVALSHA " : "EVAL ") + call.script().name() + " + WAIT " + replicas)
                .thenApply(r -> (List<Object>) r);
    }

    private List<Object> withWait(ScriptCall call, int replicas, long timeoutMs) {
        Script script = call.script();
        List<String> keys = call.keys();
        List<String> args = call.args();
        checkArgs(script, keys, args);
        if (replicas < 0 || timeoutMs < 0) {
            throw new IllegalArgumentException("replicas and timeoutMs must be >= 0, were " + replicas + " and " + timeoutMs);
        }
        String what = (call.bySha() ? "EVALSHA " : "EVAL ") + script.name() + " + WAIT " + replicas;
        ensureOpen(what);
        try {
            return pipelineWithWait(call, replicas, timeoutMs, what);
        } catch (RedisErrorException e) {
            if (!keys.isEmpty() && capabilities.contains(Capability.CLUSTER) && e.getMessage() != null
                    && e.getMessage().startsWith("ASK ")) {
                return askedWithWait(call, replicas, timeoutMs, what, e);
            }
            if (keys.isEmpty() || !capabilities.contains(Capability.CLUSTER) || e.getMessage() == null
                    || !e.getMessage().contains("MOVED")) {
                throw e;
            }
            // A cluster pipeline does not follow MOVED: the node refused, so nothing ran. One keyed
            // read follows the redirect and refreshes Jedis' slot cache; then send it once more.
            cluster.exists(keys.get(0));
            return pipelineWithWait(call, replicas, timeoutMs, what);
        }
    }

    /**
     * After {@code ASK} (the key's slot is being migrated; the node ran nothing): {@code ASKING},
     * the script and {@code WAIT} pipelined on one connection borrowed from the node the reply names,
     * so no other command comes between {@code ASKING} and the script. Sent once; without a pool
     * for that node, the {@code ASK} is the answer.
     */
    private List<Object> askedWithWait(ScriptCall call, int replicas, long timeoutMs, String what,
                                       RedisErrorException asked) {
        String[] parts = asked.getMessage().split(" ");
        ConnectionPool pool;
        try {
            pool = parts.length < 3 ? null : JedisVersions.clusterNodes(cluster).get().get(parts[2].trim());
        } catch (RuntimeException noPools) {
            pool = null;
        }
        if (pool == null) {
            throw asked;
        }
        Script script = call.script();
        ConnectionPool node = pool;
        return translating(what, () -> {
            try (Connection c = node.getResource()) {
                Pipeline p = new Pipeline(c);
                p.sendCommand(Protocol.Command.ASKING, new String[0]);
                Response<Object> reply = call.bySha() ? p.evalsha(script.sha1(), call.keys(), call.args())
                        : p.eval(script.text(), call.keys(), call.args());
                Response<Long> acked = p.waitReplicas(replicas, timeoutMs);
                p.sync();
                return java.util.Arrays.asList(scriptReply(reply, what), acked.get());
            }
        });
    }

    /** @return what {@code body} returns; a Jedis failure translated, relock's own passed on */
    private static <T> T translating(String what, Supplier<T> body) {
        try {
            return body.get();
        } catch (RedisErrorException | RedisUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw Errors.translate(e, what);
        }
    }

    /** @return the synced pipeline's script reply; its error reply, or none (the node's connection failed), thrown */
    private Object scriptReply(Response<Object> reply, String what) {
        try {
            return Replies.normalise(reply.get());
        } catch (IllegalStateException notBuilt) {
            // The pipeline ended without this reply (its node's connection failed).
            throw new RedisUnavailableException(what + " on " + description
                    + " got no reply; whether it ran is unknown", notBuilt);
        } catch (RuntimeException e) {
            throw Errors.translate(e, what);
        }
    }

    private List<Object> pipelineWithWait(ScriptCall call, int replicas, long timeoutMs, String what) {
        Script script = call.script();
        List<String> keys = call.keys();
        List<String> args = call.args();
        return translating(what, () -> client.pipelined(p -> {
            Response<Object> reply = call.bySha() ? p.evalsha(script.sha1(), keys, args)
                    : p.eval(script.text(), keys, args);
            Response<Long> acked;
            if (!keys.isEmpty()) {
                acked = p.waitReplicas(keys.get(0), replicas, timeoutMs); // same node as the script
            } else if (p instanceof Pipeline single) {
                acked = single.waitReplicas(replicas, timeoutMs);
            } else {
                throw new IllegalArgumentException("evalShaWithWait on a cluster needs at least one key to pick the node, "
                        + "got none for " + script);
            }
            p.sync();
            return java.util.Arrays.asList(scriptReply(reply, what), acked.get());
        }));
    }

    /** {@code INFO replication} from the node serving {@code key}: a plain command, no script. */
    @Override
    public String replicationInfo(String key) {
        Objects.requireNonNull(key, "key");
        String what = "INFO replication";
        ensureOpen(what);
        try {
            return client.info(key, "replication");
        } catch (RedisErrorException | RedisUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw Errors.translate(e, what);
        }
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        if (sharded) {
            if (this.sharded == null) {
                throw new UnsupportedOperationException("the jedis driver declares " + Capability.SHARDED_PUBSUB
                        + " only for a cluster client on Redis 7 or later; subscribe '" + channel + "' with sharded = false");
            }
            return this.sharded.subscribe(channel, listener);
        }
        return pubsub.subscribe(channel, listener);
    }

    @Override
    public void setConnectionListener(ConnectionListener listener) {
        pubsub.setConnectionListener(listener);
        if (sharded != null) {
            sharded.setConnectionListener(listener);
        }
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    /**
     * On a cluster client and Redis 7+: the address of the master serving {@code slot}, read from
     * Jedis' slot cache ({@link JedisVersions#slotNode}). It never borrows a pooled connection:
     * core calls this on its timer thread, and a borrow from a node pool the application has
     * exhausted waits until a connection comes back (forever by default), which would stop every
     * renewal and every loss deadline. Null when the cache has no master for the slot, or the
     * driver cannot read the cache: core then renews that slot on its own.
     */
    @Override
    public Object nodeOfSlot(int slot) {
        if (slotNode == null || closed.get()) {
            return null;
        }
        return slotNode.apply(slot);
    }

    /**
     * On a cluster client on Redis 7+: whether the classic pub/sub session's connection (borrowed
     * from the pool of whichever node Jedis lends it from, noted when the session started) goes to
     * the master serving {@code slot} in Jedis' slot cache; false while no session runs. Null when
     * the driver cannot read the slot cache or the connection's address.
     */
    @Override
    public Boolean classicPubSubOnNodeOf(int slot) {
        if (classicSlotNode == null || closed.get()) {
            return null;
        }
        Object mine = client.subscribedNode();
        if (mine == null) {
            return false;
        }
        HostAndPort owner = classicSlotNode.apply(slot);
        return mine == JedisAccess.UNKNOWN_NODE || owner == null ? null : mine.equals(owner);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pubsub.close();
        if (sharded != null) {
            sharded.close();
        }
        async.shutdown();
        urgent.shutdown();
        for (ThreadPoolExecutor lane : List.of(async, urgent)) {
            try {
                if (!lane.awaitTermination(commandTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS)) {
                    lane.shutdownNow();
                    if (!lane.awaitTermination(commandTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS)) {
                        LOG.log(Level.WARNING, "async calls on " + description + " did not end on close");
                    }
                }
            } catch (InterruptedException e) {
                async.shutdownNow();
                urgent.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        if (ownsClient) {
            try {
                client.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "closing the jedis client for " + description + " failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return "JedisCommandExecutor[" + description + (closed.get() ? ", closed" : "") + "]";
    }

    /** Runs one call; the description of what ran is built only when it fails (hot path). */
    private Object run(String verb, Script script, Supplier<Object> call) {
        if (closed.get()) {
            ensureOpen(verb + script.name());
        }
        try {
            return Replies.normalise(call.get());
        } catch (RuntimeException e) {
            throw Errors.translate(e, verb + script.name() + " on " + description);
        }
    }

    /** A pool of daemon threads started on demand, ending after 30 s idle, with a bounded FIFO queue. */
    private static ThreadPoolExecutor lane(int threads, int queue, String prefix, AtomicInteger n) {
        ThreadPoolExecutor lane = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queue), r -> {
                    Thread t = new Thread(r, prefix + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        lane.allowCoreThreadTimeOut(true);
        return lane;
    }

    /**
     * Runs {@code call} on {@code lane}: refused at once when the lane's queue is full, and failed
     * as not sent, without sending it, when it waited past the command timeout for a thread.
     */
    private CompletableFuture<Object> submit(ThreadPoolExecutor lane, Supplier<Object> call, String what) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        long queuedAt = System.nanoTime();
        try {
            lane.execute(() -> {
                long waited = System.nanoTime() - queuedAt;
                if (waited > commandTimeoutNanos) {
                    f.completeExceptionally(new NotSentException(what + " on " + description
                            + " was not sent: it waited " + TimeUnit.NANOSECONDS.toMillis(waited)
                            + " ms for a thread, past the command timeout of " + commandTimeout.toMillis() + " ms"));
                    return;
                }
                try {
                    f.complete(call.get());
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(closed.get()
                    ? new IllegalStateException(what + ": the jedis executor for " + description + " is closed", e)
                    : new NotSentException(what + " on " + description + ": " + lane.getQueue().size()
                            + " async calls are already waiting for a thread", e));
        }
        return f;
    }

    private void ensureOpen(String what) {
        if (closed.get()) {
            throw new IllegalStateException(what + ": the jedis executor for " + description + " is closed");
        }
    }

    /** Probes once whether the cluster has sharded pub/sub (Redis 7+): {@code PUBSUB SHARDNUMSUB} answers. */
    private static boolean supportsShardedPubSub(UnifiedJedis client, String description) {
        try {
            client.sendCommand("relock", Protocol.Command.PUBSUB, "SHARDNUMSUB");
            return true;
        } catch (JedisDataException e) {
            LOG.log(Level.DEBUG, description + " has no sharded pub/sub (" + e.getMessage() + ")");
            return false;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not ask " + description + " whether it has sharded pub/sub (" + e
                    + "); relock uses classic pub/sub only");
            return false;
        }
    }

    private static void checkArgs(Script script, List<String> keys, List<String> args) {
        Objects.requireNonNull(script, "script must not be null");
        Objects.requireNonNull(keys, "keys must not be null (pass List.of())");
        Objects.requireNonNull(args, "args must not be null (pass List.of())");
    }
}
