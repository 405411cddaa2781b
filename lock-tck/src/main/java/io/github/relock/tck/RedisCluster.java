package io.github.relock.tck;

import io.github.relock.embeddedredis.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A real Redis Cluster for tests, from the same static {@code redis-server} binary as
 * {@link RedisServer} (no Docker): by default 3 masters and 3 replicas on loopback ports, slots
 * assigned evenly, each replica attached to one master, ready when every node reports
 * {@code cluster_state:ok} and every replica's link is up (a few seconds).
 *
 * <p>Use {@link #shared()} for a cluster the whole test JVM shares (started on first use, stopped
 * when the JVM exits), or {@link #start()} for one a test class owns and may break (kill a
 * master, fail over) — close it after the class. Nodes persist nothing but their cluster
 * configuration, kept in a temporary folder, so a killed node restarted with {@link
 * RedisServer#start()} rejoins as a replica.
 *
 * <p>Thread-safety: safe for use by several threads; the fault methods must not race each other.
 */
public final class RedisCluster implements RedisTopology, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RedisCluster.class.getName());
    private static final ReentrantLock SHARED_LOCK = new ReentrantLock();
    private static volatile RedisCluster shared;
    /** Slots per cluster. */
    static final int SLOTS = 16384;

    private final List<RedisServer> nodes;
    private final Path dir;
    private final int nodeTimeoutMs;

    private RedisCluster(List<RedisServer> nodes, Path dir, int nodeTimeoutMs) {
        this.nodes = nodes;
        this.dir = dir;
        this.nodeTimeoutMs = nodeTimeoutMs;
    }

    /** @return the cluster this test JVM shares: 3 masters, 3 replicas; started on first use */
    public static RedisCluster shared() {
        RedisCluster c = shared;
        if (c != null) {
            return c;
        }
        SHARED_LOCK.lock();
        try {
            if (shared == null) {
                RedisCluster started = start();
                Runtime.getRuntime().addShutdownHook(new Thread(started::close, "relock-redis-cluster-stop"));
                shared = started;
            }
            return shared;
        } finally {
            SHARED_LOCK.unlock();
        }
    }

    /** @return a new cluster of 3 masters and 3 replicas, owned by the caller (close it) */
    public static RedisCluster start() {
        return start(3, 1, 2000);
    }

    /**
     * Starts a new cluster.
     *
     * @param masters 1 to 16 masters
     * @param replicasPerMaster 0 to 4 replicas each
     * @param nodeTimeoutMs {@code cluster-node-timeout}: how long a silent master goes unnoticed
     *     before its replica is promoted (at least 500)
     * @return the running cluster, every slot served
     */
    public static RedisCluster start(int masters, int replicasPerMaster, int nodeTimeoutMs) {
        if (masters < 1 || masters > 16) {
            throw new IllegalArgumentException("masters must be 1 to 16, was " + masters);
        }
        if (replicasPerMaster < 0 || replicasPerMaster > 4) {
            throw new IllegalArgumentException("replicasPerMaster must be 0 to 4, was " + replicasPerMaster);
        }
        if (nodeTimeoutMs < 500) {
            throw new IllegalArgumentException("nodeTimeoutMs must be at least 500, was " + nodeTimeoutMs);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("relock-cluster-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a folder for the cluster's node files", e);
        }
        List<RedisServer> nodes = new ArrayList<>();
        RedisCluster cluster = new RedisCluster(nodes, dir, nodeTimeoutMs);
        try {
            int total = masters * (1 + replicasPerMaster);
            for (int i = 0; i < total; i++) {
                nodes.add(startNode(dir, nodeTimeoutMs));
            }
            cluster.form(masters, replicasPerMaster);
            LOG.log(System.Logger.Level.DEBUG, "redis cluster up: " + cluster);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private static RedisServer startNode(Path dir, int nodeTimeoutMs) {
        IOException last = null;
        for (int attempt = 0; attempt < 10; attempt++) {
            int port = freeClusterPort();
            try {
                return RedisServer.startNode(port, List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes-" + port + ".conf", "--dir", dir.toString(),
                        "--cluster-node-timeout", Integer.toString(nodeTimeoutMs)));
            } catch (IOException e) {
                last = e; // the port or its bus port was taken meanwhile
            }
        }
        throw new UncheckedIOException("could not start a cluster node on 10 ports in a row", last);
    }

    /** A free port whose cluster bus port (port + 10000) is free too. */
    private static int freeClusterPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20000, 40000);
            if (free(port) && free(port + 10000)) {
                return port;
            }
        }
        throw new IllegalStateException("no free pair of ports (port, port + 10000) found in 20000-50000");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    private void form(int masters, int replicasPerMaster) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            RedisServer n = nodes.get(i);
            ids.add((String) n.call("CLUSTER", "MYID"));
            n.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1)); // distinct epochs: no collision round
        }
        for (int m = 0; m < masters; m++) {
            int from = m * SLOTS / masters;
            int to = (m + 1) * SLOTS / masters - 1;
            nodes.get(m).call("CLUSTER", "ADDSLOTSRANGE", Integer.toString(from), Integer.toString(to));
        }
        RedisServer first = nodes.get(0);
        for (int i = 1; i < nodes.size(); i++) {
            first.call("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port()));
        }
        Duration deadline = Duration.ofSeconds(60);
        Await.until(deadline, () -> nodes.stream().allMatch(n -> knowsAll(n, nodes.size())),
                () -> "cluster nodes did not all meet: " + first.call("CLUSTER", "NODES"));
        for (int m = 0; m < masters; m++) {
            for (int r = 0; r < replicasPerMaster; r++) {
                RedisServer replica = nodes.get(masters + m * replicasPerMaster + r);
                replica.call("CLUSTER", "REPLICATE", ids.get(m));
            }
        }
        awaitHealthy(Duration.ofSeconds(60));
    }

    private static boolean knowsAll(RedisServer n, int count) {
        String table = (String) n.call("CLUSTER", "NODES");
        List<String> lines = table.lines().filter(l -> !l.isBlank()).toList();
        return lines.size() == count && lines.stream().noneMatch(l -> l.contains("handshake") || l.contains("noaddr"));
    }

    /**
     * Waits until every running node reports {@code cluster_state:ok}, every slot has a master that
     * every node agrees on, and every running replica's replication link is up.
     *
     * @param timeout how long to wait
     */
    public void awaitHealthy(Duration timeout) {
        Await.until(timeout, this::healthy, () -> "cluster not healthy: " + describe());
    }

    private boolean healthy() {
        try {
            String view = null;
            for (RedisServer n : running()) {
                String info = (String) n.call("CLUSTER", "INFO");
                if (!info.contains("cluster_state:ok")) {
                    return false;
                }
                String slots = slotOwners(n);
                if (view == null) {
                    view = slots;
                } else if (!view.equals(slots)) {
                    return false;
                }
                String repl = (String) n.call("INFO", "replication");
                if (repl.contains("role:slave") && !repl.contains("master_link_status:up")) {
                    return false;
                }
                if (repl.contains("role:master") && isMasterWithSlots(n)
                        && expectedReplicas(n) > connectedReplicas(repl)) {
                    return false;
                }
            }
            return view != null;
        } catch (RuntimeException notYet) {
            return false;
        }
    }

    private int expectedReplicas(RedisServer master) {
        String id = (String) master.call("CLUSTER", "MYID");
        String table = (String) master.call("CLUSTER", "NODES");
        return (int) table.lines().map(l -> l.split(" ")).filter(f -> f.length > 7 && f[3].equals(id))
                .filter(f -> f[2].contains("slave") && !f[2].contains("fail") && f[7].equals("connected")).count();
    }

    private static int connectedReplicas(String replicationInfo) {
        return replicationInfo.lines().filter(l -> l.startsWith("connected_slaves:"))
                .map(l -> Integer.parseInt(l.substring("connected_slaves:".length()).trim())).findFirst().orElse(0);
    }

    private boolean isMasterWithSlots(RedisServer n) {
        return slotRanges(n).stream().anyMatch(r -> r.port == n.port());
    }

    private static String slotOwners(RedisServer n) {
        StringBuilder b = new StringBuilder();
        slotRanges(n).stream().sorted((x, y) -> Long.compare(x.from, y.from))
                .forEach(r -> b.append(r.from).append('-').append(r.to).append('@').append(r.port).append(' '));
        return b.toString();
    }

    private record Range(long from, long to, int port) {
    }

    private static List<Range> slotRanges(RedisServer n) {
        List<Range> out = new ArrayList<>();
        for (Object o : (List<?>) n.call("CLUSTER", "SLOTS")) {
            List<?> r = (List<?>) o;
            List<?> master = (List<?>) r.get(2);
            out.add(new Range((Long) r.get(0), (Long) r.get(1), ((Long) master.get(1)).intValue()));
        }
        return out;
    }

    /** @return {@link RedisTopology.Kind#CLUSTER} */
    @Override
    public Kind kind() {
        return Kind.CLUSTER;
    }

    /** @return every node started (running or not), masters first as first formed */
    public List<RedisServer> nodes() {
        return List.copyOf(nodes);
    }

    /** @return the running nodes */
    @Override
    public List<RedisServer> dataNodes() {
        return running();
    }

    private List<RedisServer> running() {
        return nodes.stream().filter(RedisServer::isRunning).toList();
    }

    /** @return the nodes that serve slots now */
    public List<RedisServer> masters() {
        RedisServer any = running().get(0);
        List<Integer> ports = slotRanges(any).stream().map(Range::port).distinct().toList();
        return running().stream().filter(n -> ports.contains(n.port())).toList();
    }

    /** @return the running nodes that serve no slot (replicas) */
    public List<RedisServer> replicas() {
        List<RedisServer> masters = masters();
        return running().stream().filter(n -> !masters.contains(n)).toList();
    }

    /** @return {@code redis://host:port} of every running node, as seeds for a cluster client */
    public List<URI> uris() {
        return running().stream().map(RedisServer::uri).toList();
    }

    /**
     * @param key a key or sharded channel
     * @return its hash slot
     */
    public static int slot(String key) {
        return Routing.slot(key);
    }

    /**
     * @param key a key
     * @return the running master that serves the key's slot now
     */
    public RedisServer masterFor(String key) {
        int slot = slot(key);
        for (RedisServer n : running()) {
            try {
                for (Range r : slotRanges(n)) {
                    if (slot >= r.from && slot <= r.to) {
                        return nodes.stream().filter(x -> x.port() == r.port && x.isRunning()).findFirst()
                                .orElseThrow(() -> new IllegalStateException("slot " + slot + " is served by "
                                        + r.port + ", which is down"));
                    }
                }
            } catch (RuntimeException tryAnother) {
                // a node that is going down: ask the next one
            }
        }
        throw new IllegalStateException("no running node knows who serves slot " + slot + ": " + describe());
    }

    /**
     * @param keys keys
     * @return how many of them each master serves now (one {@code CLUSTER SLOTS} for all)
     */
    public java.util.Map<RedisServer, Integer> countByMaster(java.util.Collection<String> keys) {
        List<Range> ranges = slotRanges(running().get(0));
        java.util.Map<RedisServer, Integer> counts = new java.util.LinkedHashMap<>();
        for (String key : keys) {
            int slot = slot(key);
            int port = ranges.stream().filter(r -> slot >= r.from && slot <= r.to).findFirst()
                    .orElseThrow(() -> new IllegalStateException("slot " + slot + " is not served")).port;
            RedisServer owner = nodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow();
            counts.merge(owner, 1, Integer::sum);
        }
        return counts;
    }

    /**
     * @param master a master
     * @return the running replicas attached to it
     */
    public List<RedisServer> replicasOf(RedisServer master) {
        String id = (String) master.call("CLUSTER", "MYID");
        return replicas().stream().filter(r -> {
            String table = (String) r.call("CLUSTER", "NODES");
            return table.lines().map(l -> l.split(" "))
                    .anyMatch(f -> f.length > 3 && f[2].contains("myself") && f[3].equals(id));
        }).toList();
    }

    @Override
    public RespClient adminFor(String key) {
        return masterFor(key).admin();
    }

    /**
     * {@inheritDoc} A classic {@code PUBLISH} reaches subscribers on every node of a cluster, but
     * Redis counts only the receiving node's: here it answers the count over the whole cluster
     * (taken just before publishing on one master), as it would on one server.
     */
    @Override
    public Object call(String... args) {
        if (args[0].equalsIgnoreCase("PUBLISH")) {
            List<?> numsub = (List<?>) call("PUBSUB", "NUMSUB", args[1]);
            masters().get(0).call(args);
            return numsub.get(1);
        }
        return switch (Routing.scope(args)) {
            case MASTERS -> Routing.fanOut(masters(), n -> n.call(args), args);
            case ALL -> Routing.fanOut(running(), n -> n.call(args), args);
            case KEY -> {
                String key = Routing.keyOf(args);
                RuntimeException last = null;
                for (int attempt = 0; attempt < 50; attempt++) {
                    RedisServer target = key == null ? masters().get(0) : masterFor(key);
                    try {
                        yield target.call(args);
                    } catch (RespClient.RespError e) {
                        if (!e.getMessage().startsWith("MOVED") && !e.getMessage().startsWith("CLUSTERDOWN")
                                && !e.getMessage().startsWith("TRYAGAIN")) {
                            throw e;
                        }
                        last = e; // a slot changing hands: ask again after a breath
                    } catch (UncheckedIOException e) {
                        last = e;
                    }
                    RedisServer.sleepQuietly(Duration.ofMillis(100));
                }
                throw last;
            }
        };
    }

    /**
     * {@code CLUSTER FAILOVER} on {@code replica} (a manual, coordinated failover: no write is
     * lost), then waits until it serves its former master's slots and the cluster is healthy.
     *
     * @param replica a running replica
     */
    public void failover(RedisServer replica) {
        replica.call("CLUSTER", "FAILOVER");
        Await.until(Duration.ofSeconds(30), () -> isMasterWithSlots(replica),
                () -> "replica " + replica.port() + " was not promoted: " + describe());
        awaitHealthy(Duration.ofSeconds(30));
    }

    /**
     * Kills ({@code SIGKILL}) the master serving {@code key} and waits until one of its replicas
     * serves the key and every other node agrees.
     *
     * @param key a key the killed master serves
     * @return the killed master (restart it with {@link RedisServer#start()}; it rejoins as a replica)
     */
    public RedisServer killMasterOf(String key) {
        RedisServer master = masterFor(key);
        master.kill();
        Await.until(Duration.ofSeconds(30).plusMillis(4L * nodeTimeoutMs), () -> {
            try {
                return masterFor(key) != master && healthyWithout(master);
            } catch (RuntimeException notYet) {
                return false;
            }
        }, () -> "no replica took over from " + master.port() + ": " + describe());
        return master;
    }

    private boolean healthyWithout(RedisServer dead) {
        for (RedisServer n : running()) {
            if (n == dead) {
                continue;
            }
            if (!((String) n.call("CLUSTER", "INFO")).contains("cluster_state:ok")) {
                return false;
            }
        }
        return true;
    }

    /** Stops every node and deletes the node files. */
    @Override
    public void close() {
        for (RedisServer n : nodes) {
            n.stop();
        }
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
        for (RedisServer n : running()) {
            try {
                return "\n" + n.call("CLUSTER", "NODES");
            } catch (RuntimeException tryNext) {
                // next node
            }
        }
        return "no node answers";
    }

    @Override
    public String toString() {
        return "redis cluster " + nodes.stream().map(n -> Integer.toString(n.port())).toList();
    }
}
