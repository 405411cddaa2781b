package io.github.relock.benchmarks;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * What {@link BenchmarkReport} hands to the benchmark JVMs it forks, as system properties: where
 * Redis is (one node, or a cluster's nodes) and where to leave the figures JMH does not collect
 * itself (hand-off latencies).
 *
 * <p>Thread-safety: stateless.
 */
final class BenchEnv {
    static final String HOST = "relock.bench.host";
    static final String PORT = "relock.bench.port";
    static final String OUT = "relock.bench.out";
    /** {@code host:port,host:port,...}: when set, the scenario runs on this cluster instead of HOST:PORT. */
    static final String CLUSTER = "relock.bench.cluster";

    private BenchEnv() {
    }

    static String host() {
        return System.getProperty(HOST, "127.0.0.1");
    }

    static int port() {
        String p = System.getProperty(PORT);
        if (p == null) {
            throw new IllegalStateException("-D" + PORT + " is not set: run the benchmarks through "
                    + BenchmarkReport.class.getName() + " (java -jar benchmarks/target/benchmarks.jar), which starts "
                    + "Redis, or pass -D" + PORT + "=<port> (and -D" + HOST + ") of a Redis you started");
        }
        return Integer.parseInt(p);
    }

    /** @return the directory for side results, or null when nobody collects them */
    static Path out() {
        String o = System.getProperty(OUT);
        return o == null ? null : Path.of(o);
    }

    /** @return the cluster nodes of {@code -Drelock.bench.cluster}, empty when the scenario runs on one node */
    static List<InetSocketAddress> cluster() {
        String c = System.getProperty(CLUSTER, "");
        return Arrays.stream(c.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(s -> {
            int colon = s.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("-D" + CLUSTER + " takes host:port,host:port,...; got '" + s + "'");
            }
            return InetSocketAddress.createUnresolved(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1)));
        }).toList();
    }

    /**
     * @param c the contender
     * @return its client on the cluster when {@code -Drelock.bench.cluster} is set, else on HOST:PORT
     *     (default watchdog)
     */
    static LockSource open(Contender c) {
        List<InetSocketAddress> seeds = cluster();
        return seeds.isEmpty() ? c.open(host(), port()) : c.openCluster(seeds);
    }
}
