package io.github.relock.driver.lettuce;

import io.github.relock.tck.fixtures.RespClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of one master owning all 16384 slots, from the same static redis-server binary
 * the fixture uses: enough to drive Lettuce's cluster code paths (topology, slot routing, node
 * connections) against a real server.
 */
final class OneNodeCluster implements AutoCloseable {
    private final Path dir;
    private final Process process;
    final int port;

    private OneNodeCluster(Path dir, Process process, int port) {
        this.dir = dir;
        this.process = process;
        this.port = port;
    }

    /** @return whether this platform has an embedded binary */
    static boolean available() {
        return OneNodeCluster.class.getClassLoader().getResource(resource()) != null;
    }

    static OneNodeCluster start() throws IOException {
        Path dir = Files.createTempDirectory("relock-cluster-");
        Path bin = dir.resolve("redis-server");
        try (InputStream in = OneNodeCluster.class.getClassLoader().getResourceAsStream(resource())) {
            Files.copy(in, bin, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwx------"));
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(List.of(bin.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--cluster-enabled", "yes", "--cluster-config-file", dir.resolve("nodes.conf").toString(),
                "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--protected-mode", "no",
                "--logfile", "")).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        OneNodeCluster c = new OneNodeCluster(dir, p, port);
        try {
            c.awaitUp();
            c.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!((String) c.call("CLUSTER", "INFO")).contains("cluster_state:ok")) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("one-node cluster did not reach cluster_state:ok");
                }
                Thread.sleep(20);
            }
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.close();
            throw new IOException(e);
        }
    }

    URI uri() {
        return URI.create("redis://127.0.0.1:" + port);
    }

    Object call(String... args) {
        try (RespClient c = new RespClient("127.0.0.1", port, 5000)) {
            return c.call(args);
        }
    }

    private void awaitUp() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("redis-server exited with " + process.exitValue());
            }
            try {
                if ("PONG".equals(call("PING"))) {
                    return;
                }
            } catch (UncheckedIOException notYet) {
                // not listening yet
            }
            Thread.sleep(20);
        }
        throw new IOException("cluster node did not answer PING within 15 s");
    }

    private static String resource() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String o = os.contains("mac") ? "darwin" : "linux";
        String a = arch.equals("aarch64") || arch.equals("arm64") ? "arm64" : "amd64";
        return "redis-server-7.0.15-" + o + "-" + a;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // temp dir; best effort
        }
    }
}
