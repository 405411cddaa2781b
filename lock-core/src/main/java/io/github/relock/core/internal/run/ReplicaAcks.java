package io.github.relock.core.internal.run;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.Slots;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many replicas a lock write waits for, and whether WAIT's count falls short.
 *
 * <p>Pinned ({@code LockOptions.replicaSync(n, timeout)}): {@code n} on every node, short below
 * {@code n}. Connected (the default, Redisson's {@code checkLockSyncedSlaves}): the replicas the node
 * serving the write's key reports connected, short only when it has some and none acknowledged.
 *
 * <p>Design: the connected count is cached per node (the driver's {@link CommandExecutor#nodeOfSlot}
 * token on a cluster, per slot where the driver cannot tell, one entry otherwise). A write on a node
 * not yet known learns its count with one {@link CommandExecutor#replicationInfo}: on the calling
 * thread for a blocking write, on the background threads for an async one; after that no lock call pays a round trip for it. The count is learned again in the
 * background (at most one learning per node at a time, on the background threads) when a WAIT
 * counted a different number, when the entry is older than {@link #REFRESH_NANOS} (so a replica
 * attached to a node that had none is noticed: without one no WAIT is sent, so nothing else would
 * tell), and the entries are dropped when the pub/sub connection was re-established, a sign the
 * serving node may have changed. A count of 0 sends no WAIT at all.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class ReplicaAcks {
    private static final System.Logger LOG = System.getLogger(ReplicaAcks.class.getName());
    /** How long a learned count is used before it is learned again in the background. */
    static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final Pattern CONNECTED = Pattern.compile("(?m)^connected_slaves:(\\d+)");
    private static final Object SINGLE_NODE = "the node";

    private final CommandExecutor executor;
    private final int pinned;
    private final boolean cluster;
    private final Executor background;
    private final LongSupplier nanoTime;
    private final Map<Object, Known> known = new ConcurrentHashMap<>();
    private final Map<Object, Boolean> learning = new ConcurrentHashMap<>();
    private final Map<Object, CompletableFuture<Integer>> firstLearning = new ConcurrentHashMap<>();

    private record Known(int replicas, long learnedAt) {
    }

    /**
     * @param executor the driver
     * @param pinned replicas every write must reach, or 0 for the connected replicas
     * @param cluster whether the driver declares {@code CLUSTER} (counts per node)
     * @param background runs background learning
     * @param nanoTime the clock
     */
    ReplicaAcks(CommandExecutor executor, int pinned, boolean cluster, Executor background, LongSupplier nanoTime) {
        this.executor = executor;
        this.pinned = pinned;
        this.cluster = cluster;
        this.background = background;
        this.nanoTime = nanoTime;
    }

    /** @return whether the count is pinned ({@code replicaSync(n, timeout)}) */
    boolean pinned() {
        return pinned > 0;
    }

    /**
     * @param key the write's first key
     * @return replicas to WAIT for on its node, learned on the calling thread when not yet known
     */
    int expected(String key) {
        int known = known(key);
        return known >= 0 ? known : learn(nodeOf(key), key);
    }

    /**
     * @param key the write's first key
     * @return replicas to WAIT for on its node, learned on the background threads when not yet
     *     known (one learning per node however many writes ask meanwhile)
     * @throws RejectedExecutionException if the background threads are shut down (the client closed)
     */
    CompletableFuture<Integer> expectedAsync(String key) {
        int k = known(key);
        if (k >= 0) {
            return CompletableFuture.completedFuture(k);
        }
        Object node = nodeOf(key);
        CompletableFuture<Integer> mine = new CompletableFuture<>();
        CompletableFuture<Integer> running = firstLearning.putIfAbsent(node, mine);
        if (running != null) {
            return running;
        }
        try {
            background.execute(() -> {
                try {
                    mine.complete(learn(node, key));
                } catch (RuntimeException | Error e) {
                    mine.completeExceptionally(e);
                } finally {
                    firstLearning.remove(node, mine);
                }
            });
        } catch (RejectedExecutionException e) {
            firstLearning.remove(node, mine);
            throw e;
        }
        return mine;
    }

    /**
     * @param key the write's first key
     * @return replicas to WAIT for on its node, or -1 when not yet known (never a round trip)
     */
    int known(String key) {
        if (pinned > 0) {
            return pinned;
        }
        Object node = nodeOf(key);
        Known k = known.get(node);
        if (k == null) {
            return -1;
        }
        refreshIfOld(node, key, k);
        return k.replicas;
    }

    /**
     * Whether a WAIT that counted {@code acked} of {@code expected} fails the write; learns the
     * node's count again in the background when the two differ.
     */
    boolean isShort(String key, int expected, long acked) {
        if (pinned > 0) {
            return acked < pinned;
        }
        if (acked != expected) {
            Object node = nodeOf(key);
            learnInBackground(node, key);
        }
        return expected > 0 && acked == 0;
    }

    /** Forgets every learned count (the pub/sub connection came back: the serving node may differ). */
    void forget() {
        known.clear();
    }

    private Object nodeOf(String key) {
        if (!cluster) {
            return SINGLE_NODE;
        }
        int slot = Slots.slot(key);
        Object node = executor.nodeOfSlot(slot);
        return node != null ? node : Integer.valueOf(slot);
    }

    private int learn(Object node, String key) {
        String info = executor.replicationInfo(key);
        Matcher m = CONNECTED.matcher(info);
        int replicas = m.find() ? Integer.parseInt(m.group(1)) : 0;
        known.put(node, new Known(replicas, nanoTime.getAsLong()));
        return replicas;
    }

    private void refreshIfOld(Object node, String key, Known k) {
        if (nanoTime.getAsLong() - k.learnedAt > REFRESH_NANOS) {
            learnInBackground(node, key);
        }
    }

    private void learnInBackground(Object node, String key) {
        if (learning.putIfAbsent(node, Boolean.TRUE) != null) {
            return;
        }
        try {
            background.execute(() -> {
                try {
                    learn(node, key);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "learning the connected replicas of the node of '" + key
                            + "' failed; the last count stays", e);
                } finally {
                    learning.remove(node);
                }
            });
        } catch (RejectedExecutionException closed) {
            learning.remove(node);
        }
    }
}
