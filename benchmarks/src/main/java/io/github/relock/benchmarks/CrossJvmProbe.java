package io.github.relock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * Scenario (h), one side of a cross-process hand-off: {@link BenchmarkReport} starts two of these
 * JVMs on one lock; each opens its own client of the contender and runs {@code threads} threads
 * looping {@code lock(); unlock();} on the lock, so the lock passes between the two processes
 * (and between threads of one process).
 *
 * <p><b>What is measured.</b> A cross-JVM hand-off is the time from the moment a holder in one
 * JVM starts its {@code unlock()} to the moment {@code lock()} returns in the <em>other</em> JVM,
 * when that JVM is the next holder (an acquisition that follows a release in the same JVM is not
 * counted). The two JVMs share the last release (who, when) through a small memory-mapped file,
 * written with volatile stores just before {@code unlock()} and read with volatile loads after
 * {@code lock()}; the lock itself orders the two. Times are {@link System#nanoTime()}, which both
 * JVMs read from the same system-wide monotonic clock (Linux {@code CLOCK_MONOTONIC}), so the
 * difference is meaningful only with both JVMs on one host, which is how the report runs them.
 *
 * <p><b>Timing.</b> Each JVM announces itself in the file once its client is open and has taken
 * the lock once; both then start at the same instant (the later announcement plus
 * {@value #START_DELAY_MS} ms), warm up for {@code warmupMs} and record for {@code measureMs}.
 * Each writes its histogram of cross-JVM hand-offs as an HdrHistogram log to {@code out} and
 * prints one line {@code RESULT acquisitions=... handOffs=... seconds=...}.
 *
 * <p>Thread-safety: a program; not for concurrent use (its threads share only the mapped file and
 * the thread-safe recorder).
 */
public final class CrossJvmProbe {
    static final long START_DELAY_MS = 200;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    // Offsets in the shared file: the last holder's id, when it started unlock(), each side's announcement.
    private static final int RELEASED_BY = 0;
    private static final int RELEASED_AT = 8;
    private static final int READY = 16;
    static final int FILE_BYTES = 32;

    private CrossJvmProbe() {
    }

    /**
     * @param args {@code host port contender threads warmupMs measureMs sharedFile side(0|1) histogramFile};
     *     the shared file holds {@value #FILE_BYTES} zero bytes at the start ({@link #createSharedFile})
     * @throws Exception on any failure (the runner reports it)
     */
    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        Contender contender = Contender.of(args[2]);
        int threads = Integer.parseInt(args[3]);
        long warmupNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
        long measureNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        Path shared = Path.of(args[6]);
        int side = Integer.parseInt(args[7]);
        Path histogram = Path.of(args[8]);
        if (side != 0 && side != 1) {
            throw new IllegalArgumentException("side must be 0 or 1, was " + side);
        }

        MappedByteBuffer file;
        try (FileChannel ch = FileChannel.open(shared, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            file = ch.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES); // stays mapped after close
        }
        HandOffRecorder recorder = new HandOffRecorder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (LockSource source = contender.open(host, port)) {
            Lock lock = source.lock("bench:" + contender.id() + ":cross-jvm");
            lock.lock(); // connections, scripts and subscriptions warm before the clock starts
            lock.unlock();
            long start = awaitBothReady(file, side) + TimeUnit.MILLISECONDS.toNanos(START_DELAY_MS);
            long from = start + warmupNanos;
            long until = from + measureNanos;
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long me = side * 1_000_000L + t + 1; // never 0: 0 means "nobody released yet"
                Thread w = new Thread(() -> {
                    try {
                        loop(lock, file, me, side, start, from, until, recorder);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "cross-jvm-" + side + "-" + t);
                workers.add(w);
                w.start();
            }
            for (Thread w : workers) {
                w.join();
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a benchmark thread failed", failure.get());
        }
        HandOffRecorder.Summary s = recorder.summary();
        s.writeTo(histogram);
        System.out.println("RESULT acquisitions=" + s.acquisitions() + " handOffs=" + s.handOffs() + " seconds="
                + measureNanos / 1e9);
        System.out.flush();
        System.exit(0); // client libraries may leave non-daemon threads
    }

    private static void loop(Lock lock, MappedByteBuffer file, long me, int side, long start, long from, long until,
            HandOffRecorder recorder) {
        LockSupport.parkNanos(start - System.nanoTime());
        while (true) {
            lock.lock();
            long now = System.nanoTime();
            try {
                if (now >= from && now < until) {
                    recorder.acquired();
                    long by = (long) LONGS.getVolatile(file, RELEASED_BY);
                    if (by != 0 && by / 1_000_000L != side) {
                        recorder.record(now - (long) LONGS.getVolatile(file, RELEASED_AT));
                    }
                }
                LONGS.setVolatile(file, RELEASED_BY, me);
                LONGS.setVolatile(file, RELEASED_AT, System.nanoTime());
            } finally {
                lock.unlock();
            }
            if (now >= until) {
                return;
            }
        }
    }

    /** @return the later of the two sides' announcements, once both have announced */
    private static long awaitBothReady(MappedByteBuffer file, int side) {
        LONGS.setVolatile(file, READY + 8 * side, System.nanoTime());
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            long a = (long) LONGS.getVolatile(file, READY);
            long b = (long) LONGS.getVolatile(file, READY + 8);
            if (a != 0 && b != 0) {
                return Math.max(a, b);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the other JVM did not announce itself within 2 minutes");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /**
     * Creates the file the two sides share (zeroed).
     *
     * @param file where
     * @throws IOException if it cannot be written
     */
    static void createSharedFile(Path file) throws IOException {
        Files.write(file, new byte[FILE_BYTES]);
    }
}
