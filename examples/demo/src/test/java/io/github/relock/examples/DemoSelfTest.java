package io.github.relock.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * The demo's checks catch what they claim to: run against deliberately broken locks, the summary
 * says FAIL and the exit code is 1.
 */
@ExtendWith(RedisFixture.class)
class DemoSelfTest {

    /** Redisson's client for the counter, but each client's "lock" is a JVM-local lock of its own. */
    private static final class LocalOnlyLocks implements DemoClient {
        private final DemoClient real;
        private final Lock local = new ReentrantLock();
        private final ReadWriteLock localReadWrite = new ReentrantReadWriteLock();

        LocalOnlyLocks(DemoClient real) {
            this.real = real;
        }

        @Override
        public String id() {
            return real.id();
        }

        @Override
        public String displayName() {
            return "broken/" + real.id();
        }

        @Override
        public Lock reentrantLock(String name) {
            return local;
        }

        @Override
        public Lock fairLock(String name) {
            return local;
        }

        @Override
        public ReadWriteLock readWriteLock(String name) {
            return localReadWrite;
        }

        @Override
        public String holderField(long threadId) {
            return real.holderField(threadId);
        }

        @Override
        public String get(String key) {
            return real.get(key);
        }

        @Override
        public void set(String key, String value) {
            real.set(key, value);
        }

        @Override
        public void close() {
            real.close();
        }
    }

    @Test
    void demo_locksThatDoNotExcludeAcrossClients_reportLostUpdatesAndExitOne(RedisServer redis) throws Exception {
        RedisTarget target = RedisTarget.parse(redis.uri().toString());
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            Demo demo = new Demo(new Demo.Options(3, 2, List.of("jedis", "redisson")), target, out,
                    id -> new LocalOnlyLocks(id.equals("jedis") ? RelockDemoClient.overJedis(target) : new RedissonDemoClient(target)));
            code = demo.run();
        }
        String text = buf.toString(StandardCharsets.UTF_8);

        assertEquals(Main.EXIT_FAILED, code, text);
        assertTrue(Pattern.compile("FAIL {2}counter = \\d+, acquisitions = \\d+ \\(\\d+ lost updates\\)").matcher(text).find(), text);
        assertTrue(Pattern.compile("FAIL {2}[1-9]\\d* overlaps").matcher(text).find(), text);
        assertTrue(text.contains("FAIL  no release found a waiter in redisson_lock_queue:{relock-demo:fair}"), text);
        String readWrite = text.substring(text.indexOf("-- read-write lock summary"));
        assertTrue(Pattern.compile("FAIL {2}counter = \\d+, write acquisitions = \\d+ \\(\\d+ lost updates\\)").matcher(readWrite).find(),
                "the read-write phase must catch writers of two clients losing updates\n" + text);
        assertTrue(Pattern.compile("FAIL {2}[1-9]\\d* reader-writer overlaps").matcher(readWrite).find(),
                "the read-write phase must catch one client's reader inside beside another's writer\n" + text);
        assertTrue(Pattern.compile("FAIL {2}[1-9]\\d* writer overlaps").matcher(readWrite).find(),
                "the read-write phase must catch writers of two clients inside at once\n" + text);
        assertTrue(text.contains("RESULT: FAILED"), text);
    }

    @Test
    void readWriteChecks_readerBesideWriterAndTwoWriters_areCountedApart(RedisServer redis) {
        RedisTarget target = RedisTarget.parse(redis.uri().toString());
        try (RedisClient admin = target.jedis()) {
            Phase phase = Phase.readWrite("self-test", "self-test:read-write", List.of("x"), admin);
            phase.reset();
            phase.register("w:1", "writer-1");
            phase.register("w:2", "writer-2");

            phase.readEntered("x", "r:1", 0);
            phase.readEntered("x", "r:2", 0); // two readers share the lock: fine
            assertEquals(2, phase.maxReaders());
            phase.entered("x", "w:1", 0);     // a writer beside them
            assertEquals(1, phase.readerWriterOverlaps.sum());
            phase.readLeaving();
            phase.readLeaving();
            phase.readEntered("x", "r:3", 0); // a reader beside the writer
            assertEquals(2, phase.readerWriterOverlaps.sum());
            phase.readLeaving();
            assertEquals(0, phase.overlaps.sum());
            phase.entered("x", "w:2", 0);     // a second writer
            assertEquals(1, phase.overlaps.sum());
            assertEquals(2, phase.readerWriterOverlaps.sum());
            phase.leaving("w:2");
            phase.cleanUp();
        }
    }

    @Test
    void fairOrderCheck_nextHolderIsNotTheQueueHeadAtRelease_countsAViolation(RedisServer redis) {
        RedisTarget target = RedisTarget.parse(redis.uri().toString());
        try (RedisClient admin = target.jedis()) {
            Phase phase = new Phase("self-test", "self-test:fair-order", true, List.of("x"), admin);
            phase.reset();
            String queue = LockKeys.fairQueue(phase.lockName);
            phase.register("a:1", "worker-a");
            phase.register("b:2", "worker-b");
            phase.register("c:3", "worker-c");
            admin.rpush(queue, "b:2");

            phase.leaving("a:1");      // a releases while b heads the queue
            phase.entered("x", "c:3", 0); // but c takes the lock

            assertEquals(1, phase.orderChecks.sum());
            assertEquals(1, phase.orderViolations.sum());
            assertEquals(List.of("worker-c took the lock, but worker-b was at the head of the queue"), phase.problems());

            phase.leaving("c:3");      // c releases, b still heads the queue
            phase.entered("x", "b:2", 0); // and b takes it: in order
            assertEquals(2, phase.orderChecks.sum());
            assertEquals(1, phase.orderViolations.sum());
            admin.del(queue);
            phase.cleanUp();
        }
    }
}
