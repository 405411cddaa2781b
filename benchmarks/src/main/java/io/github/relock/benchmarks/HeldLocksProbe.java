package io.github.relock.benchmarks;

import io.github.relock.tck.RespClient;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
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
 *   <li><b>Redis commands per renewal period</b>: over a window of whole renewal periods, the
 *       {@code INFO commandstats} delta (every command Redis ran, including those run inside Lua
 *       scripts) and, from {@code MONITOR}, the commands clients sent (top level: round trips),
 *       per period.</li>
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
     * @param args {@code host port contender locks watchdogMs periods}
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
            for (int i = 0; i < count; i++) {
                source.lock(prefix + i).lock(); // the lock object is dropped: only the client keeps state
            }
            double acquireSeconds = (System.nanoTime() - started) / 1e9;
            Thread.sleep(periodMs + periodMs / 2); // at least one renewal of every hold has run
            long after = heapAfterGc();
            double heapPerLock = (after - before) / (double) count;

            Monitor monitor = new Monitor(host, port);
            monitor.start();
            admin.call("ECHO", START);
            Map<String, Long> statsBefore = commandStats(admin);
            long windowStart = System.nanoTime();
            Thread.sleep(periods * periodMs);
            Map<String, Long> statsAfter = commandStats(admin);
            double windowPeriods = (System.nanoTime() - windowStart) / 1e6 / periodMs;
            admin.call("ECHO", END);
            Map<String, Long> sent = monitor.awaitEnd();

            Map<String, Long> ran = new TreeMap<>();
            statsAfter.forEach((cmd, calls) -> {
                long d = calls - statsBefore.getOrDefault(cmd, 0L);
                if (d > 0 && !cmd.equals("info") && !cmd.equals("echo")) {
                    ran.put(cmd, d);
                }
            });
            sent.remove("info");
            sent.remove("echo");
            long ranTotal = ran.values().stream().mapToLong(Long::longValue).sum();
            long sentTotal = sent.values().stream().mapToLong(Long::longValue).sum();

            int lost = 0;
            for (int i = 0; i < count; i++) {
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
                    + " windowPeriods=" + String.format(Locale.ROOT, "%.2f", windowPeriods)
                    + " sentPerPeriod=" + String.format(Locale.ROOT, "%.1f", sentTotal / windowPeriods)
                    + " ranPerPeriod=" + String.format(Locale.ROOT, "%.1f", ranTotal / windowPeriods)
                    + " sent=" + format(sent)
                    + " ran=" + format(ran));
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
     * Counts, by command name, the commands clients send between the two ECHO markers. MONITOR
     * shows the commands a script runs as coming from {@code lua}; those are not counted.
     */
    private static final class Monitor extends Thread {
        private final RespClient conn;
        private final Map<String, Long> sent = new TreeMap<>();
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
                    String source = line.substring(line.indexOf(' ', open) + 1, close);
                    if (source.equals("lua")) {
                        continue;
                    }
                    int q1 = line.indexOf('"', close);
                    int q2 = line.indexOf('"', q1 + 1);
                    String cmd = line.substring(q1 + 1, q2).toLowerCase(Locale.ROOT);
                    if (cmd.equals("echo") && line.contains(START)) {
                        counting = true;
                    } else if (cmd.equals("echo") && line.contains(END)) {
                        break;
                    } else if (counting) {
                        sent.merge(cmd, 1L, Long::sum);
                    }
                }
            } catch (Throwable t) {
                failure = t;
            } finally {
                conn.close();
                ended.countDown();
            }
        }

        Map<String, Long> awaitEnd() throws InterruptedException {
            if (!ended.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("MONITOR did not see the end marker within 60 s");
            }
            if (failure != null) {
                throw new IllegalStateException("MONITOR failed", failure);
            }
            return sent;
        }
    }
}
