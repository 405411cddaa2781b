package io.github.relock.tck.redisson;

import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The mixed-fleet check: threads of several clients — relock on each driver and Redisson — take
 * turns on one lock for a while, each doing a non-atomic read-modify-write (GET, then SET + 1) of
 * a counter under the lock. It reports how many times each client acquired and the final counter,
 * which equals the total of acquisitions exactly when no update was lost. A client whose waiters
 * are never woken (say, a relock waiter deaf to Redisson 4's sharded unlock messages on a
 * cluster) shows up as a tiny share.
 *
 * <p>Thread-safety: stateless; each run uses its own threads.
 */
public final class MixedFleet {

    /**
     * @param acquisitions per client, in the order given
     * @param counter the counter's final value
     */
    public record Result(Map<String, Long> acquisitions, long counter) {
        /** @return acquisitions over every client */
        public long total() {
            return acquisitions.values().stream().mapToLong(Long::longValue).sum();
        }

        /**
         * @param client a client's name
         * @return its share of every acquisition, 0 to 1
         */
        public double share(String client) {
            return total() == 0 ? 0 : (double) acquisitions.get(client) / total();
        }
    }

    private MixedFleet() {
    }

    /**
     * @param topology where to connect
     * @return a Redisson client on it (default watchdog), to shut down after use
     */
    public static RedissonClient redisson(RedisTopology topology) {
        Config config = new Config();
        RedissonConfigs.connect(config, topology);
        return Redisson.create(config);
    }

    /**
     * Runs the fleet on one lock.
     *
     * @param topology where the counter lives
     * @param clients each client's name and how it makes the lock of a given name
     * @param lockName the lock every thread takes
     * @param threadsPerClient threads of each client
     * @param duration how long the threads keep taking turns
     * @return every client's acquisitions and the final counter
     * @throws Exception if a thread failed, or did not stop within a minute of the end
     */
    public static Result run(RedisTopology topology, Map<String, Function<String, Lock>> clients, String lockName,
                             int threadsPerClient, Duration duration) throws Exception {
        String counterKey = "fleet-counter:{" + lockName + "}";
        topology.call("DEL", counterKey);
        Map<String, AtomicLong> counts = new LinkedHashMap<>();
        clients.keySet().forEach(k -> counts.put(k, new AtomicLong()));
        ExecutorService pool = Executors.newFixedThreadPool(clients.size() * threadsPerClient);
        long end = System.nanoTime() + duration.toNanos();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Map.Entry<String, Function<String, Lock>> c : clients.entrySet()) {
                for (int t = 0; t < threadsPerClient; t++) {
                    done.add(pool.submit(() -> {
                        Lock lock = c.getValue().apply(lockName);
                        try (RespClient redis = topology.adminFor(counterKey)) {
                            while (System.nanoTime() - end < 0) {
                                lock.lock();
                                try {
                                    Object v = redis.call("GET", counterKey);
                                    long next = (v == null ? 0 : Long.parseLong((String) v)) + 1;
                                    redis.call("SET", counterKey, Long.toString(next));
                                    counts.get(c.getKey()).incrementAndGet();
                                } finally {
                                    lock.unlock();
                                }
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(duration.toMillis() + TimeUnit.MINUTES.toMillis(1), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Object value = topology.call("GET", counterKey);
        topology.call("DEL", counterKey);
        Map<String, Long> result = new LinkedHashMap<>();
        counts.forEach((k, v) -> result.put(k, v.get()));
        return new Result(result, value == null ? 0 : Long.parseLong((String) value));
    }
}
