package io.github.relock.benchmarks;

import io.github.relock.api.DistributedSemaphore;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.driver.jedis.JedisDriverProvider;
import io.github.relock.driver.lettuce.LettuceDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.Redisson;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.RedisClient;

/**
 * The semaphore row beside Redisson: {@code threads} threads of one client loop
 * {@code acquire(); release();} on one semaphore of {@code permits} permits, for relock-jedis,
 * relock-lettuce and Redisson (4.7.0, default single-server configuration), each on its own
 * client to one embedded Redis. The three are measured in turns, {@code rounds} times, on a fresh
 * semaphore each turn, so a drift of the machine hits all of them alike; the table shows each
 * one's median acquisitions per second and its ratio to Redisson's. Not part of
 * {@link BenchmarkReport}: a standalone probe.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" io.github.relock.benchmarks.SemaphoreProbe 8 2 2 5
 * }</pre>
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class SemaphoreProbe {
    /** Takes one permit. */
    @FunctionalInterface
    private interface Acquirer {
        void acquire() throws InterruptedException;
    }

    /** One contender's semaphore, as the loop sees it. */
    private record Sem(Acquirer acquire, Runnable release) {
    }

    private SemaphoreProbe() {
    }

    /**
     * @param args {@code threads permits seconds rounds} (defaults 8 2 2 5): threads per contender,
     *     permits of the semaphore, seconds per measurement, measurements per contender
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        int threads = arg(args, 0, 8);
        int permits = arg(args, 1, 2);
        int seconds = arg(args, 2, 2);
        int rounds = arg(args, 3, 5);
        try (RedisServer server = RedisServer.startEmbedded()) {
            RedisClient jedis = RedisClient.builder().hostAndPort(server.host(), server.port())
                    .poolConfig(RelockSource.jedisPool()).build();
            io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create("redis://" + server.host() + ":"
                    + server.port());
            Config config = new Config();
            config.useSingleServer().setAddress("redis://" + server.host() + ":" + server.port());
            RedissonClient redisson = Redisson.create(config);
            try (LockClient viaJedis = RedisLocks.create(new JedisDriverProvider(), jedis, LockOptions.defaults());
                 LockClient viaLettuce = RedisLocks.create(new LettuceDriverProvider(), lettuce, LockOptions.defaults())) {
                Map<String, java.util.function.Function<String, Sem>> contenders = new LinkedHashMap<>();
                contenders.put(Contender.RELOCK_JEDIS.id(), name -> relock(viaJedis.getSemaphore(name), permits));
                contenders.put(Contender.RELOCK_LETTUCE.id(), name -> relock(viaLettuce.getSemaphore(name), permits));
                contenders.put(Contender.REDISSON.id(), name -> redisson(redisson.getSemaphore(name), permits));
                Map<String, List<Long>> rates = new LinkedHashMap<>();
                contenders.keySet().forEach(k -> rates.put(k, new ArrayList<>()));
                for (int r = 0; r < rounds; r++) {
                    for (Map.Entry<String, java.util.function.Function<String, Sem>> c : contenders.entrySet()) {
                        String name = "bench:semaphore:" + c.getKey() + ":" + r;
                        rates.get(c.getKey()).add(measure(c.getValue().apply(name), threads, seconds));
                        viaJedis.getSemaphore(name).delete();
                    }
                }
                print(rates, threads, permits, seconds, rounds);
            } finally {
                redisson.shutdown();
                lettuce.shutdown();
                jedis.close();
            }
        }
    }

    private static int arg(String[] args, int i, int otherwise) {
        return args.length > i ? Integer.parseInt(args[i]) : otherwise;
    }

    private static Sem relock(DistributedSemaphore s, int permits) {
        s.trySetPermits(permits);
        return new Sem(s::acquire, s::release);
    }

    private static Sem redisson(RSemaphore s, int permits) {
        s.trySetPermits(permits);
        return new Sem(s::acquire, s::release);
    }

    /** @return acquisitions per second of {@code threads} threads looping on {@code s} for {@code seconds} */
    private static long measure(Sem s, int threads, int seconds) throws InterruptedException {
        AtomicLong acquisitions = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> loops = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        s.acquire().acquire();
                        s.release().run();
                        acquisitions.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "semaphore-probe-" + i);
            loops.add(t);
            t.start();
        }
        Thread.sleep(300); // warm-up: connections, subscriptions, JIT
        long start = acquisitions.get();
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L); // the measurement window, not a wait for an outcome
        long n = acquisitions.get() - start;
        long elapsed = System.nanoTime() - t0;
        stop.set(true);
        for (Thread t : loops) {
            t.join(30_000);
        }
        return Math.round(n * 1e9 / elapsed);
    }

    private static void print(Map<String, List<Long>> rates, int threads, int permits, int seconds, int rounds) {
        long base = median(rates.get(Contender.REDISSON.id()));
        System.out.printf(Locale.ROOT, "semaphore: %d threads, %d permits, acquire+release, %d x %d s each, interleaved%n",
                threads, permits, rounds, seconds);
        System.out.printf(Locale.ROOT, "%-16s %14s %10s   %s%n", "contender", "median ops/s", "vs redisson", "each round");
        rates.forEach((k, v) -> System.out.printf(Locale.ROOT, "%-16s %,14d %9.2fx   %s%n", k, median(v),
                base == 0 ? 0.0 : (double) median(v) / base, v));
    }

    private static long median(List<Long> v) {
        long[] a = v.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a.length == 0 ? 0 : a[a.length / 2];
    }
}
