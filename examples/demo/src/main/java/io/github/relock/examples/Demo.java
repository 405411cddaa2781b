package io.github.relock.examples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Function;
import redis.clients.jedis.RedisClient;

/**
 * The mixed-fleet demo: relock over Jedis, relock over Lettuce and Redisson, each with
 * {@code workers} threads, contend for one reentrant lock, then one fair lock, then one read-write
 * lock, doing a non-atomic read-modify-write of a shared counter inside it (on the read-write
 * lock, about a third of each client's workers write so, the others only read, under the read
 * lock). A line per second shows progress;
 * a summary per lock checks the invariants.
 *
 * <p>Thread-safety: one run per instance, on the caller's thread.
 */
final class Demo {
    static final String REENTRANT_LOCK = "relock-demo:reentrant";
    static final String FAIR_LOCK = "relock-demo:fair";
    static final String READ_WRITE_LOCK = "relock-demo:read-write";
    static final List<String> ALL_CLIENTS = List.of("jedis", "lettuce", "redisson");

    /**
     * @param seconds the whole run, split evenly between the reentrant, the fair and the read-write lock
     * @param workers threads per client
     * @param clients which clients take part, from {@link #ALL_CLIENTS}
     */
    record Options(int seconds, int workers, List<String> clients) {
    }

    private final Options options;
    private final RedisTarget target;
    private final PrintStream out;
    private final Function<String, DemoClient> opener;
    private RedisClient admin; // for the progress line and the counter check, outside the fleet

    Demo(Options options, RedisTarget target, PrintStream out) {
        this.options = options;
        this.target = target;
        this.out = out;
        this.opener = this::open;
    }

    /** For the self-tests: a fleet of other clients (e.g. locks that do not exclude each other). */
    Demo(Options options, RedisTarget target, PrintStream out, Function<String, DemoClient> opener) {
        this.options = options;
        this.target = target;
        this.out = out;
        this.opener = opener;
    }

    /**
     * @return {@link Main#EXIT_OK} when every invariant holds, else {@link Main#EXIT_FAILED}
     * @throws CliException (exit 3) when Redis cannot be reached
     */
    int run() throws InterruptedException {
        List<DemoClient> fleet = new ArrayList<>();
        try (RedisClient admin = target.jedis()) {
            this.admin = admin;
            target.requireReachable(admin);
            for (String id : options.clients()) {
                fleet.add(opener.apply(id));
            }
            out.println("fleet: " + String.join(", ", fleet.stream().map(DemoClient::displayName).toList()) + "; "
                    + options.workers() + " worker thread(s) each; inside the lock: GET counter, re-enter, think 1 ms, SET counter+1");
            out.println("watch a lock while it runs: java -jar examples/demo/target/relock-examples.jar inspect "
                    + REENTRANT_LOCK + " --url " + target.redacted());

            long phaseMs = options.seconds() * 1000L / 3;
            List<String> names = fleet.stream().map(DemoClient::displayName).toList();
            boolean ok = runPhase(new Phase("reentrant", REENTRANT_LOCK, false, names, admin), fleet, phaseMs,
                    DemoClient::reentrantLock);
            ok &= runPhase(new Phase("fair", FAIR_LOCK, true, names, admin), fleet, phaseMs, DemoClient::fairLock);
            ok &= runPhase(Phase.readWrite("read-write", READ_WRITE_LOCK, names, admin), fleet, phaseMs, null);
            out.println();
            out.println(ok ? "RESULT: ok, every invariant held" : "RESULT: FAILED, see the checks marked FAIL above");
            return ok ? Main.EXIT_OK : Main.EXIT_FAILED;
        } finally {
            for (DemoClient c : fleet) {
                try {
                    c.close();
                } catch (RuntimeException e) {
                    out.println("note: closing " + c.displayName() + " failed: " + RedisTarget.rootMessage(e));
                }
            }
        }
    }

    private DemoClient open(String id) {
        return switch (id) {
            case "jedis" -> RelockDemoClient.overJedis(target);
            case "lettuce" -> RelockDemoClient.overLettuce(target);
            case "redisson" -> new RedissonDemoClient(target);
            default -> throw CliException.usage("unknown client '" + id + "'");
        };
    }

    private interface LockOf {
        Lock get(DemoClient client, String name);
    }

    /**
     * @param workers threads per client
     * @return how many of them write on the read-write lock: about a third, at least one (1 of 2,
     *     1 of 3, 2 of 6); the others read
     */
    static int writersOf(int workers) {
        return (int) Math.max(1, Math.round(workers / 3.0));
    }

    /** The phase's worker {@code i} (from 1) of client {@code c}: on a read-write lock, the first writers write. */
    private Worker worker(DemoClient c, int i, Phase phase, LockOf lockOf) {
        if (!phase.readWrite) {
            return new Worker(c.id() + "-" + i, c, lockOf.get(c, phase.lockName), phase);
        }
        boolean reader = i > writersOf(options.workers());
        ReadWriteLock rw = c.readWriteLock(phase.lockName);
        return new Worker(c.id() + "-" + i + (reader ? "r" : "w"), c, reader ? rw.readLock() : rw.writeLock(), phase,
                reader);
    }

    private boolean runPhase(Phase phase, List<DemoClient> fleet, long durationMs, LockOf lockOf)
            throws InterruptedException {
        out.println();
        out.println("== " + phase.title + " lock '" + phase.lockName + "' for "
                + String.format(Locale.ROOT, "%.1f s", durationMs / 1000.0));
        phase.reset();
        List<Worker> workers = new ArrayList<>();
        for (DemoClient c : fleet) {
            for (int i = 1; i <= options.workers(); i++) {
                workers.add(worker(c, i, phase, lockOf));
            }
        }
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (Worker w : workers) {
            Thread t = new Thread(w, "demo-" + phase.title + "-" + w.label());
            t.setDaemon(true); // never keep the JVM alive after the summary
            threads.add(t);
            t.start();
        }
        long end = start + TimeUnit.MILLISECONDS.toNanos(durationMs);
        for (int second = 1; !phase.stopped(); second++) {
            long next = Math.min(end, start + TimeUnit.SECONDS.toNanos(second));
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
            }
            out.println(progress(phase, (System.nanoTime() - start) / 1e9));
            if (System.nanoTime() - end >= 0) {
                phase.stop();
            }
        }
        long joinDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Worker.MAX_WAIT_MS + 5_000);
        for (int i = 0; i < threads.size(); i++) {
            long left = joinDeadline - System.nanoTime();
            threads.get(i).join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            if (threads.get(i).isAlive()) {
                phase.errors.increment();
                phase.problem(workers.get(i).label() + " did not finish within " + (Worker.MAX_WAIT_MS + 5_000)
                        + " ms of the end");
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        boolean ok = summary(phase, seconds);
        phase.cleanUp();
        return ok;
    }

    private String progress(Phase phase, double elapsed) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "[%4.1fs] %-9s", elapsed, phase.title));
        phase.acquisitions().forEach((c, n) -> sb.append("  ").append(c).append(' ').append(String.format(Locale.ROOT, "%5d", n)));
        sb.append("  | holder: ");
        try {
            var holders = admin.hkeys(phase.lockName);
            List<String> held = holders.stream().filter(f -> !f.equals("mode"))
                    .map(f -> f.endsWith(":write") ? phase.label(f.substring(0, f.length() - 6)) : phase.label(f)).toList();
            sb.append(held.isEmpty() ? "none" : String.join(",", held));
            if (phase.fair) {
                sb.append(", queue: ").append(admin.llen(LockKeys.fairQueue(phase.lockName)));
            }
        } catch (RuntimeException e) {
            sb.append("? (").append(RedisTarget.rootMessage(e)).append(')');
        }
        return sb.toString();
    }

    private boolean summary(Phase phase, double seconds) {
        out.println(String.format(Locale.ROOT, "-- %s lock summary (%.1f s)", phase.title, seconds));
        out.println(String.format(Locale.ROOT, "  %-16s %10s %10s %10s", "client",
                phase.readWrite ? "writes" : "acquired", "wait p50", "wait p99")
                + (phase.readWrite ? String.format(Locale.ROOT, " %10s %10s %10s", "reads", "read p50", "read p99") : ""));
        Map<String, Long> acq = phase.acquisitions();
        Map<String, Long> reads = phase.reads();
        acq.forEach((c, n) -> {
            WaitTimes w = phase.waits(c);
            WaitTimes r = phase.readWaits(c);
            out.println(String.format(Locale.ROOT, "  %-16s %10d %10s %10s", c, n, ms(w.percentileMs(50)), ms(w.percentileMs(99)))
                    + (phase.readWrite ? String.format(Locale.ROOT, " %10d %10s %10s", reads.get(c),
                            ms(r.percentileMs(50)), ms(r.percentileMs(99))) : ""));
        });
        long total = phase.total();
        out.println(String.format(Locale.ROOT, "  %-16s %10d", "all", total) + (phase.readWrite ? String.format(Locale.ROOT,
                " %10s %10s %10d", "", "", reads.values().stream().mapToLong(Long::longValue).sum()) : ""));
        String counterText = admin.get(phase.counterKey);
        long counter = counterText == null ? -1 : Long.parseLong(counterText);
        boolean ok = check(counter == total, "counter = " + counterText + (phase.readWrite ? ", write" : ",")
                + " acquisitions = " + total
                + (counter == total ? " (no lost update)" : " (" + (total - counter) + " lost updates)"));
        if (phase.readWrite) {
            ok &= check(phase.readerWriterOverlaps.sum() == 0, phase.readerWriterOverlaps.sum()
                    + " reader-writer overlaps (a reader inside while a writer was)");
            ok &= check(phase.overlaps.sum() == 0, phase.overlaps.sum() + " writer overlaps (two writers inside at once)");
        } else {
            ok &= check(phase.overlaps.sum() == 0, phase.overlaps.sum() + " overlaps (two workers inside the lock at once)");
        }
        ok &= check(phase.reentryFailures.sum() == 0, phase.reentryFailures.sum()
                + " failed re-entries (every holder took the lock a second time, hold count 2)");
        if (phase.fair) {
            ok &= check(phase.orderViolations.sum() == 0, phase.orderViolations.sum()
                    + " fair-lock order violations (" + phase.orderChecks.sum()
                    + " hand-overs checked: the next holder was the queue head at the release)");
            // Several workers and no release ever found a queued waiter: the lock does not use the queue.
            boolean contended = acq.size() * options.workers() >= 2 && total >= 50;
            if (contended && phase.orderChecks.sum() == 0) {
                ok &= check(false, "no release found a waiter in " + LockKeys.fairQueue(phase.lockName)
                        + ": does this fair lock use the fair queue?");
            }
        }
        List<String> idle = acq.entrySet().stream().filter(e -> e.getValue() == 0).map(Map.Entry::getKey).toList();
        if (phase.readWrite) {
            boolean readers = options.workers() > writersOf(options.workers());
            List<String> noReads = readers
                    ? reads.entrySet().stream().filter(e -> e.getValue() == 0).map(Map.Entry::getKey).toList()
                    : List.of();
            List<String> missing = new ArrayList<>();
            if (!idle.isEmpty()) {
                missing.add("never wrote: " + String.join(", ", idle));
            }
            if (!noReads.isEmpty()) {
                missing.add("never read: " + String.join(", ", noReads));
            }
            ok &= check(missing.isEmpty(), missing.isEmpty()
                    ? (readers ? "every client read and wrote" : "every client wrote (1 worker per client: no readers)")
                    : String.join("; ", missing));
            // a fact, not a check: on a loaded machine the readers may happen never to meet
            out.println("  note  at most " + phase.maxReaders() + " readers inside at once"
                    + (phase.maxReaders() > 1 ? " (reads are shared)" : ""));
        } else if (phase.fair || idle.isEmpty()) {
            ok &= check(idle.isEmpty(), idle.isEmpty() ? "every client acquired the lock"
                    : "never acquired the fair lock: " + String.join(", ", idle));
        } else {
            // a reentrant lock promises no turns: a starved client is allowed, though rare
            out.println("  note  never acquired the lock in this run: " + String.join(", ", idle));
        }
        ok &= check(phase.timeouts.sum() == 0 && phase.errors.sum() == 0, phase.timeouts.sum() + " timeouts, "
                + phase.errors.sum() + " errors");
        for (String p : phase.problems()) {
            out.println("        " + p);
        }
        if (phase.readWrite) {
            out.println("  (readers may join while a writer waits, as in Redisson, so writers get fewer turns)");
        } else if (!phase.fair) {
            out.println("  (not fair by design: whoever asks right after a release wins, so the counts differ; the fair lock takes turns)");
        }
        return ok;
    }

    private boolean check(boolean ok, String text) {
        out.println((ok ? "  ok    " : "  FAIL  ") + text);
        return ok;
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f ms", v);
    }

    /** @return the clients named in a {@code --clients} value, in the fleet's order */
    static List<String> parseClients(String csv) {
        List<String> out = new ArrayList<>();
        for (String part : csv.split(",")) {
            String id = part.trim().toLowerCase(Locale.ROOT);
            if (id.isEmpty()) {
                continue;
            }
            if (!ALL_CLIENTS.contains(id)) {
                throw CliException.usage("demo: --clients takes a list of " + String.join(",", ALL_CLIENTS)
                        + ", was '" + csv + "'");
            }
            if (!out.contains(id)) {
                out.add(id);
            }
        }
        if (out.isEmpty()) {
            throw CliException.usage("demo: --clients names no client");
        }
        return out;
    }
}
