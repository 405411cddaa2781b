package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.RedisLocks;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.NotSentException;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 27: queued calls and the renewal lane. A driver that queues async calls (for a thread of
 * its own, a pooled connection, or behind a pipeline) must keep two promises of the
 * {@code CommandExecutor} contract: a call still unsent when its command timeout has passed is
 * never sent, and fails as <i>not sent</i> (a {@code NotSentException}); and the watchdog's
 * renewals ({@code evalAsync} on {@code Lane.RENEWAL}) never wait behind the application's async
 * calls. Without the first, a release stuck behind a stall runs seconds after its caller gave up
 * on it, when a waiter has already acted on its absence (review 3, finding 1); without the second,
 * a burst of application calls delays a renewal past a short lease.
 *
 * <p>The kit stalls a driver from outside: {@code CLIENT PAUSE ... WRITE} holds every script on
 * the server, and slow scripts (a Lua loop on the server's clock) keep a driver's queue full for
 * a known time whatever the machine's speed.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("queued-calls")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class QueuedCallsChapter extends TckChapter {
    /** The system property that runs rule 27.2 on every topology, not only on one server. */
    public static final String EVERY_TOPOLOGY = "relock.tck.lanesEveryTopology";
    private static final String RAN = "{tck:lane}:ran";
    private static final String FENCE = "{tck:lane}:fence";
    private static final String LATE = "{tck:lane}:late";
    /** Records that it ran, and whether the kit's fence (set once the stall is over) was there already. */
    private static final Script MARK = new Script("tck-lane-mark-" + UUID.randomUUID(),
            "if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('SADD', KEYS[3], ARGV[1]) end\n"
                    + "redis.call('SADD', KEYS[1], ARGV[1])\nreturn ARGV[1]");
    /**
     * Keeps the server busy for ARGV[1] microseconds of its own clock, unless KEYS[1] (stop) exists.
     * Redis 7.4 and Valkey 8 freeze {@code TIME} for the length of a script (a loop on it never
     * ends) but give scripts {@code os.clock()} (the server's CPU time); Redis 6.2 and 7.0 have no
     * {@code os} and a {@code TIME} that moves.
     */
    private static final Script BUSY = new Script("tck-lane-busy-" + UUID.randomUUID(),
            "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end\n"
                    + "local os_ = rawget(_G, 'os')\n"
                    + "if os_ and os_.clock then\n"
                    + "  local stop = os_.clock() + tonumber(ARGV[1]) / 1000000\n"
                    + "  repeat until os_.clock() >= stop\n"
                    + "  return 1\n"
                    + "end\n"
                    + "local t = redis.call('TIME')\n"
                    + "local start = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
                    + "repeat t = redis.call('TIME') until tonumber(t[1]) * 1000000 + tonumber(t[2]) - start"
                    + " >= tonumber(ARGV[1])\nreturn 1");

    /** @param kit the enclosing kit */
    protected QueuedCallsChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 27.1: an async call that could not be sent within the command timeout is never sent
     * later: with the server paused, 1,000 async calls on an executor with a 500 ms command timeout
     * fill whatever queue the driver has; 1.5 s later the kit unpauses the server and sets a fence
     * key. A call sent in time was held by the pause and runs before the fence; a call the driver
     * sends only now (it waited in its queue past its deadline) finds the fence and is caught. A
     * call the driver reported <i>not sent</i> must not have run at all.
     * When it fails: the driver's async queue (its threads' queue, or a pool's) has no deadline:
     * check the call's age when a thread takes it, and fail it as not sent (a
     * {@code NotSentException}) when it is older than the command timeout; or the driver reports a
     * call not sent that it then sends.
     */
    @Test
    void rule27_1_asyncCallQueuedPastTheCommandTimeout_neverSentAndFailsAsNotSent() throws Exception {
        Duration timeout = Duration.ofMillis(500);
        CommandExecutor ex = kit.closeAfterTest(kit.provider().create(kit.nativeClient(),
                new DriverOptions(timeout, "relock-tck")));
        List<String> keys = List.of(RAN, FENCE, LATE);
        ex.eval(ScriptCall.byText(MARK, keys, List.of("warm")));
        List<CompletableFuture<Object>> warm = new ArrayList<>();
        for (int i = 0; i < 16; i++) { // starts the driver's threads and connections
            warm.add(ex.evalAsync(ScriptCall.bySha(MARK, keys, List.of("warm")), Lane.APPLICATION));
        }
        CompletableFuture.allOf(warm.toArray(CompletableFuture[]::new)).get(30, java.util.concurrent.TimeUnit.SECONDS);
        int n = 1000;
        List<CompletableFuture<Object>> calls = new ArrayList<>(n);
        try (RespClient admin = kit.topology().adminFor(RAN)) {
            // WRITE: scripts are held (EVAL/EVALSHA count as writes), CLIENT UNPAUSE is not
            admin.call("CLIENT", "PAUSE", "20000", "WRITE");
            try {
                for (int i = 0; i < n; i++) {
                    calls.add(ex.evalAsync(ScriptCall.bySha(MARK, keys, List.of(Integer.toString(i))), Lane.APPLICATION));
                }
                // every call's deadline passes while nothing can run
                Await.holdsFor(timeout.plusSeconds(1), () -> calls.stream().noneMatch(QueuedCallsChapter::succeeded),
                        () -> "a script ran while the server was paused");
            } finally {
                admin.call("CLIENT", "UNPAUSE");
            }
            // Calls the server received during the pause ran before UNPAUSE answered; this fence is
            // there for every call sent from now on.
            admin.call("SET", FENCE, "1");
        }
        Await.until(Duration.ofSeconds(60), () -> calls.stream().allMatch(CompletableFuture::isDone),
                () -> calls.stream().filter(f -> !f.isDone()).count() + " of " + n + " calls never completed");
        Set<Integer> notSent = new TreeSet<>();
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Throwable t = failure(calls.get(i));
            if (t == null) {
                continue;
            }
            if (!(t instanceof RedisUnavailableException)) {
                wrong.add(i + ": " + t);
            } else if (failedAsNotSent(t)) {
                notSent.add(i);
            }
        }
        Set<Integer> ran = members(RAN);
        Set<Integer> late = members(LATE);
        redis("DEL", RAN, FENCE, LATE);
        assertEquals(List.of(), wrong.subList(0, Math.min(5, wrong.size())),
                wrong.size() + " calls failed with other than RedisUnavailableException");
        assertTrue(late.isEmpty(), late.size() + " of " + n + " async calls were sent after they had waited more than"
                + " the command timeout (" + timeout.toMillis() + " ms) and a second: the driver's queue has no deadline"
                + " (the first: " + first(late) + "; " + notSent.size() + " failed as not sent)");
        ran.retainAll(notSent);
        assertTrue(ran.isEmpty(), ran.size() + " calls reported not sent ran anyway: " + first(ran));
    }

    /**
     * Rule 27.2: renewals never wait behind the application's async calls: a client with a 3 s
     * watchdog holds a lock while 10,000 slow async calls (0.4 ms of server time each, 4 s in all)
     * are queued on its executor; for 6 s, and until the calls have drained, no hold is reported
     * lost (neither NOT_HELD nor RENEWAL_FAILED), and the lock is still held. Runs on one server;
     * on the other topologies with {@value #EVERY_TOPOLOGY} set (the drivers' {@code -Pfull}).
     * When it fails: the driver's {@code Lane.RENEWAL} calls (the watchdog's) share the
     * application's queue or connection: give them a lane of their own (a thread
     * and a connection of their own, or a connection of their own on a pipelining client).
     */
    @Test
    void rule27_2_tenThousandQueuedCalls_threeSecondWatchdog_noHoldLost() throws Exception {
        assumeTrue(kit.topology().kind() == RedisTopology.Kind.SINGLE || Boolean.getBoolean(EVERY_TOPOLOGY), () -> "runs on one server, and on the others with -D"
                + EVERY_TOPOLOGY + "=true (-Pfull): the renewal lane is the executor's, and 8 s a topology is"
                + " too much for the default build");
        AtomicReference<CommandExecutor> executor = new AtomicReference<>();
        LockClient c = kit.closeAfterTest(RedisLocks.create(new Capturing(kit.provider(), executor), kit.nativeClient(),
                LockOptions.builder().lockWatchdogTimeout(Duration.ofSeconds(3))
                        .commandTimeout(Duration.ofSeconds(20)).build()));
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        c.addLockLostListener(lost::add);
        String name = "tck:lane:held";
        String stop = "{" + name + "}:stop"; // routes the load to the lock's node; set, it ends the load
        List<String> busyKeys = List.of(stop);
        CommandExecutor ex = executor.get();
        ex.eval(ScriptCall.byText(BUSY, busyKeys, List.of("1")));
        DistributedLock lock = c.getLock(name);
        lock.lock();
        int n = 10_000;
        // 1 KB of padding a call: Redis reads a pipelining client 16 KB at a time and runs what it
        // read before it serves another connection, so a renewal on a connection of its own waits
        // for a dozen of these calls, not a few hundred
        List<String> busyArgs = List.of("400", "x".repeat(1024));
        List<CompletableFuture<Object>> load = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            load.add(ex.evalAsync(ScriptCall.bySha(BUSY, busyKeys, busyArgs), Lane.APPLICATION));
        }
        try {
            Await.holdsFor(Duration.ofSeconds(6), lost::isEmpty, () -> "a hold was reported lost while "
                    + load.stream().filter(f -> !f.isDone()).count() + " of " + n + " application calls were still"
                    + " queued: the renewal waited behind them: " + lost);
        } finally { // the lock's own calls below take the application's path: let the load drain first
            redis("SET", stop, "1");
            Await.until(Duration.ofSeconds(60), () -> load.stream().allMatch(CompletableFuture::isDone),
                    () -> load.stream().filter(f -> !f.isDone()).count() + " application calls never completed");
            // A driver's own timeout (Spring's connection factory: 5 s) completes a queued call's
            // future while the call itself may still wait in the connection's queue: the lock's own
            // calls below would queue behind the rest. Wait until a call on that path answers.
            Await.until(Duration.ofSeconds(60), () -> {
                try {
                    ex.eval(ScriptCall.byText(BUSY, busyKeys, List.of("1")));
                    return true;
                } catch (RuntimeException stillQueued) {
                    return false;
                }
            }, () -> "the application's path never answered again after the load");
        }
        redis("DEL", stop);
        assertEquals(List.of(), lost, "a hold was reported lost while the application's calls drained");
        assertTrue(lock.isHeldByCurrentThread(), "the lock expired under its holder");
        lock.unlock();
    }

    /**
     * Rule 27.3: an object's own command timeout ({@code withCommandTimeout}) bounds each of its
     * calls, blocking and async, locks and synchronizers alike: on a client whose command timeout is
     * 20 s, with the lock's node paused ({@code CLIENT PAUSE ... WRITE} holds every script), a lock's
     * {@code isLocked()} and {@code isLockedAsync()} and a semaphore's {@code availablePermitsAsync()}
     * from a view with a 200 ms timeout each fail with {@code RedisUnavailableException} naming that
     * timeout, all within 10 s (half the client's). The calls only read, so nothing runs late.
     * Runs on one server; on the other topologies with {@value #EVERY_TOPOLOGY} set.
     * When it fails: the engine sent the view's calls without its bound (a blocking call waited on
     * the driver's timeout, or an async future was not failed at the object's deadline).
     */
    @Test
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "engine: core bounds the object's calls over the"
            + " driver's async path, which rule 27.1 and the driver contract already hold to its deadline")
    void rule27_3_objectCommandTimeout_boundsEachCallOfThatObject_onAPausedServer() throws Exception {
        assumeTrue(kit.topology().kind() == RedisTopology.Kind.SINGLE || Boolean.getBoolean(EVERY_TOPOLOGY),
                () -> "runs on one server, and on the others with -D" + EVERY_TOPOLOGY + "=true (-Pfull): the bound"
                        + " is the engine's, the same on every topology");
        LockClient c = kit.newLockClient(LockOptions.builder().commandTimeout(Duration.ofSeconds(20)).build());
        Duration quick = Duration.ofMillis(200);
        LockClient view = c.withCommandTimeout(quick);
        String name = "tck:lane:quick";
        DistributedLock lock = view.getLock(name);
        io.github.relock.api.DistributedSemaphore permits = view.getSemaphore("{" + name + "}:permits");
        // loads the scripts and opens the driver's connections; every call later pauses on the one node
        assertTrue(!lock.isLocked() && permits.availablePermitsAsync().get(30, java.util.concurrent.TimeUnit.SECONDS) == 0,
                "a fresh lock or semaphore was not empty");
        List<Throwable> failures = new ArrayList<>();
        long took;
        try (RespClient admin = kit.topology().adminFor(name)) {
            admin.call("CLIENT", "PAUSE", "20000", "WRITE");
            long start = System.nanoTime();
            try {
                CompletableFuture<Boolean> async = lock.isLockedAsync();
                CompletableFuture<Integer> semaphore = permits.availablePermitsAsync();
                try {
                    lock.isLocked();
                    failures.add(null);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
                failures.add(failure(async));
                failures.add(failure(semaphore));
                took = (System.nanoTime() - start) / 1_000_000;
            } finally {
                admin.call("CLIENT", "UNPAUSE");
            }
        }
        List<String> calls = List.of("isLocked()", "isLockedAsync()", "availablePermitsAsync()");
        for (int i = 0; i < calls.size(); i++) {
            Throwable t = failures.get(i);
            String call = calls.get(i);
            assertTrue(t instanceof RedisUnavailableException && String.valueOf(t.getMessage()).contains(quick.toString()),
                    () -> call + " of a view with a " + quick.toMillis() + " ms command timeout, on a paused server,"
                            + " did not fail with RedisUnavailableException naming " + quick + ": " + t);
        }
        assertTrue(took < 10_000, "the view's calls took " + took + " ms to fail; its timeout is " + quick.toMillis()
                + " ms and the client's 20 s");
    }

    private static boolean succeeded(CompletableFuture<?> f) {
        return f.isDone() && !f.isCompletedExceptionally();
    }

    /** @return the future's failure, unwrapped, or null if it succeeded (it is done) */
    private static Throwable failure(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get();
            return null;
        } catch (ExecutionException e) {
            Throwable t = e.getCause();
            while (t instanceof CompletionException && t.getCause() != null) {
                t = t.getCause();
            }
            return t;
        }
    }

    private static boolean failedAsNotSent(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NotSentException) {
                return true;
            }
        }
        return false;
    }

    private Set<Integer> members(String key) {
        return ((List<?>) redis("SMEMBERS", key)).stream().map(String::valueOf).filter(s -> !s.equals("warm"))
                .map(Integer::valueOf).collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<Integer> first(Set<Integer> s) {
        return s.stream().limit(10).toList();
    }

    /** The driver under test, handing out the executor it made so the rule can queue calls on it. */
    private record Capturing(RedisDriverProvider real, AtomicReference<CommandExecutor> made)
            implements RedisDriverProvider {
        @Override
        public String name() {
            return real.name();
        }

        @Override
        public int spiVersion() {
            return real.spiVersion();
        }

        @Override
        public boolean supports(Object nativeClient) {
            return real.supports(nativeClient);
        }

        @Override
        public CommandExecutor create(Object nativeClient, DriverOptions options) {
            CommandExecutor e = real.create(nativeClient, options);
            made.set(e);
            return e;
        }

        @Override
        public boolean supportsUri(URI uri) {
            return false;
        }

        @Override
        public CommandExecutor connect(URI uri, DriverOptions options) {
            throw new IllegalArgumentException("the kit only hands clients in: " + uri);
        }
    }
}
