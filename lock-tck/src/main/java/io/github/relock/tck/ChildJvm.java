package io.github.relock.tck;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM that takes a lock through the driver under test and holds it, renewed by its
 * watchdog, until it is killed with {@code SIGKILL}: the crash of a lock holder's process, which
 * no in-JVM test can imitate (closing a client releases or stops renewing politely).
 *
 * <p>The child runs this class's {@link #main} on the parent's class path and java binary; it
 * makes its lock client with the same {@link DriverKit} class as the parent (which needs a no-arg
 * constructor, as JUnit's do), prints {@code HELD} once the lock is held, then waits to be killed.
 *
 * <p>Thread-safety: not thread-safe; one test thread drives it.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final Path log;

    private ChildJvm(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts a child JVM that acquires {@code lockName} on {@code server} with a watchdog lock, and
     * waits until it holds it.
     *
     * @param kit the kit whose driver the child uses (its class is instantiated in the child)
     * @param server where the lock lives
     * @param lockName the lock to hold
     * @param watchdog the child's watchdog timeout
     * @param deadline how long the child may take to start and acquire
     * @return the running child, holding the lock
     */
    public static ChildJvm holding(DriverKit kit, RedisServer server, String lockName, Duration watchdog,
            Duration deadline) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = List.of(java, "-cp", System.getProperty("java.class.path"), ChildJvm.class.getName(),
                kit.kitClass().getName(), server.uri().toString(), lockName, Long.toString(watchdog.toMillis()));
        try {
            Path log = Files.createTempFile("relock-child", ".log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            ChildJvm child = new ChildJvm(p, log);
            child.awaitLine("HELD", deadline);
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a child JVM: " + command, e);
        }
    }

    /** @return the child's process id */
    public long pid() {
        return process.pid();
    }

    /** Kills the child at once ({@code SIGKILL}) and waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("child JVM " + process.pid() + " survived SIGKILL for 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing child JVM " + process.pid(), e);
        }
    }

    /**
     * After {@link #kill()}: waits until the dead holder's fields are gone from {@code lock} (it
     * expired, or a waiter took it over), checking that its TTL never rose meanwhile, which would
     * mean something still renewed it. The TTL and the owners are read together, in one script.
     *
     * @param redis where the lock lives
     * @param lock the lock's name (its hash)
     * @param deadline how long the lock may take to expire
     * @throws AssertionError if the TTL rose or the lock did not expire in time
     */
    public void awaitLockExpiredUnrenewed(RedisTopology redis, String lock, Duration deadline) {
        List<?> at = ttlAndOwners(redis, lock);
        long first = (Long) at.get(0);
        Object deadOwners = at.get(1);
        List<Long> ttls = new java.util.ArrayList<>();
        Await.until(deadline, () -> {
            List<?> now = ttlAndOwners(redis, lock);
            if (!deadOwners.equals(now.get(1))) {
                return true;
            }
            ttls.add((Long) now.get(0));
            return false;
        }, () -> "the dead holder's lock never expired: " + ttls);
        if (ttls.stream().anyMatch(t -> t > first)) {
            throw new AssertionError("renewed after the holder died: first PTTL " + first + ", then " + ttls);
        }
    }

    private static List<?> ttlAndOwners(RedisTopology redis, String lock) {
        return (List<?>) redis.call("EVAL", "return {redis.call('PTTL', KEYS[1]), redis.call('HKEYS', KEYS[1])}",
                "1", lock);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException ignored) {
            // a temp file
        }
    }

    private void awaitLine(String wanted, Duration deadline) {
        try {
            Await.until(deadline, () -> output().lines().anyMatch(wanted::equals) || !process.isAlive(),
                    () -> "child JVM did not print " + wanted + "; its output:\n" + output());
            if (output().lines().noneMatch(wanted::equals)) {
                throw new IllegalStateException("child JVM ended before printing " + wanted + ":\n" + output());
            }
        } catch (RuntimeException | AssertionError e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** @return what the child printed so far (stdout and stderr) */
    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /**
     * The child's entry point: {@code <kit class> <redis uri> <lock name> <watchdog ms>}.
     *
     * @param args as above
     * @throws Exception if the kit cannot be made or the lock not taken (the parent sees the output)
     */
    public static void main(String[] args) throws Exception {
        Constructor<?> ctor = Class.forName(args[0]).getDeclaredConstructor();
        ctor.setAccessible(true);
        DriverKit kit = (DriverKit) ctor.newInstance();
        LockOptions options = LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(Long.parseLong(args[3])))
                .build();
        LockClient client = kit.newLockClient(RedisServer.external(URI.create(args[1])), options);
        DistributedLock lock = client.getLock(args[2]);
        lock.lock();
        System.out.println("HELD");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
