package io.github.relock.driver.lettuce;

import io.github.relock.api.LockException;
import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
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
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisServerAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * {@link CommandExecutor} over one Lettuce client: one command connection (standalone or cluster),
 * one renewal connection and one pub/sub connection, all opened here with a UTF-8 {@link StringCodec}.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Scripts</b> go through {@code dispatch(EVALSHA|EVAL, ReplyOutput, args)} on the async
 *       API, so the caller never blocks on Lettuce and the reply keeps its exact shape
 *       ({@link ReplyOutput}). Keys are added as keys, so a cluster connection routes by the first
 *       one. The sync methods await the same future uninterruptibly with a deadline.</li>
 *   <li><b>Script + WAIT</b> go to one node connection (the partition table's master of the key's
 *       slot), which follows no redirect: a {@code MOVED} or {@code ASK} reply (nothing ran) sends
 *       both once more to the node the reply names; no other reply is ever sent twice.</li>
 *   <li><b>Timeouts</b> are ours, not the client's: a handed-in client may have command timeouts
 *       off, and Lettuce buffers commands while reconnecting, so without a deadline a future could
 *       wait forever. Async futures fail after {@link DriverOptions#commandTimeout()} through
 *       the client's own timer ({@link CommandTimer}); that one case completes on a Lettuce
 *       computation thread, every other completion happens on a Lettuce event-loop thread.</li>
 *   <li><b>The renewal lane</b> ({@link Lane#RENEWAL}, the watchdog's calls) is a command
 *       connection of its own: on the shared one a renewal would queue behind every application
 *       call pipelined before it, and Redis answers a connection's commands in order.</li>
 *   <li><b>Nothing is sent late</b>: a command Lettuce still buffers (while reconnecting) when its
 *       timeout fires is cancelled, so it is never sent afterwards; it is reported as reply lost,
 *       since the driver cannot tell whether it went out.</li>
 *   <li><b>Pub/sub</b> is core's {@link ConnectionPubSub} over a {@link PubSubTransport} on the one
 *       pub/sub connection: dispatch by channel, deadlines, and the resubscribe after each
 *       reconnect or slot move are core's; the transport forwards Lettuce's events and tracks
 *       which cluster nodes a sharded channel went to.</li>
 * </ul>
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class LettuceCommandExecutor implements CommandExecutor {
    private static final System.Logger LOG = System.getLogger(LettuceCommandExecutor.class.getName());
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);

    private final String target;
    private final Duration timeout;
    private final long timeoutNanos;
    private final StatefulConnection<String, String> commandConnection;
    private final BaseRedisAsyncCommands<String, String> commands;
    /** The renewal lane: a command connection the application's calls never use. */
    private final StatefulConnection<String, String> renewalConnection;
    private final BaseRedisAsyncCommands<String, String> renewals;
    /** The async commands of the one connection serving a key's slot, for EVALSHA + WAIT. */
    private final BiFunction<String, Lane, BaseRedisAsyncCommands<String, String>> nodeCommands;
    private final Set<Capability> capabilities;
    private final AbstractRedisClient ownedClient;

    private final CommandTimer timer;
    private final ConnectionPubSub pubSubs;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** On a cluster of Redis 7+: the id of the master serving a slot, from Lettuce's partition table. */
    private volatile IntFunction<Object> slotNodes = slot -> null;
    /** On a cluster: where the classic pub/sub connection is; otherwise null. */
    private volatile ClassicPubSubNode classicNode;
    /** On a cluster: where a write with WAIT that a node refused with MOVED or ASK goes; otherwise null. */
    private volatile Reroute reroute;

    private LettuceCommandExecutor(String target, DriverOptions options,
                                   StatefulConnection<String, String> commandConnection,
                                   BaseRedisAsyncCommands<String, String> commands,
                                   StatefulConnection<String, String> renewalConnection,
                                   BaseRedisAsyncCommands<String, String> renewals,
                                   BiFunction<String, Lane, BaseRedisAsyncCommands<String, String>> nodeCommands,
                                   StatefulRedisPubSubConnection<String, String> pubSub,
                                   Set<Capability> capabilities, AbstractRedisClient client, boolean owned) {
        this.target = target;
        this.timeout = options.commandTimeout();
        this.timeoutNanos = timeout.toNanos();
        this.commandConnection = commandConnection;
        this.commands = commands;
        this.renewalConnection = renewalConnection;
        this.renewals = renewals;
        this.nodeCommands = nodeCommands;
        this.capabilities = Collections.unmodifiableSet(capabilities);
        this.ownedClient = owned ? client : null;
        this.timer = new CommandTimer(client.getResources(), timeout);
        this.pubSubs = new ConnectionPubSub(events -> new PubSubTransport(pubSub, target, events), target, timeout,
                capabilities.contains(Capability.SHARDED_PUBSUB), options.pubSubProbeInterval());
    }

    /**
     * Opens a connection, reporting a failure as {@code RedisUnavailableException} after closing
     * {@code opened} (the command connection when the pub/sub one fails, else null).
     */
    private static <C> C connectOrFail(Supplier<C> open, AutoCloseable opened, String target) {
        try {
            return open.get();
        } catch (RuntimeException e) {
            closeQuietly(opened);
            throw new RedisUnavailableException("cannot connect to " + target + ": " + e.getMessage(), e);
        }
    }

    /**
     * Opens the command and pub/sub connections on a standalone client.
     *
     * @param client the client (the application's, or one {@link LettuceDriverProvider#connect} made)
     * @param options timeout and client name
     * @param owned whether {@link #close()} shuts the client down; owned clients carry the client
     *     name in their URI already, so it is only sent with {@code CLIENT SETNAME} when not owned
     * @param target where the client points, for messages (no password)
     */
    static LettuceCommandExecutor forClient(RedisClient client, DriverOptions options, boolean owned, String target) {
        StatefulRedisConnection<String, String> conn = connectOrFail(() -> client.connect(StringCodec.UTF8), null, target);
        StatefulRedisPubSubConnection<String, String> ps = connectOrFail(() -> client.connectPubSub(StringCodec.UTF8), conn, target);
        StatefulRedisConnection<String, String> renewal = connectOrFail(() -> client.connect(StringCodec.UTF8), () -> {
            closeQuietly(conn);
            closeQuietly(ps);
        }, target);
        if (!owned) {
            nameConnection(conn, conn.async(), options.clientName());
            nameConnection(ps, ps.async(), options.clientName());
            nameConnection(renewal, renewal.async(), options.clientName());
        }
        EnumSet<Capability> caps = EnumSet.of(Capability.REPLICA_WAIT);
        if (supportsShardedPubSub(conn.async(), options.commandTimeout())) {
            caps.add(Capability.SHARDED_PUBSUB);
        }
        StatefulRedisConnection<String, String> c = conn;
        return new LettuceCommandExecutor(target, options, conn, conn.async(), renewal, renewal.async(),
                (key, lane) -> lane == Lane.RENEWAL ? renewal.async() : c.async(), ps,
                caps, client, owned);
    }

    /**
     * Opens the command and pub/sub connections on a cluster client; otherwise as {@link #forClient}.
     */
    static LettuceCommandExecutor forCluster(RedisClusterClient client, DriverOptions options, boolean owned,
                                             String target) {
        StatefulRedisClusterConnection<String, String> conn = connectOrFail(() -> client.connect(StringCodec.UTF8), null, target);
        ClassicPubSubNode classicNode = new ClassicPubSubNode(conn::getPartitions);
        client.addListener(classicNode); // hears the first connect, which connectPubSub makes
        StatefulRedisPubSubConnection<String, String> ps;
        try {
            ps = connectOrFail(() -> client.connectPubSub(StringCodec.UTF8), conn, target);
        } finally {
            client.removeListener(classicNode);
        }
        classicNode.attach(ps);
        StatefulRedisClusterConnection<String, String> renewal = connectOrFail(() -> client.connect(StringCodec.UTF8), () -> {
            closeQuietly(conn);
            closeQuietly(ps);
        }, target);
        if (!owned) {
            nameConnection(conn, conn.async(), options.clientName());
            nameConnection(ps, ps.async(), options.clientName());
            nameConnection(renewal, renewal.async(), options.clientName());
        }
        StatefulRedisClusterConnection<String, String> c = conn;
        BiFunction<String, Lane, BaseRedisAsyncCommands<String, String>> node = (key, lane) -> {
            if (key == null) {
                throw new IllegalArgumentException(
                        "evalShaWithWait on a cluster needs at least one key to choose the node, got none");
            }
            RedisClusterNode master = c.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
            if (master == null) {
                throw new RedisUnavailableException("no master known for the slot of key '" + key + "' in " + target);
            }
            return (lane == Lane.RENEWAL ? renewal : c).getConnection(master.getNodeId()).async();
        };
        EnumSet<Capability> caps = EnumSet.of(Capability.CLUSTER, Capability.REPLICA_WAIT);
        if (supportsShardedPubSub(conn.async(), options.commandTimeout())) {
            // Lettuce routes SSUBSCRIBE by the channel's slot to a pub/sub connection of that node;
            // their messages reach this connection's listeners only with propagation on.
            caps.add(Capability.SHARDED_PUBSUB);
            ((StatefulRedisClusterPubSubConnection<String, String>) ps).setNodeMessagePropagation(true);
        }
        LettuceCommandExecutor ex = new LettuceCommandExecutor(target, options, conn, conn.async(), renewal, renewal.async(),
                node, ps, caps, client, owned);
        ex.classicNode = classicNode;
        ex.reroute = new Reroute() {
            /** One reload at a time: after a reshard every write to the slot answers MOVED. */
            private final AtomicBoolean reloading = new AtomicBoolean();

            @Override
            public CompletableFuture<StatefulRedisConnection<String, String>> to(String host, int port, Lane lane) {
                return (lane == Lane.RENEWAL ? renewal : c).getConnectionAsync(host, port);
            }

            @Override
            public void refresh() {
                if (!reloading.compareAndSet(false, true)) {
                    return;
                }
                CompletionStage<Void> reload;
                try {
                    reload = client.refreshPartitionsAsync();
                } catch (RuntimeException e) { // a client shutting down: the next write retries
                    reload = CompletableFuture.failedFuture(e);
                }
                reload.whenComplete((ok, failed) -> {
                    reloading.set(false);
                    if (failed != null) {
                        LOG.log(System.Logger.Level.DEBUG, "refreshing the slot table of " + target + " failed", failed);
                    }
                });
            }
        };
        if (caps.contains(Capability.SHARDED_PUBSUB)) { // Redis 7+: renewal may span a node's slots
            ex.slotNodes = slot -> {
                RedisClusterNode master = c.getPartitions().getMasterBySlot(slot);
                return master == null ? null : master.getNodeId();
            };
        }
        return ex;
    }

    // ---------------------------------------------------------------- scripts

    @Override
    public Object eval(ScriptCall call) {
        Objects.requireNonNull(call, "call must not be null");
        return sync(call.bySha() ? Op.EVALSHA : Op.EVAL, call.script(), call.keys(), call.args());
    }

    @Override
    public CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        Objects.requireNonNull(call, "call must not be null");
        Objects.requireNonNull(lane, "lane must not be null");
        return async(lane == Lane.RENEWAL ? renewals : commands, call.bySha() ? Op.EVALSHA : Op.EVAL,
                call.script(), call.keys(), call.args());
    }

    /** As {@link #evalWithWaitAsync} by SHA on the application lane, awaited uninterruptibly. */
    @Override
    public List<Object> evalShaWithWait(Script script, List<String> keys, List<String> args, int replicas,
                                        long timeoutMs) {
        validate(script, keys, args);
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas must be >= 0, was " + replicas);
        }
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("timeoutMs must be >= 0 (0 = WAIT without timeout), was " + timeoutMs);
        }
        ensureOpen();
        // Each send fails on its own after the command timeout plus WAIT's; a reroute may send twice.
        long once = timeoutNanos + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long deadline = System.nanoTime() + 2 * once + timeoutNanos;
        CompletableFuture<List<Object>> out = withWait(ScriptCall.bySha(script, keys, args), replicas, timeoutMs,
                Lane.APPLICATION);
        return await(out, deadline, "EVALSHA+WAIT", script);
    }

    /**
     * The script and {@code WAIT} dispatched on one connection of the lane to the key's node (on a
     * cluster, the lane's connection to the master of its slot): Lettuce keeps their order, and
     * neither blocks a thread. Bounded by the command timeout plus WAIT's, per send. On a cluster,
     * a script the node refused with {@code MOVED} or {@code ASK} (its slot moved behind the
     * partition table: nothing ran) is sent once more to the node the reply names; any other
     * reply is final, since that script ran.
     */
    @Override
    public CompletableFuture<List<Object>> evalWithWaitAsync(ScriptCall call, int replicas, long timeoutMs, Lane lane) {
        Objects.requireNonNull(call, "call must not be null");
        Objects.requireNonNull(lane, "lane must not be null");
        validate(call.script(), call.keys(), call.args());
        if (replicas < 0 || timeoutMs < 0) {
            throw new IllegalArgumentException("replicas and timeoutMs must be >= 0, were " + replicas + " and " + timeoutMs);
        }
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedException());
        }
        try {
            return withWait(call, replicas, timeoutMs, lane);
        } catch (IllegalArgumentException | LockException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * @return the replies of the script and WAIT, sent again once after a redirect
     * @throws IllegalArgumentException no key on a cluster
     * @throws LockException the first send could not be made
     */
    private CompletableFuture<List<Object>> withWait(ScriptCall call, int replicas, long timeoutMs, Lane lane) {
        Op op = call.bySha() ? Op.EVALSHA : Op.EVAL;
        String what = describe(op + "+WAIT", call.script());
        CompletableFuture<List<Object>> first;
        try {
            BaseRedisAsyncCommands<String, String> node = nodeCommands.apply(
                    call.keys().isEmpty() ? null : call.keys().get(0), lane);
            first = replies(send(node, op, call, replicas, timeoutMs), timeoutMs, what);
        } catch (IllegalArgumentException | LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw Errors.translate(e, what);
        }
        Reroute to = reroute;
        if (to == null) {
            return first;
        }
        return first.handle((ok, failed) -> {
            Redirect redirect = failed == null ? null : Redirect.of(Errors.translate(failed, what));
            if (redirect == null) {
                return failed == null ? CompletableFuture.completedFuture(ok)
                        : CompletableFuture.<List<Object>>failedFuture(Errors.translate(failed, what));
            }
            if (!redirect.ask()) {
                to.refresh(); // the next calls route by the new owner
            }
            return to.to(redirect.host(), redirect.port(), lane).handle((conn, noConn) -> noConn != null
                    ? CompletableFuture.<List<Object>>failedFuture(Errors.translate(noConn, what))
                    : resend(conn, redirect.ask(), op, call, replicas, timeoutMs, what))
                    .thenCompose(Function.identity());
        }).thenCompose(Function.identity());
    }

    /** The one send after a redirect, on the named node's connection; a failure to send, translated. */
    private CompletableFuture<List<Object>> resend(StatefulRedisConnection<String, String> conn, boolean ask, Op op,
                                                   ScriptCall call, int replicas, long timeoutMs, String what) {
        try {
            return replies(ask ? sendAsking(conn, op, call, replicas, timeoutMs)
                    : send(conn.async(), op, call, replicas, timeoutMs), timeoutMs, what);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Errors.translate(e, what));
        }
    }

    /** The script's reply and WAIT's, one send: their futures. */
    private record Sent(CompletableFuture<Object> reply, CompletableFuture<Long> acked) {
    }

    /** The script then {@code WAIT} on {@code node}'s connection: Lettuce keeps their order. */
    private Sent send(BaseRedisAsyncCommands<String, String> node, Op op, ScriptCall call, int replicas,
                      long timeoutMs) {
        RedisFuture<Object> reply = dispatch(node, op, call.script(), call.keys(), call.args());
        RedisFuture<Long> acked = node.waitForReplication(replicas, timeoutMs);
        return new Sent(reply.toCompletableFuture(), acked.toCompletableFuture());
    }

    /**
     * As {@link #send}, after {@code ASKING}, the three in one write: no other command of the
     * connection comes between {@code ASKING} and the script it admits.
     */
    private static Sent sendAsking(StatefulConnection<String, String> conn, Op op, ScriptCall call, int replicas,
                                   long timeoutMs) {
        boolean sha = op == Op.EVALSHA;
        AsyncCommand<String, String, String> asking = new AsyncCommand<>(
                new Command<>(CommandType.ASKING, new StatusOutput<>(StringCodec.UTF8)));
        AsyncCommand<String, String, Object> reply = new AsyncCommand<>(new Command<>(
                sha ? CommandType.EVALSHA : CommandType.EVAL, new ReplyOutput(),
                scriptArgs(sha ? call.script().sha1() : call.script().text(), call.keys(), call.args())));
        AsyncCommand<String, String, Long> acked = new AsyncCommand<>(new Command<>(CommandType.WAIT,
                new IntegerOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8).add(replicas).add(timeoutMs)));
        conn.dispatch(List.of(asking, reply, acked));
        return new Sent(reply, acked);
    }

    /** @return both replies, failures translated; failed after the command timeout plus WAIT's */
    private CompletableFuture<List<Object>> replies(Sent sent, long timeoutMs, String what) {
        CompletableFuture<List<Object>> out = Errors.translated(sent.reply(), () -> what).thenCombine(
                Errors.translated(sent.acked(), () -> what),
                (r, w) -> Collections.unmodifiableList(Arrays.asList(r, (Object) w)));
        timer.failAfter(out, sent.reply(), TimeUnit.MILLISECONDS.toNanos(timeoutMs), () -> what);
        return out;
    }

    /** A cluster's redirect error reply ({@code MOVED|ASK <slot> <host>:<port>}): the node ran nothing. */
    private record Redirect(boolean ask, String host, int port) {
        /** @return the redirect {@code e}'s reply names, or null for any other failure */
        static Redirect of(LockException e) {
            String m = e instanceof RedisErrorException ? e.getMessage() : null;
            if (m == null || !(m.startsWith("MOVED ") || m.startsWith("ASK "))) {
                return null;
            }
            String[] parts = m.split(" ");
            int colon = parts.length < 3 ? -1 : parts[2].lastIndexOf(':');
            if (colon <= 0) {
                return null;
            }
            try {
                return new Redirect(m.startsWith("ASK "), parts[2].substring(0, colon),
                        Integer.parseInt(parts[2].substring(colon + 1).trim()));
            } catch (NumberFormatException notARedirect) {
                return null;
            }
        }
    }

    /** On a cluster: the connections a redirected write goes to. */
    private interface Reroute {
        /** @return the lane's connection to the node at {@code host:port}, opened if need be */
        CompletableFuture<StatefulRedisConnection<String, String>> to(String host, int port, Lane lane);

        /** Reloads the slot table in the background, so that later writes go to the new owner. */
        void refresh();
    }

    /** {@code INFO replication} on the connection {@link #evalShaWithWait} uses for {@code key}: no script. */
    @Override
    public String replicationInfo(String key) {
        Objects.requireNonNull(key, "key");
        ensureOpen();
        long deadline = System.nanoTime() + timeoutNanos;
        RedisFuture<Object> reply;
        try {
            reply = nodeCommands.apply(key, Lane.APPLICATION).dispatch(CommandType.INFO, new ReplyOutput(),
                    new CommandArgs<>(StringCodec.UTF8).add("replication"));
        } catch (IllegalArgumentException | LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw Errors.translate(e, "INFO replication");
        }
        return String.valueOf(await(reply, deadline, "INFO replication", null));
    }

    private Object sync(Op op, Script script, List<String> keys, List<String> args) {
        validate(script, keys, args);
        ensureOpen();
        long deadline = System.nanoTime() + timeoutNanos;
        return await(dispatch(commands, op, script, keys, args), deadline, op, script);
    }

    private CompletableFuture<Object> async(BaseRedisAsyncCommands<String, String> lane, Op op, Script script, List<String> keys, List<String> args) {
        validate(script, keys, args);
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedException());
        }
        RedisFuture<Object> raw;
        try {
            raw = dispatch(lane, op, script, keys, args);
        } catch (LockException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Object> out = Errors.translated(raw, () -> describe(op, script));
        timer.failAfterTimeout(out, raw, () -> describe(op, script));
        return out;
    }

    /** The two script commands; {@code EVALSHA+WAIT} is described in place. */
    private enum Op {
        EVALSHA, EVAL
    }

    private RedisFuture<Object> dispatch(BaseRedisAsyncCommands<String, String> lane, Op op, Script script,
                                         List<String> keys, List<String> args) {
        boolean sha = op == Op.EVALSHA;
        try {
            return lane.dispatch(sha ? CommandType.EVALSHA : CommandType.EVAL, new ReplyOutput(),
                    scriptArgs(sha ? script.sha1() : script.text(), keys, args));
        } catch (RuntimeException e) {
            throw Errors.translate(e, describe(op, script));
        }
    }

    private static CommandArgs<String, String> scriptArgs(String shaOrText, List<String> keys, List<String> args) {
        CommandArgs<String, String> a = new CommandArgs<>(StringCodec.UTF8).add(shaOrText).add(keys.size());
        for (String k : keys) {
            a.addKey(k);
        }
        for (String v : args) {
            a.addValue(v);
        }
        return a;
    }

    /**
     * Waits for {@code future} until {@code deadline} without reacting to interrupts: a script that
     * ran must not be reported as not run. The interrupt status is restored before returning.
     */
    private <T> T await(CompletionStage<T> stage, long deadline, Object op, Script script) {
        CompletableFuture<T> f = stage.toCompletableFuture();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get(Math.max(0L, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true; // keep waiting; re-set below
                } catch (ExecutionException | CancellationException e) {
                    throw Errors.translate(e instanceof ExecutionException ? e.getCause() : e, describe(op, script));
                } catch (TimeoutException e) {
                    f.cancel(false); // never sent later: Lettuce drops a cancelled command it still buffers
                    throw new RedisUnavailableException(describe(op, script) + " got no reply within " + timeout
                            + "; whether it ran is unknown", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void validate(Script script, List<String> keys, List<String> args) {
        Objects.requireNonNull(script, "script");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(args, "args");
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i) == null) {
                throw new NullPointerException("keys[" + i + "] is null for script " + script.name());
            }
        }
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i) == null) {
                throw new NullPointerException("args[" + i + "] is null for script " + script.name());
            }
        }
    }

    private String describe(Object op, Script script) {
        return script == null ? op + " on " + target : op + " " + script.name() + " (" + script.sha1() + ") on " + target;
    }

    // ---------------------------------------------------------------- pub/sub: core's ConnectionPubSub

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        return pubSubs.subscribe(channel, sharded, listener);
    }

    @Override
    public void setConnectionListener(ConnectionListener listener) {
        pubSubs.setConnectionListener(listener);
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public Object nodeOfSlot(int slot) {
        return slotNodes.apply(slot);
    }

    /** On a cluster: from the classic pub/sub connection's remote address and Lettuce's partition table. */
    @Override
    public Boolean classicPubSubOnNodeOf(int slot) {
        ClassicPubSubNode node = classicNode;
        return node == null || closed.get() ? null : node.onMasterOf(slot);
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pubSubs.close();
        closeQuietly(commandConnection);
        closeQuietly(renewalConnection);
        if (ownedClient != null) {
            try {
                ownedClient.shutdown(Duration.ZERO, SHUTDOWN_TIMEOUT);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "shutting down the Lettuce client for " + target + " failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return "LettuceCommandExecutor[" + target + (closed.get() ? ", closed" : "") + "]";
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw closedException();
        }
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("the lettuce executor for " + target + " is closed");
    }

    /**
     * Names a connection we opened on a handed-in client. {@code StatefulRedisConnectionImpl}
     * records the name so Lettuce sends it again in the handshake of every reconnect (a plain
     * {@code CLIENT SETNAME} through the API is forgotten on reconnect, and on a RESP2 pub/sub
     * connection it could not be re-sent once subscribed). That method is deprecated in Lettuce 7
     * without a replacement that works on a connection opened from the client's default URI, which
     * the client does not expose; if it goes away, fall back to the plain command below.
     */
    @SuppressWarnings("deprecation")
    private static void nameConnection(StatefulConnection<String, String> connection,
                                       RedisServerAsyncCommands<String, String> commands, String name) {
        if (connection instanceof StatefulRedisConnectionImpl<?, ?> impl) {
            impl.setClientName(name);
            return;
        }
        commands.clientSetname(name).whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.DEBUG, "CLIENT SETNAME " + name + " refused; continuing unnamed", failure);
            }
        });
    }

    /**
     * Sharded pub/sub needs Redis 7: asked once, as the Jedis driver asks, with a command older
     * servers refuse ({@code PUBSUB SHARDNUMSUB} of one channel; Lettuce sends none without). Not
     * read from {@code INFO}, which ACLs file under {@code @dangerous}: a least-privilege user
     * may not run it, and sharded pub/sub would go undeclared.
     */
    private static boolean supportsShardedPubSub(BaseRedisAsyncCommands<String, String> commands, Duration timeout) {
        try {
            commands.pubsubShardNumsub("relock").get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "PUBSUB SHARDNUMSUB refused or failed; sharded pub/sub not declared", e);
            return false;
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "closing " + c + " failed", e);
        }
    }
}
