package io.github.relock.tck;

import io.github.relock.embeddedredis.RedisProcess;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis server for tests: either the one at {@code REDIS_URL}, or a {@code redis-server}
 * process started from the static binary that the {@code org.signal:embedded-redis} artifact
 * ships, on a free loopback port, with persistence off (started by {@link RedisProcess}, which the
 * demo shares).
 *
 * <p>Thread-safety: {@link #stop()}/{@link #restart()} must not race each other; the accessors are
 * safe from any thread.
 */
public final class RedisServer implements RedisTopology, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RedisServer.class.getName());

    private final String host;
    private final int port;
    private final String password;
    private final boolean external;
    private final List<String> extraArgs;
    private volatile RedisProcess process;

    private RedisServer(String host, int port, String password, boolean external, List<String> extraArgs) {
        this.host = host;
        this.port = port;
        this.password = password;
        this.external = external;
        this.extraArgs = List.copyOf(extraArgs);
    }

    /** A node of a topology fixture: started with {@code extraArgs}, restarted with them too. */
    static RedisServer startNode(int port, List<String> extraArgs) throws IOException {
        RedisServer server = new RedisServer(RedisProcess.HOST, port, null, false, extraArgs);
        server.launch();
        return server;
    }

    /** A Sentinel process of a topology fixture. */
    static RedisServer sentinel(RedisProcess process) {
        RedisServer server = new RedisServer(process.host(), process.port(), null, false, List.of());
        server.process = process;
        return server;
    }

    /**
     * Starts a new embedded server on a free loopback port.
     *
     * @return the running server
     */
    public static RedisServer startEmbedded() {
        RedisProcess started;
        try {
            started = RedisProcess.startOnFreePort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start redis-server " + RedisProcess.VERSION, e);
        } catch (IllegalStateException e) { // no binary for this platform
            throw new IllegalStateException(e.getMessage() + "; set REDIS_URL to a running server instead", e);
        }
        RedisServer server = new RedisServer(started.host(), started.port(), null, false, List.of());
        server.process = started;
        LOG.log(System.Logger.Level.DEBUG, "redis-server " + RedisProcess.VERSION + " up on port " + started.port());
        return server;
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
        return new RedisServer(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(), pw, true, List.of());
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

    /** @return {@link RedisTopology.Kind#SINGLE} */
    @Override
    public Kind kind() {
        return Kind.SINGLE;
    }

    /** @return a new admin connection to this server, whatever the key */
    @Override
    public RespClient adminFor(String key) {
        return admin();
    }

    /** @return this server */
    @Override
    public List<RedisServer> dataNodes() {
        return List.of(this);
    }

    /**
     * Runs one command on a fresh admin connection.
     *
     * @param args the command
     * @return its reply
     */
    @Override
    public Object call(String... args) {
        try (RespClient c = admin()) {
            return c.call(args);
        }
    }

    /** Stops the process (embedded servers only); waits until it has exited. */
    public void stop() {
        RedisProcess p = process;
        if (p == null) {
            return;
        }
        process = null;
        p.close();
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
            } catch (InterruptedIOException e) {
                throw new UncheckedIOException("interrupted while restarting redis-server on port " + port, e);
            } catch (IOException e) {
                last = e; // the old socket may linger briefly
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

    /**
     * Kills the process at once ({@code SIGKILL}), as a crash would (embedded servers only);
     * {@link #start()} brings it back on the same port, with its configuration.
     */
    public void kill() {
        requireEmbedded("kill");
        RedisProcess p = process;
        if (p != null) {
            process = null;
            p.kill();
        }
    }

    /** @return the process id (embedded servers only), e.g. for {@code kill -STOP} */
    public long pid() {
        requireEmbedded("signal");
        RedisProcess p = process;
        if (p == null) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        return p.pid();
    }

    /** Freezes the process ({@code kill -STOP}): it keeps its sockets but answers nothing. */
    public void pause() {
        signal("STOP");
    }

    /** Thaws a process frozen by {@link #pause()} ({@code kill -CONT}). */
    public void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        long pid = pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + name + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + pid, e);
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
        process = RedisProcess.start(port, extraArgs);
        LOG.log(System.Logger.Level.DEBUG, "redis-server " + RedisProcess.VERSION + " up on port " + port);
    }

    static void sleepQuietly(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
