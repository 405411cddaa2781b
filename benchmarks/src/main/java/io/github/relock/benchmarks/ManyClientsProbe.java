package io.github.relock.benchmarks;

import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * Many clients, one thread each, on one reentrant lock (issue 37 item 4, directed wake-ups): for
 * 1, 2, 4, 8, 16, 32 and 64 clients, interleaved in one run on one embedded server, relock on
 * Jedis with directed wake-ups on (the default), relock on Jedis with
 * them off, and Redisson 4.7.0 loop {@code lock(); unlock();} for the given seconds. Reports
 * acquisitions/s and the server's scripts per acquisition (EVAL, EVALSHA and FCALL calls in
 * {@code INFO commandstats}, before and after the run). Before directed wake-ups a release
 * published Redisson's "0" to every subscribed client and one waiter of each attempted, so
 * scripts per acquisition grew with the clients (25.8 with 32); with them a release wakes one
 * waiting relock client. Mutual exclusion is checked (no overlap). The mixed fleet with them on
 * and off: {@link MixedFleetProbe} with {@code -Drelock.directedWakes=off} and without.
 *
 * <p>Measured 2026-11-28 (one 3-second run each, 2 loaded cores, Redis 7): directed / broadcast /
 * Redisson, acquisitions/s (scripts per acquisition): 1 client 10,590 (2.0) / 13,974 (2.0) /
 * 1,111 (2.0); 8 clients 1,929 (3.6) / 2,663 (6.4) / 520 (7.3); 32 clients 1,086 (6.9) / 713
 * (29.5) / 147 (30.5); 64 clients 453 (11.5) / 294 (62.4) / 99 (63.0). What was left above 3 scripts
 * per acquisition was releases that still published "0" (about 6 % of them with 32 clients): a
 * client between its two SUBSCRIBEs or UNSUBSCRIBEs counted as a foreign subscriber.
 *
 * <p>Since a waiting entry lingers 100 ms after its last waiter ({@code -Drelock.wakeLinger},
 * Waiters), a client contending again keeps its subscriptions. Measured 2026-11-28, 3-second runs,
 * load average 7 to 13 (a full build running), {@code -Drelock.wakeLinger=0} and the default
 * alternated twice: directed, 32 clients, 6.2 and 6.4 scripts per acquisition without lingering,
 * 3.0 and 3.0 with it (8 clients 3.8/3.7 and 3.0/3.0); acquisitions/s too noisy under that load to
 * rank (32 directed 1,019 and 1,396 without, 551 and 1,777 with; 8 broadcast in the same runs
 * 1,434, 2,515, 2,059, 2,428). Once more after merging main (load 9 to 13): with / without
 * lingering, 32 directed 1,285 (3.0) / 1,202 (6.1), 8 broadcast 1,997 / 2,359. So the scripts
 * halve, but 32 directed clients still reach only about 55 to 70 % of 8 broadcast ones: each
 * acquisition waits for the release's message to reach the woken client and for its attempt's
 * round trip, one client at a time.
 *
 * <p>Again 2026-11-28 after the lingering fixes (a lingering entry keeps a "0", its expiry sends the
 * leave script), three runs, load average 10 to 22 (other builds): 32 clients 3.0 scripts per
 * acquisition directed in every run (broadcast 28.9 to 29.7, Redisson 28.8 to 30.0; 64 clients
 * 3.0 against 58.6 to 61.1 and 57.1 to 62.5); acquisitions/s, 32 directed against 8 broadcast in
 * the same run: 472 / 1,409, 735 / 636, 381 / 2,131 (Redisson at 32: 181, 258, 161). So the
 * scripts meet issue 37's bound, the throughput does not reliably: every grant still waits for
 * one message hop, the woken thread's unpark and its attempt's round trip while the lock is free,
 * where 8 broadcast clients have 8 attempts already on their way. What would close it: the release
 * granting the lock to the oldest registered waiter in its own script (register the waiter's owner
 * field and lease, not the client id; the message then says "you hold it"), which takes the
 * attempt's round trip and the free-lock gap out of every acquisition.
 *
 * <p>What it was: every waiting client read every wake-up, published on the shared wake channel,
 * and a reader thread woke in each. Since a release names the woken client on its own channel
 * (relock__wake:{N}:&lt;clientId&gt;, 2026-11-28), the curve is flat: BenchmarkReport scenario (n),
 * which runs this probe's loop, 3 rounds: 32 directed clients 3,976 acquisitions/s (3.0 scripts
 * per acquisition), 64 clients 4,015, against 3,237 for 8 broadcast clients (docs/guide/performance.md).
 * Directed wake-ups are on by default now; the broadcast mode runs with {@code -Drelock.directedWakes=off}.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" io.github.relock.benchmarks.ManyClientsProbe 3 1,8,32
 * }</pre>
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class ManyClientsProbe {
    /** The contenders, in the order each client count runs them. */
    static final List<String> MODES = List.of("relock-jedis directed", "relock-jedis broadcast", "redisson");

    private ManyClientsProbe() {
    }

    /**
     * @param args {@code seconds [counts]}: each run's length, and the client counts (comma-separated;
     *     default 1,2,4,8,16,32,64)
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        String counts = args.length > 1 ? args[1] : "1,2,4,8,16,32,64";
        System.out.printf("| clients | contender | acquisitions/s | scripts per acquisition |%n|---:|---|---:|---:|%n");
        try (RedisServer server = RedisServer.startEmbedded(); RespClient admin = server.admin()) {
            for (String c : counts.split(",")) {
                int clients = Integer.parseInt(c.strip());
                for (String mode : MODES) {
                    double[] m = run(server, admin, mode, clients, seconds, "bench:many:" + clients + ":" + mode.replace(' ', '-'));
                    System.out.printf(Locale.ROOT, "| %d | %s | %,.0f | %.1f |%n", clients, mode, m[0], m[1]);
                }
            }
        }
    }

    /**
     * One measured run: {@code clients} clients of {@code mode}, one thread each, loop on lock
     * {@code name} for {@code seconds} after half a second of warm-up.
     *
     * @return {acquisitions/s, server scripts per acquisition}
     * @throws IllegalStateException when two threads were inside the lock at once
     */
    static double[] run(RedisServer server, RespClient admin, String mode, int clients, int seconds, String name)
            throws Exception {
        String previous = System.getProperty("relock.directedWakes");
        System.setProperty("relock.directedWakes", mode.endsWith("broadcast") ? "off" : "on");
        List<LockSource> sources = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicLong acquisitions = new AtomicLong();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                sources.add(mode.equals("redisson")
                        ? RedissonSource.open(server.host(), server.port(), LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT)
                        : RelockSource.onJedis(server.host(), server.port(), LockOptions.defaults()));
            }
            for (LockSource s : sources) {
                Lock lock = s.lock(name);
                Thread t = new Thread(() -> {
                    while (!stop.get()) {
                        lock.lock();
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            if (measuring.get()) {
                                acquisitions.incrementAndGet();
                            }
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                }, "client-" + threads.size());
                threads.add(t);
            }
            threads.forEach(Thread::start);
            Thread.sleep(500); // warm-up: subscriptions, scripts loaded, JIT
            long scriptsBefore = scripts(admin);
            long start = System.nanoTime();
            measuring.set(true);
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            measuring.set(false);
            long elapsed = System.nanoTime() - start;
            long scripts = scripts(admin) - scriptsBefore;
            stop.set(true);
            for (Thread t : threads) {
                t.join(TimeUnit.MINUTES.toMillis(2));
            }
            long n = acquisitions.get();
            if (overlaps.get() != 0) {
                throw new IllegalStateException("mutual exclusion broken: " + overlaps.get() + " overlaps");
            }
            return new double[] {n / (elapsed / 1e9), (double) scripts / Math.max(1, n)};
        } finally {
            for (LockSource s : sources) {
                s.close();
            }
            if (previous == null) {
                System.clearProperty("relock.directedWakes");
            } else {
                System.setProperty("relock.directedWakes", previous);
            }
        }
    }

    /** @return the server's script calls so far: EVAL, EVALSHA, FCALL (and their read-only forms) */
    static long scripts(RespClient admin) {
        long calls = 0;
        for (String line : String.valueOf(admin.call("INFO", "commandstats")).split("\r?\n")) {
            if (line.startsWith("cmdstat_eval") || line.startsWith("cmdstat_fcall")) {
                int at = line.indexOf("calls=");
                int end = line.indexOf(',', at);
                calls += Long.parseLong(line.substring(at + "calls=".length(), end));
            }
        }
        return calls;
    }
}
