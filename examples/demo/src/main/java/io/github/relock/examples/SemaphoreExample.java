package io.github.relock.examples;

import io.github.relock.api.DistributedSemaphore;
import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.RedisClient;

/**
 * A small example of the semaphore: "at most three exports at once, across every service". Three
 * services share one semaphore of three permits: one on relock over Jedis, one on relock over
 * Lettuce, one on Redisson; four workers each take a permit, export (2 ms), and give it back. It
 * prints the most exports seen at once (never more than three) and the permits left (three).
 *
 * <pre>
 * java -cp examples/demo/target/relock-examples.jar io.github.relock.examples.SemaphoreExample [redis://host:port]
 * </pre>
 *
 * <p>Thread-safety: one run at a time.
 */
public final class SemaphoreExample {
    static final String NAME = "example:exports";
    static final int PERMITS = 3;
    private static final int WORKERS = 4;
    private static final int ROUNDS = 5;

    private SemaphoreExample() {
    }

    /**
     * @param args an optional Redis URL (default: $REDIS_URL, else redis://localhost:6379)
     */
    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : System.getenv().getOrDefault("REDIS_URL", "redis://localhost:6379");
        System.exit(run(RedisTarget.parse(url), System.out));
    }

    /** @return {@link Main#EXIT_OK} when the permits were never exceeded and all came back */
    static int run(RedisTarget target, PrintStream out) throws Exception {
        io.lettuce.core.RedisClient lettuce = target.lettuce();
        RedissonClient redisson = target.redisson();
        try (RedisClient jedis = target.jedis();
             LockClient viaJedis = RedisLocks.create(jedis);
             LockClient viaLettuce = RedisLocks.create(lettuce)) {
            DistributedSemaphore exports = viaJedis.getSemaphore(NAME);
            exports.delete();
            exports.trySetPermits(PERMITS);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            IntConsumer export = delta -> most.accumulateAndGet(inside.addAndGet(delta), Math::max);
            List<Callable<Void>> workers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                DistributedSemaphore jedisSide = viaJedis.getSemaphore(NAME);
                DistributedSemaphore lettuceSide = viaLettuce.getSemaphore(NAME);
                RSemaphore redissonSide = redisson.getSemaphore(NAME);
                workers.add(worker(jedisSide::acquire, jedisSide::release, export));
                workers.add(worker(lettuceSide::acquire, lettuceSide::release, export));
                workers.add(worker(redissonSide::acquire, redissonSide::release, export));
            }
            ExecutorService pool = Executors.newFixedThreadPool(workers.size());
            try {
                for (Future<Void> f : pool.invokeAll(workers)) {
                    f.get(1, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            int left = redisson.getSemaphore(NAME).availablePermits();
            out.println("exports: " + workers.size() * ROUNDS + " by relock-jedis, relock-lettuce and Redisson workers;"
                    + " most at once " + most.get() + " (permits " + PERMITS + "); permits left " + left);
            exports.delete();
            return most.get() <= PERMITS && left == PERMITS ? Main.EXIT_OK : Main.EXIT_FAILED;
        } finally {
            lettuce.shutdown();
            RedisTarget.shutdown(redisson);
        }
    }

    /** Takes one permit. */
    @FunctionalInterface
    private interface Acquirer {
        void acquire() throws InterruptedException;
    }

    private static Callable<Void> worker(Acquirer acquire, Runnable release, IntConsumer export) {
        return () -> {
            for (int i = 0; i < ROUNDS; i++) {
                acquire.acquire();
                try {
                    exportOnce(export);
                } finally {
                    release.run();
                }
            }
            return null;
        };
    }

    private static void exportOnce(IntConsumer export) throws InterruptedException {
        export.accept(1);
        Thread.sleep(2); // the export itself
        export.accept(-1);
    }
}
