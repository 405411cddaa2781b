package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Chapter 6: mutual exclusion under load. A non-atomic read-modify-write of a Redis counter under
 * the lock, from many threads of several clients, loses no update.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("concurrency")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class ConcurrencyChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected ConcurrencyChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 6.1: 8 threads x 2 clients x 100 increments of GET/SET under the lock (500 with
     * {@code -Drelock.tck.longLoops=true}) lose no update.
     * When it fails: a lost update means two holders overlapped: check the decoding of the acquire
     * reply (an integer "held" reply read as nil acquires a held lock) and that no script is sent
     * twice.
     */
    @Test
    void rule6_1_mutualExclusion_twoClientsEightThreads_noLostUpdate() throws Exception {
        int threads = 8;
        int rounds = loopSize(100, 500);
        List<DistributedLock> workers = new ArrayList<>();
        for (LockClient c : List.of(client(), client())) {
            for (int t = 0; t < threads; t++) {
                workers.add(c.getLock("tck:counter-lock"));
            }
        }
        assertEquals(workers.size() * rounds, incrementUnderLocks(workers, rounds, "tck:counter"));
    }
}
