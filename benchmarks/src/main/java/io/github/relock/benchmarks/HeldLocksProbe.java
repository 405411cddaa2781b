package io.github.relock.benchmarks;

import io.github.relock.tck.fixtures.RespClient;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Scenario (f), a one-shot measurement in a JVM of its own (so no other contender's threads or
 * heap are around): one thread takes {@code locks} watchdog locks and keeps them, then
 *
 * <ol>
 *   <li><b>client heap per held lock</b>: heap in use after a full GC with the locks held, minus
 *       the same before taking them (after a warm-up cycle), divided by the number of locks. The
 *       application keeps no reference to the lock objects, so this is what the client itself
 *       retains per hold (renewal registry, owner strings...).</li>
 *   <li><b>Redis commands per renewal period</b>: from {@code MONITOR}, over whole renewal rounds
 *       (see {@link Window}), the commands clients sent (round trips) and those scripts ran
 *       inside Redis, per period; the {@code INFO commandstats} delta over the same stretch of
 *       time (not aligned on rounds) is reported next to it as a cross-check.</li>
 * </ol>
 * Run by {@link BenchmarkReport} with {@code -XX:+UseSerialGC} (a full GC that leaves exactly the
 * live set); prints one line {@code RESULT key=value ...}.
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class HeldLocksProbe {
    private static final String START = "relock-bench-window-start";
    private static final String END = "relock-bench-window-end";

    private HeldLocksProbe() {
    }

    /**
     * @param args {@code host port contender locks watchdogMs periods}: {@code locks} held in all
     *     (one of them, the anchor, from before the warm-up), renewal every {@code watchdogMs / 3}
     * @throws Exception on any failure (the runner reports it)
     */
    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        Contender contender = Contender.of(args[2]);
        int count = Integer.parseInt(args[3]);
        long watchdogMs = Long.parseLong(args[4]);
        int periods = Integer.parseInt(args[5]);
        long periodMs = watchdogMs / 3;
        String prefix = "bench:" + contender.id() + ":held:";

        try (LockSource source = contender.open(host, port, Duration.ofMillis(watchdogMs));
             RespClient admin = new RespClient(host, port, 60_000)) {
            // Warm up (load classes, fill lazily built structures) while one watchdog lock stays
            // held throughout, so the set of renewed locks never goes from empty to non-empty
            // again: Redisson starts a new renewal loop on each such transition while the old
            // one's timer is still pending, which would multiply its renewals (see RESULTS.md).
            var anchor = source.lock(prefix + "anchor");
            anchor.lock();
            for (int i = 0; i < 200; i++) {
                var warm = source.lock(prefix + "warm-up");
                warm.lock();
                warm.unlock();
            }
            long before = heapAfterGc();
            long started = System.nanoTime();
            for (int i = 1; i < count; i++) { // with the anchor: count locks held
                source.lock(prefix + i).lock(); // the lock object is dropped: only the client keeps state
            }
            double acquireSeconds = (System.nanoTime() - started) / 1e9;
            Thread.sleep(periodMs + periodMs / 2); // at least one renewal of every hold has run
            long after = heapAfterGc();
            double heapPerLock = (after - before) / (double) (count - 1);

            Monitor monitor = new Monitor(host, port);
            monitor.start();
            admin.call("ECHO", START);
            Map<String, Long> statsBefore = commandStats(admin);
            long windowStart = System.nanoTime();
            Thread.sleep((periods + 1) * periodMs);
            Map<String, Long> statsAfter = commandStats(admin);
            double windowPeriods = (System.nanoTime() - windowStart) / 1e6 / periodMs;
            admin.call("ECHO", END);
            Window w = monitor.awaitEnd().aligned(periodMs);

            Map<String, Long> ran = new TreeMap<>();
            statsAfter.forEach((cmd, calls) -> {
                long d = calls - statsBefore.getOrDefault(cmd, 0L);
                if (d > 0 && !cmd.equals("info") && !cmd.equals("echo")) {
                    ran.put(cmd, d);
                }
            });

            int lost = 0;
            for (int i = 1; i < count; i++) {
                try {
                    source.lock(prefix + i).unlock();
                } catch (IllegalMonitorStateException expiredMeanwhile) {
                    lost++; // the renewal did not keep up: reported, so the figure is not trusted blindly
                }
            }
            anchor.unlock();
            System.out.println("RESULT contender=" + contender.id()
                    + " locks=" + count
                    + " lost=" + lost
                    + " acquireSeconds=" + String.format(Locale.ROOT, "%.2f", acquireSeconds)
                    + " heapPerLockBytes=" + String.format(Locale.ROOT, "%.0f", heapPerLock)
                    + " periodMs=" + periodMs
                    + " windowPeriods=" + String.format(Locale.ROOT, "%.2f", w.periods)
                    + " renewalRounds=" + w.rounds
                    + " sentPerPeriod=" + String.format(Locale.ROOT, "%.1f", w.sentTotal() / w.periods)
                    + " ranPerPeriod=" + String.format(Locale.ROOT, "%.1f", (w.sentTotal() + w.inScripts) / w.periods)
                    + " sent=" + format(w.sent)
                    + " commandstats=" + format(ran)
                    + " commandstatsPeriods=" + String.format(Locale.ROOT, "%.2f", windowPeriods));
        }
        System.exit(0); // some clients leave non-daemon threads behind
    }

    private static String format(Map<String, Long> m) {
        return m.isEmpty() ? "-" : m.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(","));
    }

    private static long heapAfterGc() throws InterruptedException {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
            min = Math.min(min, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return min;
    }

    /** {@code INFO commandstats} as command name → calls. */
    static Map<String, Long> commandStats(RespClient admin) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : ((String) admin.call("INFO", "commandstats")).split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            int from = line.indexOf("calls=") + "calls=".length();
            int to = line.indexOf(',', from);
            calls.put(line.substring("cmdstat_".length(), colon), Long.parseLong(line.substring(from, to)));
        }
        return calls;
    }

    /**
     * The commands seen between the markers, aligned on renewal rounds: clients renew in bursts
     * (one round every period), so the count runs from the start of one burst to the start of
     * the last one seen, and covers whole rounds only, never a round cut by the window's edge.
     */
    static final class Window {
        final Map<String, Long> sent = new TreeMap<>();
        long inScripts;
        double periods;
        int rounds;

        long sentTotal() {
            return sent.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** One command MONITOR showed: Redis time in µs, whether a script ran it, its name. */
    private record Seen(long micros, boolean lua, String cmd) {
    }

    /** Everything MONITOR showed between the markers. */
    private static final class Recording {
        final List<Seen> all = new ArrayList<>();
        long startMicros;

        /** @param periodMs the renewal period: a gap of a quarter of it separates two rounds */
        Window aligned(long periodMs) {
            long gap = periodMs * 1000 / 4;
            List<Long> roundStarts = new ArrayList<>();
            long last = startMicros;
            for (Seen c : all) {
                if (!c.lua()) {
                    if (c.micros() - last >= gap) {
                        roundStarts.add(c.micros());
                    }
                    last = c.micros();
                }
            }
            System.err.println("renewal rounds start at (ms from the window's start): " + roundStarts.stream()
                    .map(t -> Long.toString((t - startMicros) / 1000)).collect(Collectors.joining(", ")));
            Window w = new Window();
            long from;
            long to;
            if (roundStarts.size() >= 2) {
                from = roundStarts.get(0);
                to = roundStarts.get(roundStarts.size() - 1);
                w.rounds = roundStarts.size() - 1;
            } else { // no bursts to align on (renewing continuously, or not at all): the whole window
                from = startMicros;
                to = all.isEmpty() ? startMicros : all.get(all.size() - 1).micros();
                w.rounds = -1;
            }
            w.periods = Math.max(1e-9, (to - from) / 1000.0 / periodMs);
            for (Seen c : all) {
                if (c.micros() >= from && c.micros() < to) {
                    if (c.lua()) {
                        w.inScripts++;
                    } else {
                        w.sent.merge(c.cmd(), 1L, Long::sum);
                    }
                }
            }
            return w;
        }
    }

    /**
     * Reads MONITOR between the two ECHO markers. MONITOR shows the commands a script runs as
     * coming from {@code lua}; they are kept apart from the commands clients sent. The probe's
     * own INFO calls are left out.
     */
    private static final class Monitor extends Thread {
        private final RespClient conn;
        private final Recording seen = new Recording();
        private final CountDownLatch ended = new CountDownLatch(1);
        private volatile Throwable failure;

        Monitor(String host, int port) {
            super("relock-bench-monitor");
            setDaemon(true);
            conn = new RespClient(host, port, 60_000);
            conn.call("MONITOR");
        }

        @Override
        public void run() {
            boolean counting = false;
            try {
                while (true) {
                    String line = (String) conn.readReply();
                    int open = line.indexOf('[');
                    int close = line.indexOf(']', open);
                    boolean lua = line.substring(line.indexOf(' ', open) + 1, close).equals("lua");
                    int q1 = line.indexOf('"', close);
                    int q2 = line.indexOf('"', q1 + 1);
                    String cmd = line.substring(q1 + 1, q2).toLowerCase(Locale.ROOT);
                    String time = line.substring(0, line.indexOf(' '));
                    int dot = time.indexOf('.');
                    long micros = Long.parseLong(time.substring(0, dot)) * 1_000_000 + Long.parseLong(time.substring(dot + 1));
                    if (!lua && cmd.equals("echo") && line.contains(START)) {
                        counting = true;
                        seen.startMicros = micros;
                    } else if (!lua && cmd.equals("echo") && line.contains(END)) {
                        break;
                    } else if (counting && !(!lua && cmd.equals("info"))) {
                        seen.all.add(new Seen(micros, lua, cmd));
                    }
                }
            } catch (Throwable t) {
                failure = t;
            } finally {
                conn.close();
                ended.countDown();
            }
        }

        Recording awaitEnd() throws InterruptedException {
            if (!ended.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("MONITOR did not see the end marker within 60 s");
            }
            if (failure != null) {
                throw new IllegalStateException("MONITOR failed", failure);
            }
            return seen;
        }
    }
}
