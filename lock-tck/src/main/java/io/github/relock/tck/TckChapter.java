package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the lock chapters: a clean server before each test and, after it, the hygiene rule —
 * no keys left behind and no channel left subscribed. (The kit itself then checks that closing
 * every client left no relock thread.)
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class TckChapter {
    /**
     * System property: {@code true} runs the kit's long loops at their full size (the root POM's
     * {@code full} profile sets it). The default build runs each of them smaller, but at least once:
     * rule 6.1's and 10.1's increments, rule 4.11's observation window and chapter 21's soak
     * ({@code docs/guide/building.md}, "Longer runs").
     */
    public static final String LONG_LOOPS = "relock.tck.longLoops";

    /** The kit this chapter runs in. */
    protected final DriverKit kit;

    /** @param kit the enclosing kit */
    protected TckChapter(DriverKit kit) {
        this.kit = kit;
    }

    @BeforeEach
    void cleanServer() {
        redis("FLUSHALL");
        kit.checkThreadsAfterTest();
    }

    /**
     * Hygiene: after the test's own clean-up, the server holds no key and no channel.
     * When it fails: a lock was left held, a waiter left its subscription, or a script wrote a key
     * without expiry.
     */
    @AfterEach
    void hygiene() {
        Await.until(Duration.ofSeconds(10), () -> channels().isEmpty(),
                () -> "channels still subscribed after the test: " + channels());
        // Redisson deletes its per-request unlock latch without waiting for the reply: give its own
        // transient keys a bounded time to go, never fail on them, and never hide anyone else's.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!redissonTransientKeys().isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait(); // a round trip per check paces the loop
        }
        List<?> keys = (List<?>) redis("KEYS", "*");
        assertEquals(List.of(), keys.stream().filter(k -> !isRedissonTransient(String.valueOf(k))).toList(),
                "keys left behind by the test");
    }

    /**
     * The size of one of the kit's long loops: {@code full} with {@code -D}{@value #LONG_LOOPS}{@code =true}
     * ({@code -Pfull}), else {@code small}.
     *
     * @param small the size the default build runs: still enough to catch the rule's bug
     * @param full the size the long run uses
     * @return the size this run uses
     */
    protected static int loopSize(int small, int full) {
        return longLoops() ? full : small;
    }

    /** @return whether {@code -D}{@value #LONG_LOOPS}{@code =true} asks for the long loops at full size */
    static boolean longLoops() {
        return Boolean.getBoolean(LONG_LOOPS);
    }

    /** Keys Redisson writes fire-and-forget and removes on its own (its unlock latch). */
    static boolean isRedissonTransient(String key) {
        return key.startsWith("redisson_unlock_latch:");
    }

    private List<String> redissonTransientKeys() {
        List<?> keys = (List<?>) redis("KEYS", "redisson_unlock_latch:*");
        return keys.stream().map(String::valueOf).toList();
    }

    /** @return a lock client with default options, closed after the test */
    protected LockClient client() {
        return kit.newLockClient(LockOptions.defaults());
    }

    /**
     * @param watchdog the watchdog timeout
     * @return a lock client with that watchdog, closed after the test
     */
    protected LockClient client(Duration watchdog) {
        return kit.newLockClient(LockOptions.builder().lockWatchdogTimeout(watchdog).build());
    }

    /**
     * @param args a command
     * @return its reply, from the kit's deployment (routed as {@link RedisTopology#call} says)
     */
    protected Object redis(String... args) {
        return kit.topology().call(args);
    }

    /** @return the channels subscribed on the deployment right now, classic and sharded */
    protected Set<String> channels() {
        Set<String> all = ((List<?>) redis("PUBSUB", "CHANNELS")).stream().map(String::valueOf)
                .collect(Collectors.toSet());
        try {
            ((List<?>) redis("PUBSUB", "SHARDCHANNELS")).forEach(c -> all.add("sharded " + c));
        } catch (RespClient.RespError beforeRedis7) {
            // a server without sharded pub/sub has no sharded channel to leave behind
        }
        return all;
    }

    /**
     * The connections every data node lists now, node by node: a connection id names a connection
     * on one node only (each node counts its own), and a cluster client has connections to several.
     * The listing's own admin connection is left out.
     *
     * @return each running data node's connection ids
     */
    protected Map<RedisServer, Set<String>> connectionIds() {
        Map<RedisServer, Set<String>> ids = new LinkedHashMap<>();
        for (RedisServer node : kit.topology().dataNodes()) {
            Set<String> onNode = new HashSet<>();
            for (String line : String.valueOf(node.call("CLIENT", "LIST")).split("\n")) {
                if (line.startsWith("id=") && !line.contains(" cmd=client|list ")) {
                    onNode.add(line.substring(3, line.indexOf(' ')));
                }
            }
            ids.put(node, onNode);
        }
        return ids;
    }

    /**
     * @param before what {@link #connectionIds()} listed before a client was made and used
     * @return the connections opened since, node by node (the client's, when nothing else connected)
     */
    protected Map<RedisServer, Set<String>> connectionsOpenedSince(Map<RedisServer, Set<String>> before) {
        Map<RedisServer, Set<String>> opened = connectionIds();
        opened.forEach((node, ids) -> ids.removeAll(before.getOrDefault(node, Set.of())));
        opened.values().removeIf(Set::isEmpty);
        return opened;
    }

    /**
     * @param connections node by node, as {@link #connectionsOpenedSince} found them
     * @param key a key
     * @return whether some of them are on the node serving {@code key} (a cluster's master of its
     *     slot; elsewhere the primary), the node a client's commands on that key go to
     */
    protected boolean reachesTheNodeOf(Map<RedisServer, Set<String>> connections, String key) {
        int port;
        if (kit.topology() instanceof RedisCluster cluster) {
            port = cluster.masterFor(key).port();
        } else {
            port = kit.topology().dataNodes().stream()
                    .filter(n -> "master".equals(String.valueOf(((List<?>) n.call("ROLE")).get(0))))
                    .findFirst().orElseThrow().port();
        }
        return connections.keySet().stream().anyMatch(n -> n.port() == port);
    }

    /**
     * Kills connections ({@code CLIENT KILL ID}), each on its node.
     *
     * @param connections node by node, as {@link #connectionsOpenedSince} found them
     */
    protected static void killConnections(Map<RedisServer, Set<String>> connections) {
        connections.forEach((node, ids) -> ids.forEach(id -> node.call("CLIENT", "KILL", "ID", id)));
    }

    /**
     * Skips the rule when the kit runs on a cluster.
     *
     * @param why what the rule needs that a cluster does not give
     */
    protected void assumeNotCluster(String why) {
        org.junit.jupiter.api.Assumptions.assumeTrue(kit.topology().kind() != RedisTopology.Kind.CLUSTER,
                () -> "not on a cluster: " + why);
    }

    /**
     * Skips the rule unless the kit runs on one server.
     *
     * @param why what the rule needs that only one server gives
     */
    protected void assumeSingleServer(String why) {
        org.junit.jupiter.api.Assumptions.assumeTrue(kit.topology().kind() == RedisTopology.Kind.SINGLE,
                () -> "runs on one server only: " + why);
    }

    /**
     * Runs one worker per lock in {@code workers}, each doing {@code rounds} non-atomic
     * read-modify-writes (GET, then SET + 1) of {@code counterKey} under its lock, and returns the
     * final counter. With mutual exclusion it equals {@code workers.size() * rounds}.
     *
     * @param workers the lock each worker uses (the same lock object may appear several times)
     * @param rounds increments per worker
     * @param counterKey the Redis key of the counter; deleted afterwards
     * @return the counter's final value
     * @throws Exception if a worker failed
     * @throws AssertionError if the workers took more than 3 minutes (it names where every thread was)
     */
    protected long incrementUnderLocks(List<? extends Lock> workers, int rounds,
                                       String counterKey) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers.size());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Lock lock : workers) {
                done.add(pool.submit(() -> {
                    try (RespClient redis = kit.topology().adminFor(counterKey)) {
                        for (int i = 0; i < rounds; i++) {
                            lock.lock();
                            try {
                                Object v = redis.call("GET", counterKey);
                                long next = (v == null ? 0 : Long.parseLong((String) v)) + 1;
                                redis.call("SET", counterKey, Long.toString(next));
                            } finally {
                                lock.unlock();
                            }
                        }
                    }
                    return null;
                }));
            }
            long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            for (Future<?> f : done) {
                try {
                    f.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    // a hang: say where every thread is, so the one occurrence is enough to find it
                    throw new AssertionError("the workers did not finish " + rounds + " rounds within 3 minutes;"
                            + " threads:\n" + threadDump(), e);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        Object value = redis("GET", counterKey);
        redis("DEL", counterKey);
        return value == null ? 0 : Long.parseLong((String) value);
    }

    /**
     * Starts {@code lock.lock()} on a pool thread that appends {@code name} to {@code order} once
     * it holds the lock and then releases it; returns once that waiter joined the fair queue
     * {@code queueKey} (its length grew).
     *
     * @param pool where the waiter runs
     * @param lock a fair lock (relock's or Redisson's)
     * @param name recorded on acquisition
     * @param order acquisitions in order
     * @param queueKey {@code redisson_lock_queue:{name}}
     * @return the waiter's future
     */
    protected Future<?> queueWaiter(ExecutorService pool,
            Lock lock, String name, List<String> order, String queueKey) {
        long before = (Long) redis("LLEN", queueKey);
        Future<?> f = pool.submit(() -> {
            lock.lock();
            try {
                order.add(name);
            } finally {
                lock.unlock();
            }
            return null;
        });
        Await.until(Duration.ofSeconds(20), () -> (Long) redis("LLEN", queueKey) > before,
                () -> name + " never joined the queue " + queueKey);
        return f;
    }

    /**
     * @return the {@code EVALSHA} and {@code EVAL} calls the deployment has served so far (every
     *     node's {@code INFO commandstats}, summed)
     */
    protected long scriptCallsServed() {
        String info = (String) redis("INFO", "commandstats");
        long total = 0;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)").matcher(info);
        while (m.find()) {
            total += Long.parseLong(m.group(2));
        }
        return total;
    }

    /**
     * @param key a hash key
     * @return its fields and values, sorted by field (empty if the key does not exist)
     */
    @SuppressWarnings("unchecked")
    protected Map<String, String> hashOf(String key) {
        List<Object> flat = (List<Object>) redis("HGETALL", key);
        Map<String, String> m = new java.util.TreeMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            m.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return m;
    }

    /**
     * @param key a key
     * @return its PTTL
     */
    protected long pttl(String key) {
        return (Long) redis("PTTL", key);
    }

    /**
     * {@link #onOtherThread} for a boolean result.
     *
     * @param body what to run
     * @return the result
     * @throws Exception what the body threw
     */
    protected static boolean otherThreadReturns(java.util.concurrent.Callable<Boolean> body) throws Exception {
        return onOtherThread(body);
    }

    /**
     * Runs {@code body} on a fresh platform thread and returns its result.
     *
     * @param body what to run
     * @param <T> result type
     * @return the result
     * @throws Exception what the body threw
     */
    protected static <T> T onOtherThread(java.util.concurrent.Callable<T> body) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Exception> error = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                result.set(body.call());
            } catch (Exception e) {
                error.set(e);
            }
        }, "tck-other");
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(60));
        if (t.isAlive()) {
            throw new AssertionError("other thread did not finish within 60 s");
        }
        if (error.get() != null) {
            throw error.get();
        }
        return result.get();
    }

    /** @return every live thread's name, state and stack (relock's, its clients' and the kit's frames), for a hang's report */
    static String threadDump() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, frames) -> {
            b.append(t.getName()).append(" (").append(t.getState()).append(")\n");
            for (StackTraceElement f : frames) {
                b.append("    at ").append(f).append('\n');
            }
        });
        return b.toString();
    }
}
