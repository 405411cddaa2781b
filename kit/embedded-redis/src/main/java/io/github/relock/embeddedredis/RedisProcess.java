package io.github.relock.embeddedredis;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@code redis-server} process started from the static binary that {@code org.signal:embedded-redis}
 * ships for this platform, bound to {@value #HOST}, persistence off. The binary is extracted once
 * per class loader into a temporary folder that is deleted when the JVM exits.
 *
 * <p>Which server: a <em>server choice</em>, {@value #DEFAULT_SERVER} (the default, Redis 7.0.15 from
 * {@code org.signal:embedded-redis}), {@value #REDIS_62} (Redis 6.2 from
 * {@code com.github.codemonstur:embedded-redis}, which must then be on the class path: the kit's
 * fixtures bring it), or the path of any {@code redis-server}-compatible executable (a Debian
 * {@code /usr/bin/redis-server}, a {@code valkey-server}). The factories without a choice use
 * {@link #defaultServer()}: the system property {@value #SERVER_PROPERTY}, else {@value #DEFAULT_SERVER}.
 *
 * <p>The one copy of "which binary for this OS and CPU, extract it, start it, wait for PING": the
 * kit's fixture ({@code io.github.relock.tck.fixtures.RedisServer}) and the demo both use it.
 *
 * <p>Thread-safety: the factories may be called from any thread at once; {@link #close()} may be
 * called from any thread, more than once.
 */
public final class RedisProcess implements AutoCloseable {
    /** The version of the {@code redis-server} binaries in {@code org.signal:embedded-redis} 0.9.1. */
    public static final String VERSION = "7.0.15";
    /** System property: the server choice the factories without one use (see the class comment). */
    public static final String SERVER_PROPERTY = "relock.redis.server";
    /** The default server choice: Redis {@value #VERSION}. */
    public static final String DEFAULT_SERVER = "7.0";
    /** The server choice of Redis 6.2, from {@code com.github.codemonstur:embedded-redis}. */
    public static final String REDIS_62 = "6.2";
    /** The address every server started here binds to. */
    public static final String HOST = "127.0.0.1";

    /** The platforms the binaries jar has a binary for, as {@code os-arch} resource suffixes. */
    static final List<String> SHIPPED = List.of("linux-amd64", "linux-arm64", "linux-386", "darwin-amd64", "darwin-arm64");

    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(15);
    private static final int FREE_PORT_ATTEMPTS = 5;
    private static final Pattern VERSION_OUTPUT = Pattern.compile("^(\\S+) server v=(\\S+)");
    private static final ReentrantLock EXTRACT = new ReentrantLock();
    private static final Map<String, Path> BINARIES = new HashMap<>(); // by server choice; guarded by EXTRACT
    private static final Map<String, String> VERSIONS = new HashMap<>(); // by server choice; guarded by EXTRACT

    private final int port;
    private final Process process;
    private final String server;

    private RedisProcess(int port, Process process, String server) {
        this.port = port;
        this.process = process;
        this.server = server;
    }

    /** @return the server choice of {@value #SERVER_PROPERTY}, or {@value #DEFAULT_SERVER} when it is unset or blank */
    public static String defaultServer() {
        String chosen = System.getProperty(SERVER_PROPERTY, "").strip();
        return chosen.isEmpty() ? DEFAULT_SERVER : chosen;
    }

    /**
     * What a server choice runs, as its binary reports it ({@code --version}), e.g.
     * {@code Redis 6.2.11} or {@code Valkey 8.0.1}; extracts the binary first if needed.
     *
     * @param server a server choice (see the class comment)
     * @return the product and version
     * @throws IOException if the binary cannot be extracted or run
     */
    public static String describe(String server) throws IOException {
        EXTRACT.lock();
        try {
            String known = VERSIONS.get(server);
            if (known != null) {
                return known;
            }
            Process p = new ProcessBuilder(binary(server).toString(), "--version").redirectErrorStream(true).start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readNBytes(4096), StandardCharsets.UTF_8).strip();
            }
            Matcher m = VERSION_OUTPUT.matcher(out);
            String described = m.find() ? m.group(1) + " " + m.group(2) : out;
            VERSIONS.put(server, described);
            return described;
        } finally {
            EXTRACT.unlock();
        }
    }

    /**
     * Starts a server on a free loopback port; tries another port if the one found is taken before
     * the server binds it.
     *
     * @return the running server, answering PING
     * @throws IOException if it did not start on 5 ports in a row (the
     *     cause is the last failure); {@link InterruptedIOException} at once if interrupted
     * @throws IllegalStateException if no binary is shipped for this platform or the binaries jar
     *     is not on the class path
     */
    public static RedisProcess startOnFreePort() throws IOException {
        return startOnFreePort(defaultServer());
    }

    /**
     * As {@link #startOnFreePort()}, from the given server choice.
     *
     * @param server a server choice (see the class comment)
     * @return the running server, answering PING
     * @throws IOException as {@link #startOnFreePort()}
     */
    public static RedisProcess startOnFreePort(String server) throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
            try {
                return start(server, freePort(), List.of());
            } catch (InterruptedIOException e) {
                throw e;
            } catch (IOException e) {
                last = e; // most likely the port was taken between probing and binding: try another
            }
        }
        throw new IOException("redis-server " + server + " did not start on " + FREE_PORT_ATTEMPTS
                + " free ports in a row; last failure: " + last.getMessage(), last);
    }

    /**
     * Starts a server on the given loopback port and waits until it answers PING.
     *
     * @param port the port, 1 to 65535
     * @return the running server
     * @throws IOException if the process exits (e.g. the port is taken) or does not answer PING
     *     within 15 s; the process is stopped first. {@link InterruptedIOException} if interrupted
     *     (the interrupt status is kept)
     * @throws IllegalStateException if no binary is shipped for this platform or the binaries jar
     *     is not on the class path
     */
    public static RedisProcess start(int port) throws IOException {
        return start(port, List.of());
    }

    /**
     * Starts a server on the given loopback port with extra configuration and waits until it
     * answers PING; as {@link #start(int)} otherwise. The topology fixtures use it for cluster
     * nodes ({@code --cluster-enabled yes ...}) and replicas ({@code --replicaof ...}).
     *
     * @param port the port, 1 to 65535
     * @param extraArgs further {@code --name value} arguments, appended after the defaults (so they
     *     win); not null
     * @return the running server
     * @throws IOException as {@link #start(int)}
     */
    public static RedisProcess start(int port, List<String> extraArgs) throws IOException {
        return start(defaultServer(), port, extraArgs);
    }

    /**
     * As {@link #start(int, List)}, from the given server choice.
     *
     * @param server a server choice (see the class comment)
     * @param port the port, 1 to 65535
     * @param extraArgs further {@code --name value} arguments; not null
     * @return the running server
     * @throws IOException as {@link #start(int)}
     */
    public static RedisProcess start(String server, int port, List<String> extraArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of("--port", Integer.toString(port), "--bind", HOST,
                "--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no",
                "--loglevel", "warning", "--logfile", ""));
        command.addAll(extraArgs);
        return launch(server, port, null, command);
    }

    /**
     * Starts a Sentinel ({@code redis-server <config> --sentinel}) on the given loopback port and
     * waits until it answers PING. Sentinel rewrites its configuration file, so it must be a
     * writable file of the caller's.
     *
     * @param port the port, 1 to 65535
     * @param config the sentinel configuration file (its {@code sentinel monitor} lines)
     * @return the running sentinel
     * @throws IOException as {@link #start(int)}
     */
    public static RedisProcess startSentinel(int port, Path config) throws IOException {
        return launch(defaultServer(), port, config, List.of("--sentinel", "--port", Integer.toString(port), "--bind", HOST,
                "--protected-mode", "no", "--daemonize", "no", "--loglevel", "warning", "--logfile", ""));
    }

    private static RedisProcess launch(String server, int port, Path config, List<String> args) throws IOException {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1 to 65535, was " + port);
        }
        List<String> command = new ArrayList<>();
        command.add(binary(server).toString());
        if (config != null) {
            command.add(config.toString()); // a configuration file must come first
        }
        command.addAll(args);
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        RedisProcess started = new RedisProcess(port, p, server);
        try {
            started.awaitPong();
            return started;
        } catch (IOException | RuntimeException e) {
            started.close();
            throw e;
        }
    }

    /**
     * A loopback port that was free a moment ago (another process may take it before it is used).
     *
     * @return the port
     */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** @return the address to connect to: {@value #HOST} */
    public String host() {
        return HOST;
    }

    /** @return the port the server listens on */
    public int port() {
        return port;
    }

    /** @return the server choice this process was started from (see the class comment) */
    public String server() {
        return server;
    }

    /** @return the operating-system process id (for fault injection: {@code kill -STOP}) */
    public long pid() {
        return process.pid();
    }

    /** Kills the process at once ({@code SIGKILL} on Unix), as a crash would, and waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return whether the process is still running */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Stops the process and waits until it has exited (10 s, then it is killed). */
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
    }

    @Override
    public String toString() {
        return "redis-server " + server + " at " + HOST + ":" + port + " (pid " + process.pid() + ")";
    }

    /**
     * The binaries jar's resource for a platform.
     *
     * @param osName {@code os.name}
     * @param osArch {@code os.arch}
     * @return e.g. {@code redis-server-7.0.15-linux-amd64}
     * @throws IllegalStateException if the jar ships no binary for it
     */
    static String resourceFor(String osName, String osArch) {
        return resourceFor(DEFAULT_SERVER, osName, osArch);
    }

    /**
     * A bundled server's resource for a platform.
     *
     * @param server {@value #DEFAULT_SERVER} or {@value #REDIS_62}
     * @param osName {@code os.name}
     * @param osArch {@code os.arch}
     * @return e.g. {@code redis-server-6.2.6-v5-linux-amd64}
     * @throws IllegalStateException if no binary is bundled for it
     */
    static String resourceFor(String server, String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        String o = os.contains("mac") || os.contains("darwin") ? "darwin" : os.contains("linux") ? "linux" : os;
        String a = switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "x86", "i386", "i486", "i586", "i686" -> "386";
            default -> arch;
        };
        String platform = o + "-" + a;
        if (REDIS_62.equals(server)) {
            // com.github.codemonstur:embedded-redis 1.4.4 names its builds by the release it started from
            return switch (platform) {
                case "linux-amd64", "darwin-amd64", "darwin-arm64" -> "redis-server-6.2.6-v5-" + platform;
                case "linux-arm64", "linux-386" -> "redis-server-6.2.7-" + platform;
                default -> throw new IllegalStateException("com.github.codemonstur:embedded-redis ships no redis-server"
                        + " 6.2 for " + osName + "/" + osArch);
            };
        }
        if (!SHIPPED.contains(platform)) {
            throw new IllegalStateException("org.signal:embedded-redis ships no redis-server for " + osName + "/" + osArch
                    + " (only " + String.join(", ", SHIPPED) + ")");
        }
        return "redis-server-" + VERSION + "-" + platform;
    }

    private static Path binary(String server) throws IOException {
        EXTRACT.lock();
        try {
            Path known = BINARIES.get(server);
            if (known == null) {
                if (server.equals(DEFAULT_SERVER) || server.equals(REDIS_62)) {
                    known = extract(resourceFor(server, System.getProperty("os.name"), System.getProperty("os.arch")));
                } else {
                    known = Path.of(server);
                    if (!Files.isExecutable(known)) {
                        throw new IllegalStateException(SERVER_PROPERTY + " must be " + DEFAULT_SERVER + ", " + REDIS_62
                                + " or the path of a redis-server executable; '" + server + "' is none");
                    }
                }
                BINARIES.put(server, known);
            }
            return known;
        } finally {
            EXTRACT.unlock();
        }
    }

    private static Path extract(String resource) throws IOException {
        Path dir = Files.createTempDirectory("relock-redis-");
        Path target = dir.resolve("redis-server");
        dir.toFile().deleteOnExit(); // registered first: deleted after the file inside it
        target.toFile().deleteOnExit();
        try (InputStream in = RedisProcess.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " not found: is "
                        + (resource.startsWith("redis-server-6.2") ? "com.github.codemonstur" : "org.signal")
                        + ":embedded-redis on the class path?");
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
        return target;
    }

    private void awaitPong() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new IOException("redis-server exited with " + process.exitValue() + " on port " + port);
            }
            if (answersPing()) {
                return;
            }
            try {
                Thread.sleep(20); // polling the port, bounded by the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while starting redis-server on port " + port);
            }
        }
        throw new IOException("redis-server did not answer PING on port " + port + " within 15 s");
    }

    private boolean answersPing() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 500);
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
}
