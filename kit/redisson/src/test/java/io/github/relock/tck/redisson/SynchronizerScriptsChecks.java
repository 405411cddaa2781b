package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The checks of relock's synchronizer scripts that hold for every Redisson line, and their
 * machinery. An embedded server with a Redisson client on it; the scripts of
 * {@code lock-core/.../scripts/sync/} run with plain EVAL (includes resolved as lock-core's
 * {@code Scripts} does); a PSUBSCRIBE connection that reads every message up to a marker, so "no
 * message" is checked without sleeping; a dump of keys (type, TTL, value, zset members as hex with
 * their scores); and the twin comparison: Redisson's operation on {@code r-<name>}, relock's script
 * on {@code l-<name>}, then the same keys and the same messages on each name's channel.
 *
 * <p>Only Redisson calls that exist alike in 3.17.7 and 4.x appear here: this module's
 * {@code SynchronizerScriptsInteropTest} runs the checks on Redisson 4.7.0 (adding those of newer
 * operations), {@code verification/interop-redisson3}'s {@code Redisson3SynchronizerScriptsTest} on 3.17.7,
 * through this module's test jar.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class SynchronizerScriptsChecks {
    private static final String SCRIPTS = "io/github/relock/core/internal/scripts/";
    protected static final String NEVER = "922337203685477";
    protected static final long TTL_SLACK_MS = 2_000;
    protected static final long WAKE_DEADLINE_S = 10;

    /** Dumps keys as {type, pttl, value}; a zset's value is "hexMember=score,..." by score. */
    private static final String DUMP = String.join("\n",
            "local out = {}",
            "for _, k in ipairs(KEYS) do",
            "  local t = redis.call('type', k)['ok']",
            "  local v = ''",
            "  if t == 'string' then v = redis.call('get', k)",
            "  elseif t == 'zset' then",
            "    local m = redis.call('zrange', k, 0, -1, 'withscores')",
            "    local parts = {}",
            "    for i = 1, #m, 2 do",
            "      parts[#parts + 1] = m[i]:gsub('.', function(c) return string.format('%02x', c:byte()) end)"
                    + " .. '=' .. m[i + 1]",
            "    end",
            "    v = table.concat(parts, ',')",
            "  end",
            "  out[#out + 1] = {t, redis.call('pttl', k), v}",
            "end",
            "return out");

    private static final Map<String, String> TEXTS = new ConcurrentHashMap<>();

    protected static RedisServer server;
    protected static RedissonClient redisson;

    protected RespClient redis;
    private RespClient listener;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    protected static void start() {
        server = RedisServer.startEmbedded();
        Config config = new Config();
        RedissonConfigs.connect(config, server);
        redisson = Redisson.create(config);
    }

    @AfterAll
    protected static void stop() {
        if (redisson != null) {
            redisson.shutdown(0, 5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    protected void connect() {
        redis = server.admin();
        redis.call("FLUSHALL");
        listener = server.admin();
        listener.call("PSUBSCRIBE", "*");
    }

    @AfterEach
    protected void close() {
        threads.shutdownNow();
        redis.close();
        listener.close();
    }

    // ---------------------------------------------------------------- RSemaphore

    @Test
    void semaphore_trySetPermits_twins() {
        semTwins(s -> assertTrue(s.trySetPermits(3)),
                l -> assertEquals(1L, run("semaphore-try-set-permits", List.of(l, semChannel(l)), "3", "PUBLISH")),
                List.of("3"));
        semTwins(s -> assertFalse(s.trySetPermits(7)),
                l -> assertEquals(0L, run("semaphore-try-set-permits", List.of(l, semChannel(l)), "7", "PUBLISH")),
                List.of());
    }

    @Test
    void semaphore_acquireReleaseAddDrain_twins() {
        both("sem", n -> redis.call("SET", n, "5", "PX", "60000"));
        semTwins(s -> assertTrue(s.tryAcquire(2)), l -> assertEquals(1L, run("semaphore-try-acquire", List.of(l), "2")),
                List.of());
        semTwins(s -> assertFalse(s.tryAcquire(4)), l -> assertEquals(0L, run("semaphore-try-acquire", List.of(l), "4")),
                List.of());
        semTwins(s -> s.release(3), l -> assertEquals(6L, release(l, "3")), List.of("6"));
        // a negative total is published as such (Redisson's own listener chokes on it)
        semTwins(s -> s.addPermits(-10), l -> assertEquals(-4L, addPermits(l, "-10")), List.of("-4"));
        semTwins(s -> assertEquals(-4, s.drainPermits()), l -> assertEquals(-4L, run("semaphore-drain", List.of(l))),
                List.of());
        semTwins(s -> s.addPermits(2), l -> assertEquals(2L, addPermits(l, "2")), List.of("2"));
        semTwins(s -> assertEquals(2, s.availablePermits()),
                l -> assertEquals(2L, run("semaphore-available", List.of(l))), List.of());
        semTwins(s -> assertTrue(s.delete()), l -> assertEquals(1L, run("sync-delete", List.of(l))), List.of());
        semTwins(s -> assertEquals(0, s.drainPermits()), l -> assertEquals(0L, run("semaphore-drain", List.of(l))),
                List.of());
        semTwins(s -> s.release(1), l -> assertEquals(1L, release(l, "1")), List.of("1"));
    }

    @Test
    void semaphore_mixed_eachTakesWhatTheOtherGaveBack() {
        RSemaphore s = redisson.getSemaphore("mix");
        assertEquals(1L, run("semaphore-try-set-permits", List.of("mix", semChannel("mix")), "2", "PUBLISH"));
        assertEquals(2, s.availablePermits());
        assertTrue(s.tryAcquire(2));
        assertEquals(0L, run("semaphore-try-acquire", List.of("mix"), "1"));
        assertEquals(1L, release("mix", "1"));
        assertEquals(1, s.availablePermits());
        assertFalse(s.tryAcquire(2));
        s.release(1);
        assertEquals(2L, run("semaphore-available", List.of("mix")));
        assertEquals(1L, run("semaphore-try-acquire", List.of("mix"), "2"));
        assertEquals(0, s.availablePermits());
    }

    @Test
    void semaphore_redissonAcquire_wokenByScriptRelease_andAddPermits() throws Exception {
        RSemaphore s = redisson.getSemaphore("wake");
        assertEquals(1L, run("semaphore-try-set-permits", List.of("wake", semChannel("wake")), "0", "PUBLISH"));
        // RSemaphore.acquire() parks on its local semaphore without a timer: only a message ends that
        Future<?> one = parked(() -> s.acquire(), "org.redisson.RedissonSemaphore");
        assertEquals(1L, release("wake", "1"));
        one.get(WAKE_DEADLINE_S, TimeUnit.SECONDS);

        Future<?> two = parked(() -> s.acquire(2), "org.redisson.RedissonSemaphore");
        assertEquals(2L, addPermits("wake", "2"));
        two.get(WAKE_DEADLINE_S, TimeUnit.SECONDS);
        assertEquals(0, s.availablePermits());
    }

    // ---------------------------------------------------------------- RPermitExpirableSemaphore

    @Test
    void expirable_scriptPermits_areTakenAndReleasedByRedisson() {
        String leased = newId();
        String forever = newId();
        RPermitExpirableSemaphore s = heldByScripts("pes", 2, forever, leased);
        assertEquals(0, s.availablePermits());
        assertNull(s.tryAcquire(), "no permit left for Redisson");
        assertTrue(s.updateLeaseTime(leased, 5, TimeUnit.SECONDS));
        long left = (Long) run("expirable-lease-time", pesKeys("pes"), leased, Long.toString(System.currentTimeMillis()),
                "PUBLISH");
        assertTrue(left > 0 && left <= 5_000, "lease left " + left);
        s.release(leased);
        assertTrue(s.tryRelease(forever));
        assertEquals(2, s.availablePermits());
        assertEquals(List.of(1L, 2L, 0L), state("pes"));
    }

    @Test
    void expirable_redissonPermits_areSeenUpdatedAndReleasedByScripts() throws InterruptedException {
        RPermitExpirableSemaphore s = redisson.getPermitExpirableSemaphore("pes");
        assertTrue(s.trySetPermits(1));
        String id = s.acquire(30, TimeUnit.SECONDS);
        assertNotNull(id);
        // Redisson's member is the 16 bytes the hex id stands for (the dump shows members as hex)
        String member = (String) ((List<?>) dump(List.of(leases("pes"))).get(0)).get(2);
        assertTrue(member.startsWith(id + "="), member + " for id " + id);
        long now = System.currentTimeMillis();
        Object earliest = acquire("pes", now, now + 1_000, newId());
        assertTrue(earliest instanceof Long, "not acquired, answers the earliest deadline: " + earliest);
        long left = (Long) earliest - now;
        assertTrue(left > 25_000 && left <= 30_000, "earliest deadline in " + left + " ms");
        Object lease = run("expirable-lease-time", pesKeys("pes"), id, Long.toString(System.currentTimeMillis()), "PUBLISH");
        assertTrue((Long) lease > 25_000 && (Long) lease <= 30_000, "lease " + lease);
        assertEquals(1L, run("expirable-update-lease", pesKeys("pes"), id, NEVER,
                Long.toString(System.currentTimeMillis()), "PUBLISH"));
        assertEquals(-1L, run("expirable-lease-time", pesKeys("pes"), id, Long.toString(System.currentTimeMillis()),
                "PUBLISH"));
        assertEquals(0L, acquire("pes", System.currentTimeMillis(), 0, newId()), "only a never-ending lease is held");
        assertEquals(1L, run("expirable-release", pesKeys("pes"), id.toUpperCase(),
                Long.toString(System.currentTimeMillis()), "PUBLISH"));
        assertEquals(-1L, run("expirable-release", pesKeys("pes"), id, Long.toString(System.currentTimeMillis()), "PUBLISH"));
        assertEquals(1, s.availablePermits());
        assertEquals(List.of(1L, 1L, 0L), state("pes"));
    }

    @Test
    void expirable_acquireOne_twins_reclaimOne_andCopyTheTtl() {
        long now = System.currentTimeMillis();
        endedLeases("pes", 3, now);
        // one of the 3 ended leases comes back (announced: 4), then one permit goes out for 20 s
        pesTwins(s -> assertNotNull(s.acquireAsync(20, TimeUnit.SECONDS).toCompletableFuture().join()),
                l -> assertNull(acquire(l, System.currentTimeMillis(), System.currentTimeMillis() + 20_000, newId())),
                List.of("4"));
        both("none", n -> {
            redis.call("SET", n, "0");
            zaddId(leases(n), now + 30_000, newId());
        });
        // nothing available, nothing ended: no change, no message; the script names the deadline
        twins("none", SynchronizerScriptsChecks::pesKeys, SynchronizerScriptsChecks::semChannel,
                r -> assertNull(redisson.getPermitExpirableSemaphore(r).tryAcquire()),
                l -> assertEquals(now + 30_000, acquire(l, System.currentTimeMillis(), Long.parseLong(NEVER), newId())),
                List.of());
    }

    @Test
    void expirable_releaseOne_twins() {
        long now = System.currentTimeMillis();
        String ended = newId();
        String live = newId();
        both("pes", n -> {
            redis.call("SET", n, "0");
            zaddId(leases(n), now - 2_000, ended);
            zaddId(leases(n), now - 1_000, newId());
            zaddId(leases(n), now + 60_000, live);
        });
        // an ended lease released by id: the permit goes back, the answer is false, nothing else reclaimed
        pesTwins(s -> assertFalse(s.tryRelease(ended)),
                l -> assertEquals(0L, run("expirable-release", pesKeys(l), ended, Long.toString(System.currentTimeMillis()),
                        "PUBLISH")),
                List.of("1"));
        pesTwins(s -> s.release(live),
                l -> assertEquals(1L, run("expirable-release", pesKeys(l), live, Long.toString(System.currentTimeMillis()),
                        "PUBLISH")),
                List.of("2"));
        pesTwins(s -> assertFalse(s.tryRelease(live)),
                l -> assertEquals(-1L, run("expirable-release", pesKeys(l), live, Long.toString(System.currentTimeMillis()),
                        "PUBLISH")),
                List.of());
    }

    @Test
    void expirable_reclaimAddUpdateDelete_twins() {
        long now = System.currentTimeMillis();
        String held = newId();
        both("pes", n -> {
            redis.call("SET", n, "1", "PX", "60000");
            zaddId(leases(n), now + 60_000, held);
            zaddId(leases(n), now - 1_000, newId());
        });
        pesTwins(s -> assertEquals(2, s.availablePermits()),
                l -> assertEquals(List.of(1L, 2L, 1L), state(l)), List.of("2"));
        pesTwins(s -> assertFalse(s.trySetPermits(9)),
                l -> assertEquals(0L, run("semaphore-try-set-permits", List.of(l, semChannel(l)), "9", "PUBLISH")),
                List.of());
        pesTwins(s -> s.addPermits(3), l -> assertEquals(5L, addExpirable(l, "3")), List.of("3"));
        pesTwins(s -> s.addPermits(-1), l -> assertEquals(4L, addExpirable(l, "-1")), List.of());
        pesTwins(s -> assertTrue(s.updateLeaseTime(held, 10, TimeUnit.SECONDS)),
                l -> assertEquals(1L, run("expirable-update-lease", pesKeys(l), held,
                        Long.toString(System.currentTimeMillis() + 10_000), Long.toString(System.currentTimeMillis()), "PUBLISH")),
                List.of());
        pesTwins(s -> assertFalse(s.updateLeaseTime(newId(), 10, TimeUnit.SECONDS)),
                l -> assertEquals(0L, run("expirable-update-lease", pesKeys(l), newId(), NEVER,
                        Long.toString(System.currentTimeMillis()), "PUBLISH")),
                List.of());
        pesTwins(s -> assertTrue(s.delete()), l -> assertEquals(2L, run("sync-delete", List.of(l, leases(l)))), List.of());
    }

    @Test
    void expirable_redissonAcquire_wokenByScriptRelease() throws Exception {
        RPermitExpirableSemaphore s = redisson.getPermitExpirableSemaphore("wake");
        assertEquals(1L, run("semaphore-try-set-permits", List.of("wake", semChannel("wake")), "1", "PUBLISH"));
        String id = newId();
        assertNull(acquire("wake", System.currentTimeMillis(), Long.parseLong(NEVER), id));
        // no lease ends, so Redisson's acquire() parks without a timer: only a message ends that
        AtomicReference<String> taken = new AtomicReference<>();
        Future<?> waiter = parked(() -> taken.set(s.acquire()), "org.redisson.RedissonPermitExpirableSemaphore");
        assertEquals(1L, run("expirable-release", pesKeys("wake"), id, Long.toString(System.currentTimeMillis()), "PUBLISH"));
        waiter.get(WAKE_DEADLINE_S, TimeUnit.SECONDS);
        assertEquals(32, taken.get().length());
        assertEquals(List.of(1L, 0L, 1L), state("wake"));
    }

    // ---------------------------------------------------------------- RCountDownLatch

    @Test
    void latch_twins() {
        latchTwins(c -> assertTrue(c.trySetCount(2)),
                l -> assertEquals(1L, run("latch-try-set-count", latchKeys(l), "2", "PUBLISH")), List.of("1"));
        latchTwins(c -> assertFalse(c.trySetCount(5)),
                l -> assertEquals(0L, run("latch-try-set-count", latchKeys(l), "5", "PUBLISH")), List.of());
        latchTwins(RCountDownLatch::countDown, l -> assertEquals(1L, countDown(l)), List.of());
        latchTwins(c -> assertEquals(1, c.getCount()), l -> assertEquals(1L, run("latch-count", List.of(l))), List.of());
        latchTwins(RCountDownLatch::countDown, l -> assertEquals(0L, countDown(l)), List.of("0"));
        latchTwins(RCountDownLatch::countDown, l -> assertEquals(-1L, countDown(l)), List.of());
        latchTwins(c -> assertEquals(0, c.getCount()), l -> assertEquals(0L, run("latch-count", List.of(l))), List.of());
        latchTwins(c -> assertTrue(c.trySetCount(1)),
                l -> assertEquals(1L, run("latch-try-set-count", latchKeys(l), "1", "PUBLISH")), List.of("1"));
        latchTwins(c -> assertTrue(c.delete()), l -> assertEquals(1L, run("latch-delete", latchKeys(l), "PUBLISH")),
                List.of("1"));
        latchTwins(c -> assertFalse(c.delete()), l -> assertEquals(0L, run("latch-delete", latchKeys(l), "PUBLISH")),
                List.of());
    }

    @Test
    void latch_mixed_andRedissonAwait_wokenByScriptCountDown() throws Exception {
        RCountDownLatch c = redisson.getCountDownLatch("gate");
        assertTrue(c.trySetCount(2));
        assertEquals(1L, countDown("gate"));
        assertEquals(1, c.getCount());
        c.countDown();
        assertEquals(0L, run("latch-count", List.of("gate")));

        assertEquals(1L, run("latch-try-set-count", latchKeys("gate"), "2", "PUBLISH"));
        // await() without a time parks on its local gate without a timer: only the "0" message opens it
        Future<?> waiter = parked(() -> c.await(), "org.redisson.RedissonCountDownLatch");
        assertEquals(1L, countDown("gate"));
        assertEquals(0L, countDown("gate"));
        waiter.get(WAKE_DEADLINE_S, TimeUnit.SECONDS);
        assertEquals(0, c.getCount());
    }

    // ---------------------------------------------------------------- twin comparison

    protected void semTwins(Consumer<RSemaphore> redissonOp, Consumer<String> relockOp, List<String> messages) {
        twins("sem", SynchronizerScriptsChecks::semKeys, SynchronizerScriptsChecks::semChannel,
                r -> redissonOp.accept(redisson.getSemaphore(r)), relockOp, messages);
    }

    protected void pesTwins(Consumer<RPermitExpirableSemaphore> redissonOp, Consumer<String> relockOp, List<String> messages) {
        twins("pes", SynchronizerScriptsChecks::pesKeys, SynchronizerScriptsChecks::semChannel,
                r -> redissonOp.accept(redisson.getPermitExpirableSemaphore(r)), relockOp, messages);
    }

    protected void latchTwins(Consumer<RCountDownLatch> redissonOp, Consumer<String> relockOp, List<String> messages) {
        twins("latch", n -> List.of(n), SynchronizerScriptsChecks::latchChannel,
                r -> redissonOp.accept(redisson.getCountDownLatch(r)), relockOp, messages);
    }

    /**
     * Runs Redisson's operation on {@code r-<base>} and relock's on {@code l-<base>}, then compares
     * what each left in Redis and what each published on its own channel.
     */
    protected void twins(String base, Function<String, List<String>> keys, Function<String, String> channel,
            Consumer<String> redissonOp, Consumer<String> relockOp, List<String> expectedMessages) {
        String r = "r-" + base;
        String l = "l-" + base;
        drain();
        redissonOp.accept(r);
        relockOp.accept(l);
        Map<String, List<String>> heard = drain();
        assertEquals(expectedMessages, heard.getOrDefault(channel.apply(r), List.of()), "Redisson's messages");
        assertEquals(expectedMessages, heard.getOrDefault(channel.apply(l), List.of()), "relock's messages");
        List<String> rKeys = keys.apply(r);
        List<String> lKeys = keys.apply(l);
        List<?> rDump = dump(rKeys);
        List<?> lDump = dump(lKeys);
        for (int i = 0; i < rKeys.size(); i++) {
            assertSameKey(rKeys.get(i) + " vs " + lKeys.get(i), (List<?>) rDump.get(i), (List<?>) lDump.get(i));
        }
    }

    private static void assertSameKey(String what, List<?> r, List<?> l) {
        assertEquals(r.get(0), l.get(0), what + ": type");
        assertSameTtl(what, (Long) r.get(1), (Long) l.get(1));
        if ("zset".equals(r.get(0))) {
            String[] rm = ((String) r.get(2)).split(",");
            String[] lm = ((String) l.get(2)).split(",");
            assertEquals(rm.length, lm.length, what + ": members " + r.get(2) + " vs " + l.get(2));
            for (int i = 0; i < rm.length; i++) {
                String[] rs = rm[i].split("=");
                String[] ls = lm[i].split("=");
                assertEquals(32, rs[0].length(), what + ": Redisson's member is 16 bytes");
                assertEquals(32, ls[0].length(), what + ": relock's member is 16 bytes");
                if (rs[1].equals(NEVER) || ls[1].equals(NEVER)) {
                    assertEquals(rs[1], ls[1], what + ": never-ending score");
                } else {
                    long diff = Math.abs(Long.parseLong(rs[1]) - Long.parseLong(ls[1]));
                    assertTrue(diff <= TTL_SLACK_MS, what + ": deadlines " + rs[1] + " vs " + ls[1]);
                }
            }
        } else {
            assertEquals(r.get(2), l.get(2), what + ": value");
        }
    }

    private static void assertSameTtl(String what, long r, long l) {
        if (r < 0 || l < 0) {
            assertEquals(r, l, what + ": PTTL");
        } else {
            assertTrue(Math.abs(r - l) <= TTL_SLACK_MS, what + ": PTTL " + r + " vs " + l);
        }
    }

    // ---------------------------------------------------------------- Redis helpers

    /** Messages per channel published since the last drain, read up to a marker published now. */
    protected Map<String, List<String>> drain() {
        String marker = "relock-test-marker-" + newId();
        redis.call("PUBLISH", marker, "end");
        Map<String, List<String>> heard = new LinkedHashMap<>();
        while (true) {
            List<?> m = (List<?>) listener.readReply(); // pmessage, pattern, channel, payload (5 s socket timeout)
            String ch = (String) m.get(2);
            if (ch.equals(marker)) {
                return heard;
            }
            heard.computeIfAbsent(ch, k -> new ArrayList<>()).add((String) m.get(3));
        }
    }

    /** A Redisson call that blocks. */
    protected interface Blocking {
        void run() throws Exception;
    }

    /**
     * Starts {@code call} on a thread and returns once that thread is parked in a
     * {@code java.util.concurrent} wait called from {@code redissonClass}'s own waiting loop (after
     * its subscription and its attempt), i.e. where Redisson has no timer and only a message helps.
     */
    protected Future<?> parked(Blocking call, String redissonClass) throws InterruptedException {
        AtomicReference<Thread> worker = new AtomicReference<>();
        Future<?> f = threads.submit(() -> {
            worker.set(Thread.currentThread());
            call.run();
            return null;
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAKE_DEADLINE_S);
        while (true) {
            Thread t = worker.get();
            if (t != null && parkedIn(t.getStackTrace(), redissonClass)) {
                return f;
            }
            assertFalse(f.isDone(), "the Redisson call returned without waiting");
            assertTrue(System.nanoTime() < deadline, "no thread parked in " + redissonClass);
            Thread.sleep(5); // polling a condition, bounded by the deadline above
        }
    }

    private static boolean parkedIn(StackTraceElement[] stack, String redissonClass) {
        for (int i = 0; i + 1 < stack.length; i++) {
            boolean localWait = stack[i].getClassName().equals("java.util.concurrent.Semaphore")
                    || stack[i].getClassName().equals("org.redisson.misc.ReclosableLatch");
            if (localWait && stack[i + 1].getClassName().equals(redissonClass)) {
                return true;
            }
        }
        return false;
    }

    protected List<?> dump(List<String> keys) {
        return (List<?>) run(DUMP, keys);
    }

    /**
     * Sets {@code permits} on the permit-expirable semaphore {@code name} and takes, all with the
     * scripts, {@code forever} without end and every id of {@code leased} for 60 s.
     */
    protected RPermitExpirableSemaphore heldByScripts(String name, int permits, String forever, String... leased) {
        assertEquals(1L, run("semaphore-try-set-permits", List.of(name, semChannel(name)), Integer.toString(permits), "PUBLISH"));
        long now = System.currentTimeMillis();
        assertNull(acquire(name, now, now + 60_000, leased));
        assertNull(acquire(name, now, Long.parseLong(NEVER), forever));
        return redisson.getPermitExpirableSemaphore(name);
    }

    /**
     * Twins of a permit-expirable semaphore with {@code n} permits available for a minute and
     * {@code n} leases that ended about 5 s before {@code now}.
     */
    protected void endedLeases(String base, int n, long now) {
        both(base, name -> {
            redis.call("SET", name, Integer.toString(n), "PX", "60000");
            for (int i = 0; i < n; i++) {
                zaddId(leases(name), now - 5_000 + i, newId());
            }
        });
    }

    protected void both(String base, Consumer<String> setup) {
        setup.accept("r-" + base);
        setup.accept("l-" + base);
    }

    protected void zaddId(String key, long score, String hexId) {
        run("--@include sync/permit-id\nreturn redis.call('zadd', KEYS[1], ARGV[1], permit_bytes(ARGV[2]))",
                List.of(key), Long.toString(score), hexId);
    }

    protected Object acquire(String name, long now, long deadline, String... ids) {
        List<String> args = new ArrayList<>(List.of(Long.toString(now), Long.toString(deadline), "PUBLISH"));
        args.addAll(List.of(ids));
        return run("expirable-acquire", pesKeys(name), args.toArray(String[]::new));
    }

    protected Object releaseMany(String name, String... ids) {
        List<String> args = new ArrayList<>(List.of(Long.toString(System.currentTimeMillis()), "PUBLISH"));
        args.addAll(List.of(ids));
        return run("expirable-release-many", pesKeys(name), args.toArray(String[]::new));
    }

    protected Object state(String name) {
        return run("expirable-state", pesKeys(name), Long.toString(System.currentTimeMillis()), "PUBLISH");
    }

    protected Object setPermits(String name, String permits) {
        return run("expirable-set-permits", pesKeys(name), permits, "PUBLISH");
    }

    protected Object addExpirable(String name, String permits) {
        return run("semaphore-add-permits", List.of(name, semChannel(name)), permits, "PUBLISH", "expirable");
    }

    protected Object release(String name, String permits) {
        return run("semaphore-release", List.of(name, semChannel(name)), permits, "PUBLISH");
    }

    protected Object addPermits(String name, String permits) {
        return run("semaphore-add-permits", List.of(name, semChannel(name)), permits, "PUBLISH");
    }

    protected Object countDown(String name) {
        return run("latch-count-down", latchKeys(name), "PUBLISH");
    }

    /**
     * EVAL of a script: {@code name} is a file of {@code scripts/sync/} (without {@code .lua}), or,
     * when it contains a newline, the script text itself.
     */
    protected Object run(String name, List<String> keys, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add("EVAL");
        cmd.add(name.contains("\n") ? resolve(name) : TEXTS.computeIfAbsent(name, n -> resolve(read("sync/" + n + ".lua"))));
        cmd.add(Integer.toString(keys.size()));
        cmd.addAll(keys);
        cmd.addAll(List.of(args));
        return redis.call(cmd.toArray(String[]::new));
    }

    /** The {@code --@include name} lines become {@code scripts/fragments/name.lua}, as lock-core's Scripts does. */
    private static String resolve(String raw) {
        StringBuilder text = new StringBuilder();
        for (String line : raw.split("\n", -1)) {
            if (line.startsWith("--@include ")) {
                text.append(read("fragments/" + line.substring("--@include ".length()).strip() + ".lua"));
            } else {
                text.append(line).append('\n');
            }
        }
        return text.toString();
    }

    private static String read(String path) {
        try (InputStream in = SynchronizerScriptsChecks.class.getClassLoader().getResourceAsStream(SCRIPTS + path)) {
            assertNotNull(in, "missing script resource " + SCRIPTS + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- names (sync spec 1.1)

    protected static String semChannel(String name) {
        return name.contains("{") ? "redisson_sc:" + name : "redisson_sc:{" + name + "}";
    }

    protected static String leases(String name) {
        return name.contains("{") ? name + ":timeout" : "{" + name + "}:timeout";
    }

    protected static String latchChannel(String name) {
        return "redisson_countdownlatch__channel__{" + name + "}";
    }

    protected static List<String> semKeys(String name) {
        return List.of(name);
    }

    protected static List<String> pesKeys(String name) {
        return List.of(name, leases(name), semChannel(name));
    }

    protected static List<String> latchKeys(String name) {
        return List.of(name, latchChannel(name));
    }

    protected static String newId() {
        byte[] b = new byte[16];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
