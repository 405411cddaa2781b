package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Chapter 5: mutual exclusion under load. A non-atomic read-modify-write of a Redis counter under
 * the lock, from many threads of several clients, loses no update.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class ConcurrencyChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected ConcurrencyChapter(DriverKit kit) {
        super(kit);
    }

    /** Rule 6.1: 8 threads x 2 clients x 500 increments of GET/SET under the lock lose no update. */
    @Test
    void rule6_1_mutualExclusion_twoClientsEightThreads_noLostUpdate() throws Exception {
        int threads = 8;
        int rounds = 500;
        List<LockClient> clients = List.of(client(), client());
        ExecutorService pool = Executors.newFixedThreadPool(threads * clients.size());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (LockClient c : clients) {
                DistributedLock lock = c.getLock("tck:counter-lock");
                for (int t = 0; t < threads; t++) {
                    done.add(pool.submit(() -> {
                        try (RespClient redis = kit.server().admin()) {
                            for (int i = 0; i < rounds; i++) {
                                lock.lock();
                                try {
                                    Object v = redis.call("GET", "tck:counter");
                                    long next = (v == null ? 0 : Long.parseLong((String) v)) + 1;
                                    redis.call("SET", "tck:counter", Long.toString(next));
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
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(Integer.toString(threads * rounds * clients.size()), redis("GET", "tck:counter"));
        redis("DEL", "tck:counter");
    }
}
