package io.github.relock.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} process for the demo when no {@code REDIS_URL} is given: the static
 * 7.0.15 binary that {@code org.signal:embedded-redis} ships, on a free loopback port, persistence
 * off. A trimmed copy of lock-tck's {@code RedisServer}, so that the demo's runtime class path
 * carries no test framework.
 *
 * <p>Thread-safety: {@link #close()} may be called from any thread, more than once.
 */
final class EmbeddedRedis implements AutoCloseable {
    static final String VERSION = "7.0.15";

    private final int port;
    private final Process process;
    private final Path binary;

    private EmbeddedRedis(int port, Process process, Path binary) {
        this.port = port;
        this.process = process;
        this.binary = binary;
    }

    /**
     * Extracts the binary and starts it; waits until it answers PING.
     *
     * @return the running server
     * @throws IllegalStateException on a platform without a shipped binary, or if it does not start
     */
    static EmbeddedRedis start() {
        Path bin = extract();
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePort(); // may be taken before redis binds it: then try another
            Process p = null;
            try {
                p = new ProcessBuilder(bin.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                        "--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no",
                        "--loglevel", "warning", "--logfile", "")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                awaitPong(p, port);
                return new EmbeddedRedis(port, p, bin);
            } catch (IOException e) {
                last = e;
                if (p != null) {
                    p.destroyForcibly();
                }
            }
        }
        throw new IllegalStateException("could not start the embedded redis-server " + VERSION
                + "; set REDIS_URL to a running server instead", last);
    }

    String host() {
        return "127.0.0.1";
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Files.deleteIfExists(binary);
            Files.deleteIfExists(binary.getParent());
        } catch (IOException e) {
            binary.toFile().deleteOnExit(); // another demo may still run it
        }
    }

    private static void awaitPong(Process p, int port) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() - deadline < 0) {
            if (!p.isAlive()) {
                throw new IOException("redis-server exited with " + p.exitValue() + " on port " + port);
            }
            if (answersPing(port)) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while starting redis-server", e);
            }
        }
        throw new IOException("redis-server did not answer PING on port " + port + " within 15 s");
    }

    private static boolean answersPing(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            s.setSoTimeout(500);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] reply = s.getInputStream().readNBytes(7);
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException notYet) {
            return false;
        }
    }

    private static Path extract() {
        String resource = "redis-server-" + VERSION + "-" + platform();
        try {
            Path dir = Files.createTempDirectory("relock-demo-redis-");
            Path target = dir.resolve("redis-server");
            try (InputStream in = EmbeddedRedis.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("resource " + resource
                            + " not found: is org.signal:embedded-redis on the class path?");
                }
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("could not extract " + resource, e);
        }
    }

    private static String platform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String o = os.contains("mac") || os.contains("darwin") ? "darwin" : os.contains("linux") ? "linux" : null;
        String a = switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "x86", "i386", "i686" -> "386";
            default -> null;
        };
        if (o == null || a == null) {
            throw new IllegalStateException("no embedded redis-server for " + os + "/" + arch
                    + "; set REDIS_URL (or --url) to a running server instead");
        }
        return o + "-" + a;
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
