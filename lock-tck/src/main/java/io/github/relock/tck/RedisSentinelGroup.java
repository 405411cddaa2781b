package io.github.relock.tck;

import io.github.relock.embeddedredis.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A real Sentinel deployment for tests, from the same static {@code redis-server} binary as
 * {@link RedisServer} (no Docker): one primary, two replicas and three Sentinels
 * ({@code redis-server <config> --sentinel}, quorum 2) watching it under the name
 * {@value #MASTER_NAME}; ready when every Sentinel knows both replicas and the other Sentinels.
 *
 * <p>Use {@link #shared()} for a group the whole test JVM shares, or {@link #start()} for one a
 * test class owns and may break ({@link #failover()}, {@link #killPrimary()}); close it after.
 *
 * <p>Thread-safety: safe for use by several threads; the fault methods must not race each other.
 */
public final class RedisSentinelGroup implements RedisTopology, AutoCloseable {
    /**
     * The name the Sentinels know the primary by. (Not {@code relock...}: Jedis names its Sentinel
     * listener threads after it, and the kit counts threads named {@code relock-} as leaks.)
     */
    public static final String MASTER_NAME = "tck-primary";
    private static final String SENTINEL_HELLO = "__sentinel__:hello";
    private static final ReentrantLock SHARED_LOCK = new ReentrantLock();
    private static volatile RedisSentinelGroup shared;

    private final List<RedisServer> dataNodes = new ArrayList<>();
    private final List<RedisServer> sentinels = new ArrayList<>();
    private final Path dir;

    private RedisSentinelGroup(Path dir) {
        this.dir = dir;
    }

    /** @return the group this test JVM shares; started on first use */
    public static RedisSentinelGroup shared() {
        RedisSentinelGroup g = shared;
        if (g != null) {
            return g;
        }
        SHARED_LOCK.lock();
        try {
            if (shared == null) {
                RedisSentinelGroup started = start();
                Runtime.getRuntime().addShutdownHook(new Thread(started::close, "relock-redis-sentinel-stop"));
                shared = started;
            }
            return shared;
        } finally {
            SHARED_LOCK.unlock();
        }
    }

    /** @return a new group (1 primary, 2 replicas, 3 Sentinels) owned by the caller (close it) */
    public static RedisSentinelGroup start() {
        Path dir;
        try {
            dir = Files.createTempDirectory("relock-sentinel-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a folder for the Sentinels' files", e);
        }
        RedisSentinelGroup group = new RedisSentinelGroup(dir);
        try {
            List<String> inDir = List.of("--dir", dir.toString()); // a replica's full sync writes an RDB file
            RedisServer primary = startData(inDir);
            group.dataNodes.add(primary);
            for (int i = 0; i < 2; i++) {
                group.dataNodes.add(startData(List.of("--dir", dir.toString(),
                        "--replicaof", primary.host(), Integer.toString(primary.port()))));
            }
            for (int i = 0; i < 3; i++) {
                group.sentinels.add(startSentinel(dir, primary));
            }
            group.awaitHealthy(Duration.ofSeconds(60));
            return group;
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    private static RedisServer startData(List<String> extra) {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return RedisServer.startNode(RedisProcess.freePort(), extra);
            } catch (IOException e) {
                last = e;
            }
        }
        throw new UncheckedIOException("could not start a data node on 5 ports in a row", last);
    }

    private static RedisServer startSentinel(Path dir, RedisServer primary) {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = RedisProcess.freePort();
            Path conf = dir.resolve("sentinel-" + port + ".conf");
            try {
                Files.writeString(conf, String.join("\n",
                        "sentinel monitor " + MASTER_NAME + " " + primary.host() + " " + primary.port() + " 2",
                        "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                        "sentinel failover-timeout " + MASTER_NAME + " 5000",
                        "sentinel parallel-syncs " + MASTER_NAME + " 2",
                        "dir " + dir,
                        ""));
                return RedisServer.sentinel(RedisProcess.startSentinel(port, conf));
            } catch (IOException e) {
                last = e;
            }
        }
        throw new UncheckedIOException("could not start a Sentinel on 5 ports in a row", last);
    }

    /**
     * Waits until the current primary has every running replica connected, and every running
     * Sentinel agrees on the primary and knows the replicas and the other Sentinels.
     *
     * @param timeout how long to wait
     */
    public void awaitHealthy(Duration timeout) {
        Await.until(timeout, this::healthy, this::describe);
    }

    private boolean healthy() {
        try {
            RedisServer p = primary();
            String repl = (String) p.call("INFO", "replication");
            long replicas = dataNodes.stream().filter(n -> n != p && n.isRunning()).count();
            if (!repl.contains("role:master") || !repl.contains("connected_slaves:" + replicas)) {
                return false;
            }
            for (RedisServer n : dataNodes) {
                if (n == p || !n.isRunning()) {
                    continue;
                }
                String info = (String) n.call("INFO", "replication");
                // exactly one master: every other node replicates the primary the Sentinels name
                if (!info.contains("role:slave") || !info.contains("master_port:" + p.port())
                        || !info.contains("master_link_status:up")) {
                    return false;
                }
            }
            for (RedisServer s : runningSentinels()) {
                List<?> addr = (List<?>) s.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
                if (addr == null || Integer.parseInt((String) addr.get(1)) != p.port()) {
                    return false;
                }
                List<?> master = (List<?>) s.call("SENTINEL", "MASTER", MASTER_NAME);
                if (!field(master, "num-other-sentinels").equals(Long.toString(runningSentinels().size() - 1))
                        || Long.parseLong(field(master, "num-slaves")) < replicas
                        || field(master, "flags").contains("down")) {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException notYet) {
            return false;
        }
    }

    private static String field(List<?> flat, String name) {
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            if (name.equals(flat.get(i))) {
                return String.valueOf(flat.get(i + 1));
            }
        }
        return "";
    }

    private List<RedisServer> runningSentinels() {
        return sentinels.stream().filter(RedisServer::isRunning).toList();
    }

    /** @return {@link RedisTopology.Kind#SENTINEL} */
    @Override
    public Kind kind() {
        return Kind.SENTINEL;
    }

    /** @return the primary as the running Sentinels name it now */
    public RedisServer primary() {
        for (RedisServer s : runningSentinels()) {
            try {
                List<?> addr = (List<?>) s.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
                int port = Integer.parseInt((String) addr.get(1));
                return dataNodes.stream().filter(n -> n.port() == port).findFirst()
                        .orElseThrow(() -> new IllegalStateException("Sentinels name an unknown primary " + addr));
            } catch (RuntimeException tryNext) {
                // next Sentinel
            }
        }
        throw new IllegalStateException("no Sentinel answers");
    }

    /** @return the running Sentinels, to give a client ({@code host:port} each) */
    public List<RedisServer> sentinels() {
        return runningSentinels();
    }

    /** @return every data node started (running or not), the first primary first */
    public List<RedisServer> nodes() {
        return List.copyOf(dataNodes);
    }

    @Override
    public List<RedisServer> dataNodes() {
        return dataNodes.stream().filter(RedisServer::isRunning).toList();
    }

    @Override
    public RespClient adminFor(String key) {
        return primary().admin();
    }

    /**
     * {@inheritDoc} {@code PUBSUB CHANNELS} leaves out {@code __sentinel__:hello}, the channel the
     * Sentinels themselves talk on through every server they watch.
     */
    @Override
    public Object call(String... args) {
        return switch (Routing.scope(args)) {
            case ALL -> {
                Object merged = Routing.fanOut(dataNodes(), n -> n.call(args), args);
                if (args.length > 1 && args[1].equalsIgnoreCase("CHANNELS") && merged instanceof List<?> l) {
                    yield l.stream().filter(c -> !SENTINEL_HELLO.equals(c)).toList();
                }
                yield merged;
            }
            case MASTERS, KEY -> primary().call(args);
        };
    }

    /**
     * {@code SENTINEL FAILOVER}: the Sentinels promote a replica (after syncing it) and re-point the
     * rest; returns when the new primary is in charge and the group is healthy again.
     *
     * @return the new primary
     */
    public RedisServer failover() {
        RedisServer old = primary();
        runningSentinels().get(0).call("SENTINEL", "FAILOVER", MASTER_NAME);
        Await.until(Duration.ofSeconds(30), () -> primaryOrNull() != old, () -> "no failover: " + describe());
        awaitHealthy(Duration.ofSeconds(60));
        return primary();
    }

    /**
     * Kills ({@code SIGKILL}) the primary and waits until the Sentinels promoted a replica that
     * serves writes.
     *
     * @return the killed node (restart it with {@link RedisServer#start()}; Sentinels turn it into a replica)
     */
    public RedisServer killPrimary() {
        RedisServer old = primary();
        old.kill();
        Await.until(Duration.ofSeconds(60), () -> {
            RedisServer p = primaryOrNull();
            return p != null && p != old && ((String) p.call("INFO", "replication")).contains("role:master");
        }, () -> "no replica was promoted after the primary died: " + describe());
        return old;
    }

    private RedisServer primaryOrNull() {
        try {
            return primary();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Starts a stopped data node again and makes it a replica of the current primary (a killed
     * primary would otherwise come back as a second master with its old configuration), then waits
     * until the group is healthy.
     *
     * @param node a data node of this group
     */
    public void rejoin(RedisServer node) {
        if (!node.isRunning()) {
            node.start();
        }
        RedisServer p = primary();
        if (node != p) {
            node.call("REPLICAOF", p.host(), Integer.toString(p.port()));
        }
        awaitHealthy(Duration.ofSeconds(60));
    }

    /** Stops every Sentinel and data node, and deletes the Sentinels' files. */
    @Override
    public void close() {
        sentinels.forEach(RedisServer::stop);
        dataNodes.forEach(RedisServer::stop);
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temporary folder: the OS cleans up what is left
        }
    }

    private String describe() {
        StringBuilder b = new StringBuilder("sentinel group:");
        for (RedisServer s : runningSentinels()) {
            try {
                b.append("\n sentinel ").append(s.port()).append(": ").append(s.call("SENTINEL", "MASTER", MASTER_NAME));
            } catch (RuntimeException e) {
                b.append("\n sentinel ").append(s.port()).append(": ").append(e.getMessage());
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "redis sentinel group, data " + dataNodes.stream().map(n -> Integer.toString(n.port())).toList()
                + ", sentinels " + sentinels.stream().map(n -> Integer.toString(n.port())).toList();
    }
}
