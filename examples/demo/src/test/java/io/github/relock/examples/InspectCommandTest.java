package io.github.relock.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import io.github.relock.api.FencedLock;
import io.github.relock.api.ReadWriteDistributedLock;
import org.redisson.api.RedissonClient;

/**
 * {@code inspect} against locks that relock and Redisson really hold on the fixture's Redis:
 * reentrant (both), fair (Redisson holder, relock and Redisson waiters), read/write (Redisson), and
 * the answers for a missing name, an empty name, a key that is no lock, and an unreachable server.
 */
class InspectCommandTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static RedisServer redis;
    private static String url;
    private static RedisTarget target;
    private static RedissonClient redisson;
    private static io.lettuce.core.RedisClient lettuce;
    private static LockClient relock;

    @BeforeAll
    static void clients() {
        redis = RedisFixture.shared();
        url = redis.uri().toString();
        target = RedisTarget.parse(url);
        redisson = target.redisson();
        lettuce = target.lettuce();
        relock = RedisLocks.create(lettuce);
    }

    @AfterAll
    static void close() {
        relock.close();
        lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        RedisTarget.shutdown(redisson);
    }

    private static Cli inspect(String name, String... more) {
        String[] args = new String[3 + more.length];
        args[0] = "inspect";
        args[1] = name;
        args[2] = "--url=" + url;
        System.arraycopy(more, 0, args, 3, more.length);
        return Cli.run(args);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Parses {@code inspect --json} output: one JSON object. */
    private static JsonNode json(Cli run) {
        try {
            return JSON.readTree(run.out());
        } catch (java.io.IOException e) {
            throw new AssertionError("inspect --json printed no valid JSON: " + run, e);
        }
    }

    @Test
    void inspect_reentrantHeldByRelock_showsHolderHoldCountAndTtl() {
        String name = "inspect-test:relock-reentrant";
        DistributedLock lock = relock.getLock(name);
        try (OwnerThread owner = new OwnerThread()) {
            owner.run(lock::lock);
            owner.run(lock::lock);
            String field = relock.clientId() + ":" + owner.id();

            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().startsWith(name + "  reentrant lock, held, TTL "), text::toString);
            assertTrue(Pattern.compile("\\n    " + Pattern.quote(field) + " +exclusive +hold count 2\\n?").matcher(text.out()).find(),
                    text::toString);

            Cli json = inspect(name, "--json");
            assertEquals(Main.EXIT_OK, json.exitCode(), json::toString);
            JsonNode report = json(json);
            assertEquals(name, report.get("name").asText());
            assertTrue(report.get("found").asBoolean());
            assertEquals("reentrant", report.get("type").asText());
            JsonNode holder = report.get("holders").get(0);
            assertEquals(1, report.get("holders").size(), json::toString);
            assertEquals(field, holder.get("field").asText());
            assertEquals(relock.clientId(), holder.get("clientId").asText());
            assertEquals(owner.id(), holder.get("threadId").asLong());
            assertEquals(2, holder.get("holdCount").asInt());
            assertEquals("exclusive", holder.get("role").asText());
            assertTrue(report.get("ttlMs").asLong() > 0, json::toString);
            assertEquals(1, json.out().lines().count(), "one JSON object on one line");

            owner.run(lock::unlock);
            owner.run(lock::unlock);
        }
    }

    @Test
    void inspect_holderWithOwnerInfo_isNamedByApplicationAndHost() {
        String name = "inspect-test:owned";
        io.github.relock.api.OwnerInfo me = new io.github.relock.api.OwnerInfo("pod-7", "billing", "42", "2.4.1");
        try (LockClient owned = RedisLocks.create(lettuce,
                io.github.relock.api.LockOptions.builder().ownerInfo(me).build())) {
            DistributedLock lock = owned.getLock(name);
            try (OwnerThread owner = new OwnerThread()) {
                owner.run(lock::lock);
                Await.until(WAIT, () -> ((Long) redis.call("EXISTS", "relock:{clients}:" + owned.clientId())) == 1,
                        () -> "owner info registered");
                Cli text = inspect(name);
                assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
                assertTrue(text.out().contains("hold count 1  owner: billing 2.4.1 on pod-7, instance 42"), text::toString);
                JsonNode o = json(inspect(name, "--json")).get("holders").get(0).get("owner");
                assertEquals("pod-7", o.get("host").asText());
                assertEquals("billing", o.get("application").asText());
                owner.run(lock::unlock);
            }
        }
    }

    @Test
    void inspect_reentrantHeldByRedisson_showsRedissonsClientId() {
        String name = "inspect-test:redisson-reentrant";
        RLock lock = redisson.getLock(name);
        try (OwnerThread owner = new OwnerThread()) {
            owner.run(() -> lock.lock(60, TimeUnit.SECONDS));
            String field = redisson.getId() + ":" + owner.id();

            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().contains("reentrant lock, held, TTL "), text::toString);
            assertTrue(text.out().contains(field + "  exclusive  hold count 1"), text::toString);

            Cli json = inspect(name, "--json");
            JsonNode holder = json(json).get("holders").get(0);
            assertEquals(redisson.getId(), holder.get("clientId").asText());
            assertEquals(owner.id(), holder.get("threadId").asLong());
            assertEquals(1, holder.get("holdCount").asInt());
            owner.run(lock::unlock);
        }
    }

    @Test
    void inspect_relockLease_isMarkedAsLease() throws InterruptedException {
        String name = "inspect-test:relock-lease";
        try (LockLease lease = relock.getLock(name).acquire(WAIT)) {
            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(Pattern.compile(Pattern.quote(relock.clientId()) + ":-\\d+ +exclusive +hold count 1 +\\(a relock lease\\)")
                    .matcher(text.out()).find(), text::toString);
            assertTrue(lease.isValid());
        }
    }

    @Test
    void inspect_fairLock_showsHolderAndQueueInOrderWithDeadlines() throws Exception {
        String name = "inspect-test:fair";
        RLock redissonFair = redisson.getFairLock(name);
        DistributedLock relockFair = relock.getFairLock(name);
        String queueKey = "redisson_lock_queue:{" + name + "}";
        try (OwnerThread holder = new OwnerThread(); OwnerThread first = new OwnerThread();
                OwnerThread second = new OwnerThread()) {
            holder.run(redissonFair::lock);
            Future<?> firstWaits = first.start(relockFair::lock);
            Await.until(WAIT, () -> queueLength(queueKey) == 1, () -> "relock's waiter queued");
            Future<?> secondWaits = second.start(redissonFair::lock);
            Await.until(WAIT, () -> queueLength(queueKey) == 2, () -> "Redisson's waiter queued behind it");
            String holderField = redisson.getId() + ":" + holder.id();
            String firstField = relock.clientId() + ":" + first.id();
            String secondField = redisson.getId() + ":" + second.id();

            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().startsWith(name + "  fair lock, held, TTL "), text::toString);
            assertTrue(text.out().contains(holderField + "  exclusive  hold count 1"), text::toString);
            assertTrue(text.out().contains("  queue (2, head first)"), text::toString);
            assertTrue(Pattern.compile("    1\\. " + Pattern.quote(firstField) + " +deadline \\d{4}-\\d\\d-\\d\\dT[^ ]+Z \\(in \\d+\\.\\d s\\)")
                    .matcher(text.out()).find(), text::toString);
            assertTrue(text.out().indexOf("1. " + firstField) < text.out().indexOf("2. " + secondField), text::toString);

            Cli json = inspect(name, "--json");
            JsonNode report = json(json);
            assertEquals("fair", report.get("type").asText());
            JsonNode queue = report.get("queue");
            assertEquals(1, queue.get(0).get("position").asInt());
            assertEquals(firstField, queue.get(0).get("field").asText());
            assertEquals(2, queue.get(1).get("position").asInt());
            assertEquals(secondField, queue.get(1).get("field").asText());
            assertEquals(13, queue.get(0).get("deadlineEpochMs").asText().length(), json::toString);
            assertTrue(queue.get(0).get("deadlineInMs").asLong() >= 0, json::toString);
            assertEquals(0, report.get("unqueuedDeadlines").size(), json::toString);

            holder.run(redissonFair::unlock);
            firstWaits.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            first.run(relockFair::unlock);
            secondWaits.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            second.run(redissonFair::unlock);
        }
    }

    @Test
    void inspect_readLocks_showReadersHoldCountsAndTimeoutKeys() {
        String name = "inspect-test:rw-read";
        RReadWriteLock rw = redisson.getReadWriteLock(name);
        try (OwnerThread a = new OwnerThread(); OwnerThread b = new OwnerThread()) {
            a.run(rw.readLock()::lock);
            a.run(rw.readLock()::lock);
            b.run(rw.readLock()::lock);
            String fieldA = redisson.getId() + ":" + a.id();
            String fieldB = redisson.getId() + ":" + b.id();

            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().startsWith(name + "  read-write lock, mode read, held, TTL "), text::toString);
            assertTrue(text.out().contains(fieldA + "  read       hold count 2"), text::toString);
            assertTrue(text.out().contains(fieldB + "  read       hold count 1"), text::toString);
            assertTrue(text.out().contains("  read-hold timeout keys (3)"), text::toString);
            for (String key : List.of("{" + name + "}:" + fieldA + ":rwlock_timeout:1",
                    "{" + name + "}:" + fieldA + ":rwlock_timeout:2", "{" + name + "}:" + fieldB + ":rwlock_timeout:1")) {
                assertTrue(Pattern.compile(Pattern.quote(key) + " +TTL \\d+\\.\\d s").matcher(text.out()).find(),
                        key + "\n" + text);
            }

            Cli json = inspect(name, "--json");
            JsonNode report = json(json);
            assertEquals("read-write", report.get("type").asText());
            assertTrue(report.has("redis"), json::toString);
            assertEquals("read", report.findValue("mode").asText(), json::toString);
            String timeoutKey = "{" + name + "}:" + fieldA + ":rwlock_timeout:2";
            JsonNode key = null;
            for (JsonNode k : report.findParents("key")) {
                if (timeoutKey.equals(k.get("key").asText())) {
                    key = k;
                }
            }
            assertTrue(key != null, "no timeout key " + timeoutKey + " in " + json);
            assertEquals(fieldA, key.get("holder").asText());
            assertEquals(2, key.get("index").asInt());
            assertTrue(key.has("ttlMs"), json::toString);

            a.run(rw.readLock()::unlock);
            a.run(rw.readLock()::unlock);
            b.run(rw.readLock()::unlock);
        }
    }

    @Test
    void inspect_fencedLockHeldByRelock_showsLastTokenInTextAndJson() {
        String name = "inspect-test:fenced";
        FencedLock lock = relock.getFencedLock(name);
        try (OwnerThread owner = new OwnerThread()) {
            long[] token = new long[1];
            owner.run(() -> token[0] = lock.lockAndGetToken());

            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().startsWith(name + "  fenced lock, held, TTL "), text::toString);
            assertTrue(text.out().contains("  fencing token: " + token[0] + " (the last granted"), text::toString);

            JsonNode report = json(inspect(name, "--json"));
            assertEquals("fenced", report.get("type").asText());
            assertEquals(token[0], report.get("fencingToken").asLong());
            owner.run(lock::unlock);

            Cli free = inspect(name);
            assertEquals(Main.EXIT_OK, free.exitCode(), "a fenced lock's token outlives its holds: " + free);
            assertTrue(free.out().startsWith(name + "  fenced lock, free"), free::toString);
        } finally {
            relock.getLock(name).forceUnlock();
            try (var admin = redis.admin()) {
                admin.call("DEL", "redisson_lock_token:{" + name + "}");
            }
        }
    }

    @Test
    void inspect_relockReadLock_showsItsTimeoutKeyAsRedissonsWouldBe() {
        String name = "inspect-test:relock-rw";
        ReadWriteDistributedLock rw = relock.getReadWriteLock(name);
        try (OwnerThread owner = new OwnerThread()) {
            owner.run(rw.readLock()::lock);
            String field = relock.clientId() + ":" + owner.id();
            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().startsWith(name + "  read-write lock, mode read, held, TTL "), text::toString);
            assertTrue(Pattern.compile(Pattern.quote("{" + name + "}:" + field + ":rwlock_timeout:1") + " +TTL \\d+\\.\\d s")
                    .matcher(text.out()).find(), text::toString);
            owner.run(rw.readLock()::unlock);
        }
    }

    @Test
    void inspect_writeLockWithReadDowngrade_showsWriterAndReader() {
        String name = "inspect-test:{rw}-write"; // a name with '{': keys keep it as the hash tag
        RReadWriteLock rw = redisson.getReadWriteLock(name);
        try (OwnerThread w = new OwnerThread()) {
            w.run(rw.writeLock()::lock);
            w.run(rw.readLock()::lock);
            String field = redisson.getId() + ":" + w.id();

            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().startsWith(name + "  read-write lock, mode write, held"), text::toString);
            assertTrue(text.out().contains(field + ":write  write      hold count 1"), text::toString);
            assertTrue(text.out().contains(field + "        read       hold count 1"), text::toString);
            assertTrue(text.out().contains(name + ":" + field + ":rwlock_timeout:1  TTL "), text::toString);

            Cli json = inspect(name, "--json");
            JsonNode report = json(json);
            assertEquals("write", report.findValue("mode").asText(), json::toString);
            JsonNode writer = null;
            for (JsonNode h : report.findParents("field")) {
                if ((field + ":write").equals(h.get("field").asText())) {
                    writer = h;
                }
            }
            assertTrue(writer != null, "no writer " + field + ":write in " + json);
            assertEquals(redisson.getId(), writer.get("clientId").asText());
            assertEquals(w.id(), writer.get("threadId").asLong());
            assertEquals(1, writer.get("holdCount").asInt());
            assertEquals("write", writer.get("role").asText());

            w.run(rw.readLock()::unlock);
            w.run(rw.writeLock()::unlock);
        }
    }

    @Test
    void inspect_unknownName_oneLineAndExitOne() {
        Cli text = inspect("inspect-test:nobody-has-this");
        assertEquals(Main.EXIT_FAILED, text.exitCode(), text::toString);
        assertEquals("no lock named 'inspect-test:nobody-has-this': nobody holds it or waits for it (no key "
                + "'inspect-test:nobody-has-this', no fair queue 'redisson_lock_queue:{inspect-test:nobody-has-this}')\n",
                text.out());

        Cli json = inspect("inspect-test:nobody-has-this", "--json");
        assertEquals(Main.EXIT_FAILED, json.exitCode(), json::toString);
        JsonNode report = json(json);
        assertEquals("inspect-test:nobody-has-this", report.get("name").asText());
        assertFalse(report.get("found").asBoolean());
        assertEquals("none", report.get("type").asText());
        assertEquals(1, json.out().lines().count());
    }

    @Test
    void inspect_emptyName_oneLineAndExitOne() {
        Cli text = inspect("");
        assertEquals(Main.EXIT_FAILED, text.exitCode(), text::toString);
        assertEquals("the lock name is empty: pass the name given to getLock(...)\n", text.out());
    }

    @Test
    void inspect_keyThatIsNoLock_saysWhatItIs() {
        try {
            redis.call("SET", "inspect-test:plain-string", "hello");
            Cli text = inspect("inspect-test:plain-string");
            assertEquals(Main.EXIT_FAILED, text.exitCode(), text::toString);
            assertEquals("'inspect-test:plain-string' is a string key, not a lock: relock and Redisson keep a lock in a hash\n",
                    text.out());

            redis.call("HSET", "inspect-test:plain-hash", "colour", "blue");
            Cli hash = inspect("inspect-test:plain-hash");
            assertEquals(Main.EXIT_FAILED, hash.exitCode(), hash::toString);
            assertTrue(hash.out().startsWith("'inspect-test:plain-hash' is a hash but not a lock"), hash::toString);
        } finally {
            redis.call("DEL", "inspect-test:plain-string", "inspect-test:plain-hash"); // REDIS_URL may be a shared server
        }
    }

    @Test
    void inspect_permitExpirableSemaphore_showsAvailableAndHeldPermitsWithDeadlines() throws Exception {
        String name = "inspect-test:pes";
        var relockSem = relock.getPermitExpirableSemaphore(name);
        try {
            relockSem.trySetPermits(3);
            String leased = relockSem.acquire(60, TimeUnit.SECONDS);
            String byRedisson = redisson.getPermitExpirableSemaphore(name).acquire();
            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().startsWith(name + "  permit-expirable semaphore, 1 available, 2 held (3 in all), no TTL"),
                    text::toString);
            assertTrue(Pattern.compile("\\n    " + leased + "  deadline \\S+ \\(in \\d+\\.\\d s\\)").matcher(text.out()).find(),
                    text::toString);
            assertTrue(text.out().contains(byRedisson + "  never expires"), text::toString);
            JsonNode j = json(inspect(name, "--json"));
            assertEquals("permit-expirable-semaphore", j.get("type").asText());
            assertEquals(2, j.get("heldPermits").asInt());
            assertEquals(leased, j.get("permits").get(0).get("id").asText(), "earliest deadline first");
        } finally {
            relockSem.delete();
        }
    }

    @Test
    void inspect_semaphoreOrLatch_showsTheCount() {
        String name = "inspect-test:sem";
        try {
            relock.getSemaphore(name).trySetPermits(4);
            Cli text = inspect(name);
            assertEquals(Main.EXIT_OK, text.exitCode(), text::toString);
            assertTrue(text.out().startsWith(name + "  semaphore or count-down latch, count 4, no TTL"), text::toString);
            assertEquals("semaphore-or-latch", json(inspect(name, "--json")).get("type").asText());
        } finally {
            relock.getSemaphore(name).delete();
        }
    }

    @Test
    void inspect_unreachableOrBadUrl_exitThreeOrTwo() {
        Cli down = Cli.run("inspect", "x", "--url", "redis://127.0.0.1:" + ClosedPort.find());
        assertEquals(Main.EXIT_UNREACHABLE, down.exitCode(), down::toString);
        assertTrue(down.err().startsWith("relock-examples: cannot reach Redis at redis://127.0.0.1:"), down::toString);
        assertEquals("", down.out());

        Cli bad = Cli.run("inspect", "x", "--url", "redis://:6379");
        assertEquals(Main.EXIT_USAGE, bad.exitCode(), bad::toString);
        assertTrue(bad.err().contains("bad Redis URL 'redis://:6379'"), bad::toString);

        Cli noName = Cli.run("inspect", "--url", url);
        assertEquals(Main.EXIT_USAGE, noName.exitCode(), noName::toString);
        assertTrue(noName.err().contains("inspect: which lock? (inspect <lockName>)"), noName::toString);
    }

    private static long queueLength(String key) {
        return (Long) redis.call("LLEN", key);
    }
}
