package io.github.relock.benchmarks;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.driver.lettuce.LettuceDriverProvider;
import io.github.relock.kotlin.RelockCoroutines;
import io.github.relock.reactor.ReactiveLock;
import io.github.relock.tck.fixtures.RedisServer;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import kotlin.Unit;
import kotlin.coroutines.EmptyCoroutineContext;
import kotlinx.coroutines.BuildersKt;
import kotlinx.coroutines.CoroutineScope;
import kotlinx.coroutines.CoroutineScopeKt;
import kotlinx.coroutines.CoroutineStart;
import kotlinx.coroutines.ExecutorCoroutineDispatcher;
import kotlinx.coroutines.ExecutorsKt;
import org.redisson.Redisson;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import reactor.core.publisher.Mono;

/**
 * Many non-blocking waiters on one lock: {@code --waiters} (1,000) callers each loop
 * acquire-release on the same lock for {@code --seconds} per window, and the probe reports the
 * acquisitions per second and the threads the run needed. Four contenders, one window each per
 * round, interleaved over {@code --rounds} rounds in one run against one embedded Redis (the VM's
 * loopback slows over a run, so ratios are taken within a round, then their median):
 *
 * <ul>
 *   <li>{@code relock-async}: relock's plain async lease API on Lettuce,
 *       {@code acquireAsync(wait, null)} then {@code unlockAsync(ownerId)}, chained on the futures;</li>
 *   <li>{@code relock-reactor}: {@code ReactiveLock.withLockMono} on the same driver, each waiter a
 *       {@code repeat}ed subscription;</li>
 *   <li>{@code relock-kotlin}: {@code withLease { }}, each waiter one coroutine per acquisition on
 *       a dispatcher of 2 threads (the cores) that the window creates and shuts down;</li>
 *   <li>{@code redisson-reactive}: Redisson 4.7.0's {@code RLockReactive}, {@code lock(threadId)}
 *       then {@code unlock(threadId)} with an id of its own per waiter, as it ships.</li>
 * </ul>
 * Each window opens its own client and closes it after. <b>Threads</b> is the most threads alive
 * at once during the window (sampled every 50 ms) that were not alive just before the client was
 * opened: the client's I/O and timer threads, plus the coroutine dispatcher's. No waiter has a
 * thread of its own in any contender, so the figure stays far below the waiter count.
 *
 * <p>Run (about 2 minutes with the defaults):
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.github.relock.benchmarks.NonBlockingWaitersProbe [--waiters=1000] [--seconds=5] [--rounds=3]
 * </pre>
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class NonBlockingWaitersProbe {
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final Duration WARM_UP = Duration.ofSeconds(2);
    private static final Duration DRAIN = Duration.ofSeconds(120);
    private static final List<String> CONTENDERS = List.of("relock-async", "relock-reactor", "relock-kotlin", "redisson-reactive");

    private NonBlockingWaitersProbe() {
    }

    /** One window's figures. */
    private record Window(double perSecond, int threads, long failures) {
    }

    /** A running contender: its waiters loop until {@link #stop()}; then they drain. */
    private interface Run extends AutoCloseable {
        /** Stops the waiters after their current acquisition and waits for them all to finish. */
        void stop() throws InterruptedException;

        @Override
        void close();
    }

    /**
     * @param args {@code --waiters=N --seconds=S --rounds=R}
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        int waiters = intArg(args, "waiters", 1000);
        int seconds = intArg(args, "seconds", 5);
        int rounds = intArg(args, "rounds", 3);
        RedisServer redis = RedisServer.startEmbedded();
        Map<String, List<Window>> results = new LinkedHashMap<>();
        CONTENDERS.forEach(c -> results.put(c, new ArrayList<>()));
        try {
            for (int round = 1; round <= rounds; round++) {
                for (String contender : CONTENDERS) {
                    Window w = window(contender, redis, waiters, Duration.ofSeconds(seconds), "bench:nbw:" + round + ":" + contender);
                    results.get(contender).add(w);
                    System.err.printf(Locale.ROOT, "round %d %-18s %,10.0f acq/s  %3d threads  %d failures%n",
                            round, contender, w.perSecond, w.threads, w.failures);
                }
            }
        } finally {
            redis.stop();
        }
        System.out.println(table(results, waiters, seconds, rounds));
    }

    private static Window window(String contender, RedisServer redis, int waiters, Duration measure, String lockName)
            throws Exception {
        LongAdder acquired = new LongAdder();
        LongAdder failures = new LongAdder();
        Set<Long> before = liveThreadIds();
        AtomicInteger mostThreads = new AtomicInteger();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                Set<Long> now = liveThreadIds();
                now.removeAll(before);
                mostThreads.accumulateAndGet(now.size(), Math::max);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "probe-thread-sampler");
        before.add(sampler.getId()); // started after the snapshot: not the contender's
        try (Run run = start(contender, redis, waiters, lockName, acquired, failures)) {
            sampler.start();
            Thread.sleep(WARM_UP.toMillis());
            long c0 = acquired.sum();
            long t0 = System.nanoTime();
            Thread.sleep(measure.toMillis());
            long c1 = acquired.sum();
            long t1 = System.nanoTime();
            run.stop();
            return new Window((c1 - c0) / ((t1 - t0) / 1e9), mostThreads.get(), failures.sum());
        } finally {
            sampler.interrupt();
            sampler.join();
        }
    }

    private static Run start(String contender, RedisServer redis, int waiters, String lockName,
                             LongAdder acquired, LongAdder failures) {
        return switch (contender) {
            case "relock-async" -> relockAsync(redis, waiters, lockName, acquired, failures);
            case "relock-reactor" -> relockReactor(redis, waiters, lockName, acquired, failures);
            case "relock-kotlin" -> relockKotlin(redis, waiters, lockName, acquired, failures);
            case "redisson-reactive" -> redissonReactive(redis, waiters, lockName, acquired, failures);
            default -> throw new IllegalArgumentException("unknown contender " + contender);
        };
    }

    /** relock on its own Lettuce client, as {@code RelockSource.onLettuce} opens it. */
    private static LockClient openRelock(RedisServer redis, List<Runnable> onClose) {
        io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(RedisURI.create(redis.host(), redis.port()));
        onClose.add(lettuce::shutdown);
        // Command timeout: the waiters' first attempts leave at once on one connection.
        LockClient client = RedisLocks.create(new LettuceDriverProvider(), lettuce,
                LockOptions.builder().commandTimeout(Duration.ofSeconds(30)).build());
        onClose.add(0, client::close);
        return client;
    }

    private static Run relockAsync(RedisServer redis, int waiters, String lockName, LongAdder acquired, LongAdder failures) {
        List<Runnable> onClose = new ArrayList<>();
        DistributedLock lock = openRelock(redis, onClose).getLock(lockName);
        return Loops.start(waiters, failures, onClose, (waiter, done) -> lock.acquireAsync(WAIT, null)
                .thenCompose(lease -> {
                    acquired.increment();
                    return lock.unlockAsync(lease.ownerId());
                })
                .whenComplete((ok, error) -> done.accept(error)));
    }

    private static Run relockReactor(RedisServer redis, int waiters, String lockName, LongAdder acquired, LongAdder failures) {
        List<Runnable> onClose = new ArrayList<>();
        ReactiveLock lock = ReactiveLock.of(openRelock(redis, onClose).getLock(lockName));
        return Loops.start(waiters, failures, onClose, (waiter, done) -> lock
                .withLockMono(WAIT, lease -> Mono.fromRunnable(acquired::increment))
                .subscribe(null, done::accept, () -> done.accept(null)));
    }

    private static Run relockKotlin(RedisServer redis, int waiters, String lockName, LongAdder acquired, LongAdder failures) {
        List<Runnable> onClose = new ArrayList<>();
        DistributedLock lock = openRelock(redis, onClose).getLock(lockName);
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> new Thread(r, "probe-coroutines"));
        ExecutorCoroutineDispatcher dispatcher = ExecutorsKt.from(pool);
        onClose.add(dispatcher::close);
        CoroutineScope scope = CoroutineScopeKt.CoroutineScope(dispatcher);
        // One coroutine per acquisition: launch { lock.withLease(WAIT) { acquired.increment() } }
        return Loops.start(waiters, failures, onClose, (waiter, done) -> BuildersKt.launch(scope,
                        EmptyCoroutineContext.INSTANCE, CoroutineStart.DEFAULT,
                        (s, continuation) -> RelockCoroutines.withLease(lock, WAIT, null, (inner, lease, c) -> {
                            acquired.increment();
                            return Unit.INSTANCE;
                        }, continuation))
                .invokeOnCompletion(error -> {
                    done.accept(error);
                    return Unit.INSTANCE;
                }));
    }

    private static Run redissonReactive(RedisServer redis, int waiters, String lockName, LongAdder acquired, LongAdder failures) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + redis.host() + ":" + redis.port());
        RedissonClient redisson = Redisson.create(config);
        RLockReactive lock = redisson.reactive().getLock(lockName);
        List<Runnable> onClose = new ArrayList<>();
        onClose.add(redisson::shutdown);
        return Loops.start(waiters, failures, onClose, (waiter, done) -> {
            long owner = 1_000_000L + waiter; // RLockReactive asks for an owner id per waiter
            lock.lock(owner).then(Mono.fromRunnable(acquired::increment)).then(lock.unlock(owner))
                    .subscribe(null, done::accept, () -> done.accept(null));
        });
    }

    /** Starts one acquire-release of {@code waiter}; calls {@code done} with its error or null when it ends. */
    private interface Acquisition {
        void start(int waiter, Consumer<Throwable> done);
    }

    /** The waiters' loops: each waiter starts its next acquisition when the last one ended. */
    private static final class Loops implements Run {
        private final Acquisition acquisition;
        private final LongAdder failures;
        private final List<Runnable> onClose;
        private final CountDownLatch finished;
        private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        private volatile boolean running = true;

        private Loops(int waiters, LongAdder failures, List<Runnable> onClose, Acquisition acquisition) {
            this.acquisition = acquisition;
            this.failures = failures;
            this.onClose = onClose;
            this.finished = new CountDownLatch(waiters);
        }

        static Loops start(int waiters, LongAdder failures, List<Runnable> onClose, Acquisition acquisition) {
            Loops loops = new Loops(waiters, failures, onClose, acquisition);
            for (int i = 0; i < waiters; i++) {
                loops.loop(i);
            }
            return loops;
        }

        private void loop(int waiter) {
            acquisition.start(waiter, error -> {
                if (error != null) {
                    failures.increment();
                    firstFailure.compareAndSet(null, error);
                }
                if (running) {
                    loop(waiter);
                } else {
                    finished.countDown();
                }
            });
        }

        @Override
        public void stop() throws InterruptedException {
            running = false;
            if (!finished.await(DRAIN.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException(finished.getCount() + " waiters did not finish within " + DRAIN);
            }
            if (firstFailure.get() != null) {
                System.err.println("first failure: " + firstFailure.get());
            }
        }

        @Override
        public void close() {
            onClose.forEach(Runnable::run);
        }
    }

    private static Set<Long> liveThreadIds() {
        Set<Long> ids = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            ids.add(t.getId());
        }
        return ids;
    }

    private static String table(Map<String, List<Window>> results, int waiters, int seconds, int rounds) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d waiters on one lock, %d s windows, %d rounds interleaved; "
                + "median of the rounds, ratios taken within each round%n%n", waiters, seconds, rounds));
        out.append("| contender | acquisitions/s | threads | failures | ÷ redisson-reactive | ÷ relock-async |\n");
        out.append("|---|---:|---:|---:|---:|---:|\n");
        List<Window> redisson = results.get("redisson-reactive");
        List<Window> async = results.get("relock-async");
        for (Map.Entry<String, List<Window>> e : results.entrySet()) {
            List<Window> ws = e.getValue();
            List<Double> vsRedisson = new ArrayList<>();
            List<Double> vsAsync = new ArrayList<>();
            for (int r = 0; r < ws.size(); r++) {
                vsRedisson.add(ws.get(r).perSecond / redisson.get(r).perSecond);
                vsAsync.add(ws.get(r).perSecond / async.get(r).perSecond);
            }
            out.append(String.format(Locale.ROOT, "| %s | %,.0f | %d | %d | %.2f× | %.2f× |%n", e.getKey(),
                    median(ws.stream().map(Window::perSecond).toList()),
                    ws.stream().mapToInt(Window::threads).max().orElse(0),
                    ws.stream().mapToLong(Window::failures).sum(),
                    median(vsRedisson), median(vsAsync)));
        }
        out.append(String.format(Locale.ROOT, "%nthreads: the most threads alive at once during a window that were not "
                + "alive before its client opened (highest of the rounds), for %d waiters%n", waiters));
        return out.toString();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted(Comparator.naturalOrder()).toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static int intArg(String[] args, String name, int otherwise) {
        for (String a : args) {
            if (a.startsWith("--" + name + "=")) {
                int v = Integer.parseInt(a.substring(name.length() + 3));
                if (v < 1) {
                    throw new IllegalArgumentException("--" + name + " must be at least 1, was " + v);
                }
                return v;
            }
        }
        return otherwise;
    }
}
