package io.github.relock.benchmarks;

import java.nio.file.Path;

/**
 * What {@link BenchmarkReport} hands to the benchmark JVMs it forks, as system properties: where
 * Redis is and where to leave the figures JMH does not collect itself (hand-off latencies).
 *
 * <p>Thread-safety: stateless.
 */
final class BenchEnv {
    static final String HOST = "relock.bench.host";
    static final String PORT = "relock.bench.port";
    static final String OUT = "relock.bench.out";

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
}
