package io.github.relock.tck;

import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches locks from the Redis side while a soak runs and records every stretch in which a lock
 * was free while someone waited for it for longer than a bound: the liveness property "no waiter
 * sleeps while the lock is free".
 *
 * <p>Each watched lock names its keys (all must be absent for the lock to be free: a multi-lock's
 * members, say), optionally its fair queue and a channel, and carries a counter of the callers
 * now inside an acquire call, which the soak's workers keep. A sample is "free and waited for"
 * when every key is absent and someone waits: a worker inside an acquire call, a fair queue that
 * is not empty, or a subscriber on the channel (of any client: Redisson's or relock's). The
 * monitor samples every {@link #SAMPLE_EVERY}; a stretch of such samples longer than the bound is
 * a violation. A gap between two samples longer than {@link #MAX_SAMPLE_GAP} (the monitor's own
 * thread was starved, say by a collection) ends a stretch instead of lengthening it, so a slow
 * machine cannot fake a violation.
 *
 * <p>The waiters' threads can be starved too while the monitor's is not: on a loaded machine (other
 * builds beside the kit) a runnable thread may wait hundreds of milliseconds for a core. So a
 * second thread measures the machine's scheduling delay the whole time (how late a 1 ms park
 * returns), the sampling thread measures Redis's round trip (its first read of each sample, over
 * 5 ms when the machine or Redis is slow), and a stretch violates the bound only if it is longer
 * than the bound plus {@link #HOPS} times the worst delay measured during it: a wake-up passes
 * through that many threads and round trips (the releaser's or leaver's script, the pub/sub
 * connection's thread, the waiter's, its next attempt). On an idle machine both delays are about a
 * millisecond and the bound stands as given.
 *
 * <pre>{@code
 * LivenessMonitor monitor = new LivenessMonitor(kit.topology(), Duration.ofMillis(500));
 * LivenessMonitor.Watched w = monitor.watch("orders", List.of("orders"), null, "redisson_lock__channel:{orders}");
 * monitor.start();
 * ... workers call w.enter() before lock() and w.exit() after it returns ...
 * monitor.stop();
 * assertEquals(List.of(), monitor.violations());
 * }</pre>
 *
 * <p>Thread-safety: {@link Watched}'s counters are safe for use by several threads; start and stop
 * from one thread.
 */
public final class LivenessMonitor implements AutoCloseable {
    /** How often each lock is sampled. */
    public static final Duration SAMPLE_EVERY = Duration.ofMillis(5);
    /** A longer pause between two samples ends a stretch rather than lengthening it. */
    public static final Duration MAX_SAMPLE_GAP = Duration.ofMillis(150);
    /** Thread hand-offs in one wake-up, each of which may wait for a core as long as the worst delay measured. */
    public static final int HOPS = 4;
    /** Scheduling delays shorter than this are not recorded (an idle machine's noise). */
    private static final long DELAY_NOISE_NANOS = Duration.ofMillis(5).toNanos();

    /** One lock under watch. */
    public static final class Watched {
        final String name;
        final List<String> keys;
        final String queue;
        final String channel;
        /** A semaphore: "free" means its key holds a positive count of permits, not that it is absent. */
        boolean permits;
        final AtomicInteger waiting = new AtomicInteger();
        final AtomicLong grants = new AtomicLong();
        final Map<Thread, Long> waiters = new ConcurrentHashMap<>();
        long stretchStart; // monitor thread only
        String stretchThreads; // monitor thread only: the threads when the open stretch passed its bound
        long lastSample;
        int stretchSamples;
        String stretchWhy;
        long longestNanos;
        /** The stretch now going on, in ns (0: none), for callers to wait on. */
        volatile long openStretchNanos;
        /** Whether the stretch now going on is already long enough to be a violation. */
        volatile boolean openStretchViolates;

        Watched(String name, List<String> keys, String queue, String channel) {
            this.name = name;
            this.keys = List.copyOf(keys);
            this.queue = queue;
            this.channel = channel;
        }

        /** The calling thread is about to wait for the lock (a worker calls it before acquiring). */
        public void enter() {
            waiters.put(Thread.currentThread(), System.nanoTime());
            waiting.incrementAndGet();
        }

        /** A waiter of an asynchronous acquisition (no thread of its own) starts waiting. */
        public void enterAsync() {
            waiting.incrementAndGet();
        }

        /**
         * The calling thread's acquire call returned.
         *
         * @param acquired whether it got the lock (counted as a grant)
         */
        public void exit(boolean acquired) {
            waiters.remove(Thread.currentThread());
            exitAsync(acquired);
        }

        /** @param acquired whether an asynchronous acquisition got the lock */
        public void exitAsync(boolean acquired) {
            if (acquired) {
                grants.incrementAndGet();
            }
            waiting.decrementAndGet();
        }

        /** @return the grants counted so far */
        public long grants() {
            return grants.get();
        }

        /** @return how long the lock has been free while waited for right now, in ms (0: it is not) */
        public long freeWhileWaitedNowMs() {
            return openStretchNanos / 1_000_000;
        }

        /**
         * @return whether the lock has now been free while waited for long enough to be a violation:
         *     longer than the bound plus the allowance for the scheduling delay measured meanwhile
         *     (a fixed length is not one on a loaded machine), for callers to wait on
         */
        public boolean violatingNow() {
            return openStretchViolates;
        }

        /** @return the longest stretch seen free while waited for, in ms (violating or not) */
        public long longestFreeWhileWaitedMs() {
            return longestNanos / 1_000_000;
        }
    }

    private final RedisTopology topology;
    private final long boundNanos;
    private final List<Watched> watched = new CopyOnWriteArrayList<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private volatile boolean running;
    private Thread thread;
    private Thread delayMeter;
    /** Scheduling delays over the noise floor: {when it ended (nanoTime), how long}, oldest first. */
    private final ConcurrentLinkedDeque<long[]> delays = new ConcurrentLinkedDeque<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    /**
     * @param topology where the locks live
     * @param bound the longest a lock may be free while waited for
     */
    public LivenessMonitor(RedisTopology topology, Duration bound) {
        this.topology = topology;
        this.boundNanos = bound.toNanos();
    }

    /**
     * @param name a label for messages
     * @param keys the keys that must all be absent for the lock to be free
     * @param queue the fair queue's key, or null
     * @param channel a channel whose subscribers count as waiters, or null
     * @return the watched lock, whose counters the workers keep
     */
    public Watched watch(String name, List<String> keys, String queue, String channel) {
        Watched w = new Watched(name, keys, queue, channel);
        watched.add(w);
        return w;
    }

    /**
     * Watches a semaphore: it is "free" while its key holds at least one available permit (the
     * liveness property then reads "no waiter sleeps while permits are available").
     *
     * @param name a label for messages
     * @param key the key holding the number of available permits
     * @param channel a channel whose subscribers count as waiters, or null
     * @return the watched semaphore
     */
    public Watched watchPermits(String name, String key, String channel) {
        Watched w = new Watched(name, List.of(key), null, channel);
        w.permits = true;
        watched.add(w);
        return w;
    }

    /** Starts sampling on a thread of its own. */
    public void start() {
        running = true;
        thread = new Thread(this::run, "tck-liveness-monitor");
        thread.setDaemon(true);
        thread.start();
        delayMeter = new Thread(this::measureDelays, "tck-liveness-scheduling-delay");
        delayMeter.setDaemon(true);
        delayMeter.start();
    }

    /** Parks 1 ms at a time and records how much later than asked each park returned. */
    private void measureDelays() {
        long asked = Duration.ofMillis(1).toNanos();
        while (running) {
            long before = System.nanoTime();
            LockSupport.parkNanos(asked);
            long after = System.nanoTime();
            recordDelay(after, after - before - asked);
        }
    }

    /** Keeps a delay over the noise floor that ended at {@code at} (nanoTime), and forgets old ones. */
    private void recordDelay(long at, long late) {
        if (late > DELAY_NOISE_NANOS) {
            delays.add(new long[] {at, late});
        }
        while (!delays.isEmpty() && at - delays.peekFirst()[0] > Duration.ofMinutes(1).toNanos()) {
            delays.pollFirst(); // a stretch is judged when it ends: older delays no longer matter
        }
    }

    /** @return the worst scheduling delay that ended between {@code from} and {@code to} (nanoTime), or 0 */
    private long worstDelay(long from, long to) {
        long worst = 0;
        for (long[] d : delays) {
            if (d[0] - from >= 0 && to - d[0] >= 0) {
                worst = Math.max(worst, d[1]);
            }
        }
        return worst;
    }

    /** Stops sampling and waits for the sampling thread to end. */
    public void stop() {
        running = false;
        if (thread != null) {
            try {
                thread.join(10_000);
                if (delayMeter != null) {
                    delayMeter.join(10_000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** @return whether a violation was seen or is going on now, on any watched lock */
    public boolean violationSeen() {
        return !violations.isEmpty() || !errors.isEmpty() || watched.stream().anyMatch(Watched::violatingNow);
    }

    /** @return one line per violation: which lock, how long it was free while waited for, and who waited */
    public List<String> violations() {
        List<String> all = new ArrayList<>(violations);
        errors.forEach(e -> all.add("the monitor failed: " + e));
        return all;
    }

    private void run() {
        Map<String, RespClient> conns = new ConcurrentHashMap<>();
        try {
            while (running) {
                for (Watched w : watched) {
                    sample(w, conns);
                }
                try {
                    Thread.sleep(SAMPLE_EVERY.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
            for (Watched w : watched) {
                endStretch(w); // a stretch still open at the end counts too
            }
        } catch (RuntimeException e) {
            errors.add(e);
        } finally {
            conns.values().forEach(RespClient::close);
        }
    }

    private RespClient conn(Map<String, RespClient> conns, String key) {
        return conns.computeIfAbsent(key, topology::adminFor);
    }

    private void sample(Watched w, Map<String, RespClient> conns) {
        long now = System.nanoTime();
        if (w.stretchStart != 0 && now - w.lastSample > MAX_SAMPLE_GAP.toNanos()) {
            endStretch(w); // the monitor was starved: what happened meanwhile is unknown
        }
        boolean free = true;
        boolean timed = false;
        for (String key : w.keys) {
            long sent = System.nanoTime();
            if (w.permits) {
                Object v = conn(conns, key).call("GET", key);
                free = v != null && Long.parseLong(String.valueOf(v)) > 0;
            } else if ((Long) conn(conns, key).call("EXISTS", key) != 0) {
                free = false;
            }
            if (!timed) {
                timed = true;
                recordDelay(System.nanoTime(), System.nanoTime() - sent); // a round trip to Redis, now
            }
            if (!free) {
                break;
            }
        }
        String why = null;
        if (free) {
            int waiting = w.waiting.get();
            long queued = w.queue == null ? 0 : (Long) conn(conns, w.queue).call("LLEN", w.queue);
            long subscribed = 0;
            if (w.channel != null) {
                List<?> numsub = (List<?>) conn(conns, w.keys.get(0)).call("PUBSUB", "NUMSUB", w.channel);
                subscribed = (Long) numsub.get(1);
            }
            if (waiting > 0 || queued > 0 || subscribed > 0) {
                why = waiting + " caller(s) inside an acquire, " + queued + " queued, " + subscribed + " subscribed";
            }
        }
        long after = System.nanoTime();
        if (why == null) {
            endStretch(w);
        } else {
            if (w.stretchStart == 0) {
                w.stretchStart = now;
                w.stretchSamples = 0;
            }
            w.stretchSamples++;
            w.stretchWhy = why;
            w.openStretchNanos = after - w.stretchStart;
            w.openStretchViolates = violates(w, w.stretchStart, after);
            if (w.openStretchViolates && w.stretchThreads == null) {
                w.stretchThreads = threadsNow(); // while it is still asleep: where the waiters and the drivers are
            }
        }
        w.lastSample = after;
    }

    /** @return the top of {@code t}'s stack below the JDK's own frames, for messages */
    static String topOf(Thread t) {
        return Arrays.stream(t.getStackTrace()).dropWhile(f -> f.getClassName().startsWith("java.")
                        || f.getClassName().startsWith("jdk.")).limit(6).map(StackTraceElement::toString)
                .collect(java.util.stream.Collectors.joining(" < ", "[", "]"));
    }

    /**
     * @return the stacks of the threads that can keep a waiter asleep (the test's workers, relock's,
     *     the drivers' and the JDK's shared pools), idle pool threads left out
     */
    static String threadsNow() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            String name = e.getKey().getName();
            if (!(name.startsWith("tck-") || name.startsWith("relock") || name.startsWith("lettuce")
                    || name.startsWith("jedis") || name.startsWith("ForkJoinPool") || name.startsWith("pool-")
                    || name.startsWith("CompletableFuture"))) {
                continue;
            }
            StackTraceElement[] stack = e.getValue();
            String top = stack.length == 0 ? "" : stack[0].getClassName() + "." + stack[0].getMethodName();
            if (top.endsWith("EPoll.wait") || (stack.length > 0 && Arrays.stream(stack).limit(12).anyMatch(f ->
                    f.getMethodName().equals("takeTask") || f.getMethodName().equals("getTask")
                            || f.getMethodName().equals("awaitWork")))) {
                continue; // an idle event loop or pool thread
            }
            b.append("\n    ").append(name).append(' ').append(e.getKey().getState()).append(": ")
                    .append(Arrays.stream(stack).limit(14).map(StackTraceElement::toString)
                            .collect(java.util.stream.Collectors.joining(" < ")));
        }
        return b.toString();
    }

    /** @return whether a stretch of {@code w} from {@code start} to {@code last} (nanoTime) violates the bound */
    private boolean violates(Watched w, long start, long last) {
        return last - start > boundNanos + HOPS * worstDelay(start, last) && w.stretchSamples >= 3;
    }

    private void endStretch(Watched w) {
        w.openStretchNanos = 0;
        w.openStretchViolates = false;
        if (w.stretchStart == 0) {
            return;
        }
        long length = w.lastSample - w.stretchStart;
        w.longestNanos = Math.max(w.longestNanos, length);
        long allowance = HOPS * worstDelay(w.stretchStart, w.lastSample);
        if (violates(w, w.stretchStart, w.lastSample)) {
            StringBuilder who = new StringBuilder();
            long now = System.nanoTime();
            w.waiters.forEach((t, since) -> who.append("\n    ").append(t.getName()).append(" waiting ")
                    .append((now - since) / 1_000_000).append(" ms, at ")
                    .append(topOf(t)));
            violations.add("lock '" + w.name + "' was free for " + length / 1_000_000 + " ms (" + w.stretchSamples
                    + " samples) while waited for (" + w.stretchWhy + "); bound " + boundNanos / 1_000_000 + " ms"
                    + (allowance > 0 ? " + " + allowance / 1_000_000 + " ms for the machine's scheduling and round-trip delays" : "")
                    + who + (w.stretchThreads == null ? "" : "\n  threads when the bound was passed:" + w.stretchThreads));
        }
        w.stretchStart = 0;
        w.stretchThreads = null;
    }
}
