package io.github.relock.examples;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import redis.clients.jedis.UnifiedJedis;

/**
 * One lock's contest: the shared bookkeeping of its workers and the invariants they check.
 *
 * <ul>
 *   <li>No overlap: a worker that enters finds nobody inside (an in-process witness beside the
 *       Redis counter).</li>
 *   <li>No lost update: the counter ends equal to the number of completed acquisitions.</li>
 *   <li>Fair order (fair locks): just before releasing, the holder reads the queue head
 *       ({@code LINDEX redisson_lock_queue:{N} 0}); the next worker to enter must be that head. While
 *       the lock is held only the tail of the queue can grow, so the head read then is the waiter
 *       the release must hand over to.</li>
 *   <li>Read-write locks: no reader inside while a writer is, no two writers at once (the same
 *       witness, plus a count of readers inside); the counter counts the writers' updates. The
 *       most readers seen inside at once shows that reads are shared.</li>
 * </ul>
 *
 * <p>Thread-safety: safe for use by all workers and the progress monitor.
 */
final class Phase {
    private static final int MAX_PROBLEMS = 5;

    final String title;
    final String lockName;
    final String counterKey;
    final boolean fair;
    final boolean readWrite;
    private final UnifiedJedis admin;
    private volatile boolean stopped;

    private final Map<String, LongAdder> acquisitions = new LinkedHashMap<>();
    private final Map<String, WaitTimes> waits = new LinkedHashMap<>();
    private final Map<String, String> labels = new ConcurrentHashMap<>();
    private final AtomicReference<String> inside = new AtomicReference<>();
    private final AtomicReference<String> expectedNext = new AtomicReference<>();
    private final Map<String, LongAdder> reads = new LinkedHashMap<>();
    private final Map<String, WaitTimes> readWaits = new LinkedHashMap<>();
    private final AtomicInteger readersInside = new AtomicInteger();
    private final AtomicInteger maxReaders = new AtomicInteger();
    final LongAdder overlaps = new LongAdder();
    /** Read-write lock: times a reader and a writer were seen inside at once (by whichever entered second). */
    final LongAdder readerWriterOverlaps = new LongAdder();
    final LongAdder orderChecks = new LongAdder();
    final LongAdder orderViolations = new LongAdder();
    final LongAdder reentryFailures = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder errors = new LongAdder();
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

    Phase(String title, String lockName, boolean fair, List<String> clients, UnifiedJedis admin) {
        this(title, lockName, fair, false, clients, admin);
    }

    private Phase(String title, String lockName, boolean fair, boolean readWrite, List<String> clients,
            UnifiedJedis admin) {
        this.title = title;
        this.lockName = lockName;
        this.counterKey = "relock-demo:counter:" + title;
        this.fair = fair;
        this.readWrite = readWrite;
        this.admin = admin;
        for (String c : clients) {
            acquisitions.put(c, new LongAdder());
            waits.put(c, new WaitTimes());
            reads.put(c, new LongAdder());
            readWaits.put(c, new WaitTimes());
        }
    }

    /** A read-write lock's contest: writers update the counter, readers only read it. */
    static Phase readWrite(String title, String lockName, List<String> clients, UnifiedJedis admin) {
        return new Phase(title, lockName, false, true, clients, admin);
    }

    /** Removes what an earlier run left and sets the counter to 0. */
    void reset() {
        admin.del(lockName, LockKeys.fairQueue(lockName), LockKeys.fairTimeouts(lockName), counterKey);
        admin.set(counterKey, "0");
    }

    /** Removes the counter (the lock keys are gone once every worker has released). */
    void cleanUp() {
        admin.del(counterKey);
    }

    boolean stopped() {
        return stopped;
    }

    void stop() {
        stopped = true;
    }

    void register(String holderField, String workerLabel) {
        labels.put(holderField, workerLabel);
    }

    /** @return the worker label for a hash field, or the field itself */
    String label(String holderField) {
        return labels.getOrDefault(holderField, holderField);
    }

    /** A worker holds the lock: checks overlap and, for a fair lock, the order. */
    void entered(String client, String me, long waitedNanos) {
        waits.get(client).add(waitedNanos);
        String other = inside.getAndSet(me);
        if (other != null) {
            overlaps.increment();
            problem(label(me) + " entered while " + label(other) + " was inside");
        }
        int readers = readersInside.get();
        if (readers > 0) {
            readerWriterOverlaps.increment();
            problem(label(me) + " took the write lock while " + readers + " reader(s) were inside");
        }
        String expected = expectedNext.getAndSet(null);
        if (fair && expected != null) {
            orderChecks.increment();
            if (!expected.equals(me)) {
                orderViolations.increment();
                problem(label(me) + " took the lock, but " + label(expected) + " was at the head of the queue");
            }
        }
    }

    /** A reader holds the read lock: no writer may be inside. */
    void readEntered(String client, String me, long waitedNanos) {
        readWaits.get(client).add(waitedNanos);
        maxReaders.accumulateAndGet(readersInside.incrementAndGet(), Math::max);
        String writer = inside.get();
        if (writer != null) {
            readerWriterOverlaps.increment();
            problem(label(me) + " took the read lock while " + label(writer) + " was writing");
        }
    }

    /** A reader finished reading. */
    void readCompleted(String client) {
        reads.get(client).increment();
    }

    /** A reader is about to release the read lock. */
    void readLeaving() {
        readersInside.decrementAndGet();
    }

    /** @return completed reads per client, in fleet order */
    Map<String, Long> reads() {
        Map<String, Long> out = new LinkedHashMap<>();
        reads.forEach((c, n) -> out.put(c, n.sum()));
        return out;
    }

    WaitTimes readWaits(String client) {
        return readWaits.get(client);
    }

    /** @return the most readers seen inside the read lock at once */
    int maxReaders() {
        return maxReaders.get();
    }

    /** A worker finished its read-modify-write. */
    void completed(String client) {
        acquisitions.get(client).increment();
    }

    /** A worker is about to release: it is the last moment it may read the queue head. */
    void leaving(String me) {
        inside.compareAndSet(me, null);
        if (fair) {
            expectedNext.set(admin.lindex(LockKeys.fairQueue(lockName), 0));
        }
    }

    void reentryFailed(String worker) {
        reentryFailures.increment();
        problem(worker + " could not re-enter the lock it held");
    }

    void timedOut(String worker, long waitedMs) {
        timeouts.increment();
        problem(worker + " did not get the lock within " + waitedMs + " ms");
    }

    void failed(String worker, Throwable e) {
        errors.increment();
        problem(worker + " failed: " + RedisTarget.rootMessage(e));
        stop();
    }

    void problem(String message) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(message);
        }
    }

    List<String> problems() {
        return new ArrayList<>(problems);
    }

    /** @return completed acquisitions per client, in fleet order */
    Map<String, Long> acquisitions() {
        Map<String, Long> out = new LinkedHashMap<>();
        acquisitions.forEach((c, n) -> out.put(c, n.sum()));
        return out;
    }

    WaitTimes waits(String client) {
        return waits.get(client);
    }

    long total() {
        return acquisitions.values().stream().mapToLong(LongAdder::sum).sum();
    }
}
