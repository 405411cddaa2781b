package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RespClient;
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
import org.redisson.Redisson;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * What the synchronizer-script checks share: an embedded server with a Redisson client on it, the
 * scripts of {@code lock-core/.../scripts/sync/} run with plain EVAL (includes resolved as
 * lock-core's {@code Scripts} does), a PSUBSCRIBE connection that reads every message up to a
 * marker (so "no message" is checked without sleeping), a dump of keys (type, TTL, value, zset
 * members as hex with their scores), and the twin comparison: Redisson's operation on
 * {@code r-<name>}, relock's script on {@code l-<name>}, then the same keys and the same messages
 * on each name's channel. Only Redisson calls that exist alike in 3.17.7 and 4.x are used here.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class SynchronizerScriptsFixture {
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

    // ---------------------------------------------------------------- twin comparison

    protected void semTwins(Consumer<RSemaphore> redissonOp, Consumer<String> relockOp, List<String> messages) {
        twins("sem", SynchronizerScriptsFixture::semKeys, SynchronizerScriptsFixture::semChannel,
                r -> redissonOp.accept(redisson.getSemaphore(r)), relockOp, messages);
    }

    protected void pesTwins(Consumer<RPermitExpirableSemaphore> redissonOp, Consumer<String> relockOp, List<String> messages) {
        twins("pes", SynchronizerScriptsFixture::pesKeys, SynchronizerScriptsFixture::semChannel,
                r -> redissonOp.accept(redisson.getPermitExpirableSemaphore(r)), relockOp, messages);
    }

    protected void latchTwins(Consumer<RCountDownLatch> redissonOp, Consumer<String> relockOp, List<String> messages) {
        twins("latch", n -> List.of(n), SynchronizerScriptsFixture::latchChannel,
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
        try (InputStream in = SynchronizerScriptsFixture.class.getClassLoader().getResourceAsStream(SCRIPTS + path)) {
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
