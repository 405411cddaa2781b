package io.github.relock.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis server for tests: either the one at {@code REDIS_URL}, or a {@code redis-server}
 * process started from the static binary that the {@code org.signal:embedded-redis} artifact
 * ships, on a free loopback port, with persistence off.
 *
 * <p>Thread-safety: {@link #stop()}/{@link #restart()} must not race each other; the accessors are
 * safe from any thread.
 */
public final class RedisServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RedisServer.class.getName());
    private static final String BINARY_VERSION = "7.0.15";
    private static final java.util.concurrent.locks.ReentrantLock EXTRACT = new java.util.concurrent.locks.ReentrantLock();
    private static volatile Path binary;

    private final String host;
    private final int port;
    private final String password;
    private final boolean external;
    private volatile Process process;

    private RedisServer(String host, int port, String password, boolean external) {
        this.host = host;
        this.port = port;
        this.password = password;
        this.external = external;
    }

    /**
     * Starts a new embedded server on a free loopback port.
     *
     * @return the running server
     */
    public static RedisServer startEmbedded() {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePort();
            RedisServer server = new RedisServer("127.0.0.1", port, null, false);
            try {
                server.launch();
                return server;
            } catch (IOException e) {
                last = e; // most likely the port was taken between probing and binding: try another
                server.stop();
            }
        }
        throw new UncheckedIOException("could not start redis-server " + BINARY_VERSION, last);
    }

    /**
     * Uses an already running server (from {@code REDIS_URL}); {@link #stop()} does nothing to it.
     *
     * @param uri {@code redis://[:password@]host:port}
     * @return a handle on it
     */
    public static RedisServer external(URI uri) {
        String userInfo = uri.getUserInfo();
        String pw = null;
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            pw = colon >= 0 ? userInfo.substring(colon + 1) : userInfo;
        }
        return new RedisServer(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(), pw, true);
    }

    /** @return the host to connect to */
    public String host() {
        return host;
    }

    /** @return the port to connect to */
    public int port() {
        return port;
    }

    /** @return {@code redis://host:port} (with the password when there is one) */
    public URI uri() {
        return URI.create("redis://" + (password == null ? "" : ":" + password + "@") + host + ":" + port);
    }

    /** @return whether this server was started here (and so can be stopped and restarted) */
    public boolean isEmbedded() {
        return !external;
    }

    /** @return a new admin connection; close it after use */
    public RespClient admin() {
        RespClient c = new RespClient(host, port, 5000);
        if (password != null) {
            c.call("AUTH", password);
        }
        return c;
    }

    /**
     * Runs one command on a fresh admin connection.
     *
     * @param args the command
     * @return its reply
     */
    public Object call(String... args) {
        try (RespClient c = admin()) {
            return c.call(args);
        }
    }

    /** Stops the process (embedded servers only); waits until it has exited. */
    public void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        process = null;
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the server and starts it again on the same port with an empty dataset. */
    public void restart() {
        requireEmbedded("restart");
        stop();
        IOException last = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try {
                launch();
                return;
            } catch (IOException e) {
                last = e; // the old socket may linger briefly
                stop();
                sleepQuietly(Duration.ofMillis(100));
            }
        }
        throw new UncheckedIOException("could not restart redis-server on port " + port, last);
    }

    /** Starts a stopped embedded server again on the same port. */
    public void start() {
        requireEmbedded("start");
        if (process == null) {
            restart();
        }
    }

    /** @return whether the process is running (always true for an external server) */
    public boolean isRunning() {
        return external || (process != null && process.isAlive());
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return (external ? "external" : "embedded") + " redis at " + host + ":" + port;
    }

    private void requireEmbedded(String what) {
        if (external) {
            throw new IllegalStateException("cannot " + what + " an external server (" + uri() + ")");
        }
    }

    private void launch() throws IOException {
        Path bin = binary();
        List<String> cmd = List.of(bin.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no",
                "--loglevel", "warning", "--logfile", "");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        process = p;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IOException("redis-server exited with " + p.exitValue() + " on port " + port);
            }
            try (RespClient c = new RespClient(host, port, 1000)) {
                if ("PONG".equals(c.call("PING"))) {
                    LOG.log(System.Logger.Level.DEBUG, "redis-server " + BINARY_VERSION + " up on port " + port);
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            sleepQuietly(Duration.ofMillis(20));
        }
        throw new IOException("redis-server did not answer PING on port " + port + " within 15 s");
    }

    private static Path binary() throws IOException {
        Path b = binary;
        if (b != null) {
            return b;
        }
        EXTRACT.lock(); // one-time extraction
        try {
            if (binary != null) {
                return binary;
            }
            String resource = "redis-server-" + BINARY_VERSION + "-" + platform();
            Path dir = Files.createTempDirectory("relock-redis-");
            Path target = dir.resolve("redis-server");
            try (InputStream in = RedisServer.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException("resource " + resource + " not found: is org.signal:embedded-redis on the test class path?");
                }
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
            target.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            binary = target;
            return target;
        } finally {
            EXTRACT.unlock();
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
                    + "; set REDIS_URL to a running server instead");
        }
        return o + "-" + a;
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    static void sleepQuietly(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
