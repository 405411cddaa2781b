package io.github.relock.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-JVM TCP proxy between a client and one Redis server, which injects network faults: added
 * latency, a blackhole (both directions stop, nothing is closed, as in a partition), a reset of
 * every connection ({@code RST}), a slow close, a half-open connection, and a blackhole of only
 * the pub/sub connections. A lock client made over {@link #server()} reaches Redis through it.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start(redis)) {
 *     LockClient c = kit.newLockClient(proxy.server(), options);
 *     proxy.blackhole();              // partition: bytes wait, sockets stay open
 *     proxy.heal();                   // the held bytes flow again, as TCP would retransmit them
 * }
 * }</pre>
 *
 * <p>A blackhole holds bytes back rather than dropping them: TCP never loses bytes on a live
 * connection, so a partition that heals delivers them late, and one that lasts kills the
 * connection ({@link #reset()} after the blackhole models that).
 *
 * <p>Design: one accepting thread, and per connection two pump threads (client to server, server
 * to client). Each pump reads, then passes a gate that is shut while blackholed, then sleeps the
 * configured latency, then writes. The client-to-server pump looks for {@code SUBSCRIBE} in what it
 * forwards, which marks the connection as a pub/sub connection for {@link #blackholePubSub()}.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class TcpProxy implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(TcpProxy.class.getName());
    private static final byte[] SUBSCRIBE = "SUBSCRIBE".getBytes(StandardCharsets.US_ASCII);

    private final RedisServer target;
    private final ServerSocket listener;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private final ReentrantLock gate = new ReentrantLock();
    private final Condition open = gate.newCondition();
    private volatile boolean blackholed;
    private volatile boolean pubSubBlackholed;
    private volatile boolean halfOpen;
    private volatile long latencyNanos;
    private volatile boolean closed;

    private TcpProxy(RedisServer target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "tck-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * @param target the server to forward to
     * @return a running proxy on a free loopback port
     */
    public static TcpProxy start(RedisServer target) {
        try {
            return new TcpProxy(target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port for " + target, e);
        }
    }

    /** @return the proxy as a server to connect to (an external one: it cannot be stopped) */
    public RedisServer server() {
        return RedisServer.external(URI.create("redis://" + listener.getInetAddress().getHostAddress() + ":"
                + listener.getLocalPort()));
    }

    /** @return connections currently open through the proxy */
    public int connections() {
        return (int) links.stream().filter(l -> !l.client.isClosed()).count();
    }

    /** @return open connections that carried a SUBSCRIBE or SSUBSCRIBE */
    public int pubSubConnections() {
        return (int) links.stream().filter(l -> l.pubSub && !l.client.isClosed()).count();
    }

    /** @param latency added to every chunk forwarded, each way; zero for none */
    public void latency(Duration latency) {
        latencyNanos = latency.toNanos();
    }

    /** Stops forwarding in both directions on every connection, closing nothing. */
    public void blackhole() {
        blackholed = true;
    }

    /** Stops forwarding on pub/sub connections only: messages and pings wait, commands flow. */
    public void blackholePubSub() {
        pubSubBlackholed = true;
    }

    /**
     * Half-open: the client's requests reach Redis, Redis's replies never come back, and nothing
     * is closed (a one-way partition).
     */
    public void halfOpen() {
        halfOpen = true;
    }

    /** Ends every fault: held bytes flow, latency is removed. */
    public void heal() {
        latencyNanos = 0;
        gate.lock();
        try {
            blackholed = false;
            pubSubBlackholed = false;
            halfOpen = false;
            open.signalAll();
        } finally {
            gate.unlock();
        }
    }

    /** Resets every open connection ({@code RST} to both sides), as a dead middlebox would. */
    public void reset() {
        for (Link l : links) {
            l.abort();
        }
        links.clear();
    }

    /**
     * Closes every open connection after {@code delay}, gracefully ({@code FIN}): the peer keeps
     * sending into a connection that is going away.
     *
     * @param delay how long the close takes
     */
    public void slowClose(Duration delay) {
        List<Link> now = List.copyOf(links);
        Thread closer = new Thread(() -> {
            sleep(delay.toNanos());
            for (Link l : now) {
                l.close();
            }
            links.removeAll(now);
        }, "tck-proxy-slow-close");
        closer.setDaemon(true);
        closer.start();
    }

    @Override
    public void close() {
        closed = true;
        heal();
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        reset();
        try {
            acceptor.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "proxy " + listener.getLocalPort() + " -> " + target;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket server = new Socket(target.host(), target.port());
                Link link = new Link(client, server);
                links.add(link);
                link.start();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "proxy cannot reach " + target + ": " + e);
                closeQuietly(client);
            }
        }
    }

    private void awaitPassage(Link link, boolean towardClient) throws InterruptedException {
        gate.lock();
        try {
            while (!closed && (blackholed || (towardClient && halfOpen) || (link.pubSub && pubSubBlackholed))) {
                open.await(100, TimeUnit.MILLISECONDS);
            }
        } finally {
            gate.unlock();
        }
        long latency = latencyNanos;
        if (latency > 0) {
            TimeUnit.NANOSECONDS.sleep(latency);
        }
    }

    private static void sleep(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    /** One proxied connection and its two pumps. */
    private final class Link {
        final Socket client;
        final Socket server;
        volatile boolean pubSub;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void start() {
            pump(client, server, false, "up");
            pump(server, client, true, "down");
        }

        private void pump(Socket from, Socket to, boolean towardClient, String dir) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[16 * 1024];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        if (!towardClient && !pubSub && contains(buf, n, SUBSCRIBE)) {
                            pubSub = true;
                        }
                        awaitPassage(this, towardClient);
                        out.write(buf, 0, n);
                        out.flush();
                    }
                    to.shutdownOutput();
                } catch (IOException | InterruptedException e) {
                    // a side closed or was reset: the other side follows
                    abort();
                }
            }, "tck-proxy-" + dir + "-" + client.getPort());
            t.setDaemon(true);
            t.start();
        }

        void abort() {
            for (Socket s : new Socket[] {client, server}) {
                try {
                    if (!s.isClosed()) {
                        s.setSoLinger(true, 0);
                    }
                } catch (IOException ignored) {
                    // closing anyway
                }
                closeQuietly(s);
            }
        }

        void close() {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    static boolean contains(byte[] buf, int len, byte[] word) {
        outer:
        for (int i = 0; i + word.length <= len; i++) {
            for (int j = 0; j < word.length; j++) {
                if (Character.toUpperCase((char) buf[i + j]) != word[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
