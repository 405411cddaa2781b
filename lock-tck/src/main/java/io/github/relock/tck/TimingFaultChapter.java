package io.github.relock.tck;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockException;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/*
 * Design: the kit half of the timing-fault chapter (issue 33 item 6; lock-core's TimingFaultTest is
 * the other half, on a model of the scripts). Here the scripts run on the kit's real Redis, through
 * the driver under test wrapped in a FaultInjectingDriver.
 *
 * One seed: three clients share one lock (reentrant in 29.1, fair in 29.2); two go through the
 * wrapper, one does not. Each client has two workers, each doing a few rounds planned from the seed:
 * lock or tryLock, blocking or async, sometimes re-entering; under the lock it increments a counter
 * with a non-atomic GET/SET and checks its field in the hash. The seed also draws each faulty
 * client's schedule: which call of which script has its reply delayed (reordering replies across
 * connections), lost after the script ran, or refused before sending; whether the async queue
 * stalls, and when; and the pub/sub rates: messages delayed (reordered), duplicated, or lost with
 * their connection (the engine is told of a "reconnect" later, as a driver tells it).
 *
 * What each seed checks, as the model does:
 *   one      no grant while another worker believed it held (History), and no lost increment
 *   field    every worker that holds the lock finds its field in the hash, with its hold count
 *   asleep   no worker inside an acquire while the lock is free past the liveness bound plus the
 *            longest fault (LivenessMonitor)
 *   holds    once every worker is done, no client keeps a hold (stats), and the lock's hash is gone
 *            within a lease: no field without a hold
 *   close    after the clients close, nothing is left in Redis (no queue entry, no key)
 * A seed fixes the faults, not the threads' interleaving (that is the machine's): a replay runs the
 * same schedule; run it a few times if the failure needs its interleaving too.
 */

/**
 * Chapter 29: exclusion under the world's timing, seeded. Each rule runs a few seeded fault
 * schedules against the kit's Redis through the driver under test wrapped in a
 * {@link FaultInjectingDriver}: replies late (and so reordered), lost after the script ran, or
 * refused before sending; the async queue stalled; pub/sub messages late, duplicated, or lost with
 * their connection. Per seed: one holder at a time, every hold's field in Redis, no waiter asleep on
 * a free lock, no hold or field left once all are released, nothing left after {@code close()}.
 *
 * <p>The "asleep" check is strict in the {@code timing-faults} profile, in a replay, and with
 * {@code -D}{@value #STRICT_LIVENESS_PROPERTY}{@code =true}; in the default build a waiter found
 * asleep is reported (printed, with the threads as they were, and counted in the rule's summary
 * line) but does not fail the rule: on loaded 2-core build machines, Spring Data over Lettuce showed
 * free stretches of 1.6 to 3.8 s that no replay or hogged run here reproduced (an open finding,
 * not yet explained), and a rule that turns a build red on the machine's load would hide every
 * other result. The safety checks (one, field, holds, close) are always strict.
 *
 * <p>{@value #DEFAULT_SEEDS} seed per rule runs by default (which one depends on the kit class's
 * name and topology, so a build's kit classes run different ones); {@code -Drelock.tck.timing.seeds=N} runs N
 * (the {@code timing-faults} profile runs 200), {@code -Drelock.tck.timing.firstSeed=S} starts at S, and {@code -Drelock.tck.timing.seed=S} runs seed S alone: a failing seed prints its
 * schedule, its history and that line.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("timing-faults")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class TimingFaultChapter extends TckChapter {
    /** System property: how many seeds each rule runs (default {@value #DEFAULT_SEEDS}). */
    public static final String SEEDS_PROPERTY = "relock.tck.timing.seeds";
    /**
     * System property: the first seed (default: one of 1 to 1000 drawn from the kit class's name
     * and topology, so the kit classes of a build run different seeds, each the same every build).
     */
    public static final String FIRST_SEED_PROPERTY = "relock.tck.timing.firstSeed";
    /** System property: run this one seed only (a replay). */
    public static final String SEED_PROPERTY = "relock.tck.timing.seed";
    /** System property: whether a waiter found asleep fails the rule (the profile and a replay set it). */
    public static final String STRICT_LIVENESS_PROPERTY = "relock.tck.timing.strictLiveness";
    /** Seeds per rule in the default build. */
    public static final int DEFAULT_SEEDS = 1;

    private static final int CLIENTS = 3;
    private static final int FAULTY = 2;
    private static final int WORKERS = 2;
    private static final int ROUNDS = 2;
    private static final Duration WATCHDOG = Duration.ofSeconds(3);
    private static final Duration FAIR_WAIT = Duration.ofSeconds(5);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    /** The longest single fault a schedule injects (a late reply, a stall, a late message or reconnect). */
    private static final Duration LONGEST_FAULT = Duration.ofMillis(300);

    /** @param kit the enclosing kit */
    protected TimingFaultChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 29.1: the reentrant lock, seeded timing faults on two of three clients: no overlap or
     * lost increment, every hold's field in Redis, no waiter asleep on a free lock (failing in the
     * {@code timing-faults} profile and a replay, reported in the default build), no hold or field
     * left once all released, nothing left after {@code close()}.
     * When it fails: the message names the seed, its schedule and history, and the property that
     * replays it; a missing field or an overlap after a late or lost release reply points at a
     * driver that runs a script twice or answers one it did not run.
     */
    @Test
    void rule29_1_reentrantLock_seededTimingFaults_oneHolder_holdsMatchRedis_noWaiterAsleep_nothingLeft() {
        runSeeds(false);
    }

    /**
     * Rule 29.2: as 29.1 on the fair lock, whose waiters also leave entries in its queue: none may
     * be left after {@code close()}.
     * When it fails: as 29.1; an entry left in the queue after close comes from an attempt whose
     * reply the engine never waited for.
     */
    @Test
    void rule29_2_fairLock_seededTimingFaults_oneHolder_holdsMatchRedis_noWaiterAsleep_nothingLeft() {
        runSeeds(true);
    }

    private void runSeeds(boolean fair) {
        String only = System.getProperty(SEED_PROPERTY);
        long first = only != null ? Long.parseLong(only) : Long.getLong(FIRST_SEED_PROPERTY,
                1 + Math.floorMod((kit.getClass().getSimpleName() + kit.topology().kind()).hashCode(), 1000));
        int seeds = only != null ? 1 : Integer.getInteger(SEEDS_PROPERTY, DEFAULT_SEEDS);
        long start = System.nanoTime();
        long grants = 0;
        long failures = 0;
        boolean strict = only != null || Boolean.getBoolean(STRICT_LIVENESS_PROPERTY);
        List<String> asleep = new ArrayList<>();
        List<String> orphans = new ArrayList<>();
        for (long s = first; s < first + seeds; s++) {
            Seed seed = new Seed(s, fair, strict);
            List<String> violations = seed.run();
            if (!seed.asleep.isEmpty()) {
                asleep.add("seed " + s);
                System.out.println("timing seed " + s + (fair ? " (fair lock)" : " (reentrant lock)") + " on "
                        + kit.getClass().getSimpleName() + ": a waiter was found asleep (reported; strict with -D"
                        + STRICT_LIVENESS_PROPERTY + "=true):\n  " + String.join("\n  ", seed.asleep)
                        + "\nschedule:\n  " + String.join("\n  ", seed.schedule) + "\nhistory:" + seed.history);
            }
            grants += seed.history.events().stream().filter(e -> e.op() == History.Op.GRANT).count();
            failures += seed.history.events().stream().filter(e -> e.op() == History.Op.ERROR).count();
            seed.orphans.forEach(o -> orphans.add("seed " + seed.seed + ": " + o));
            System.out.println("timing seed " + s + (fair ? " (fair lock)" : " (reentrant lock)") + ": " + seed.phases
                    + (only == null ? "" : "\nschedule:\n  " + String.join("\n  ", seed.schedule) + "\nhistory:"
                    + seed.history)); // a replay prints what it did
            if (!violations.isEmpty()) {
                String report = "timing seed " + s + (fair ? " (fair lock)" : " (reentrant lock)") + " failed on "
                        + kit.getClass().getSimpleName() + ":\n  " + String.join("\n  ", violations)
                        + "\nschedule:\n  " + String.join("\n  ", seed.schedule) + "\nhistory:" + seed.history
                        + "\nreplay: -D" + SEED_PROPERTY + "=" + s + " -Dgroups=timing-faults -Dtest="
                        + kit.getClass().getSimpleName() + " (on " + kit.topology().kind() + ")";
                System.out.println(report);
                throw new AssertionError(report);
            }
        }
        System.out.println("timing seeds " + first + ".." + (first + seeds - 1) + (fair ? " (fair lock)" : " (reentrant lock)")
                + " on " + kit.getClass().getSimpleName() + " (" + kit.topology().kind() + "): " + grants + " grants, " + failures
                + " injected failures met, " + (System.nanoTime() - start) / 1_000_000 + " ms; waiters found asleep"
                + (strict ? "" : " (reported, not failed)") + ": " + asleep + "; failed acquisitions"
                + " that left their field (given back by the caller): " + orphans);
    }

    /** One worker's round, planned from the seed. */
    private record Round(boolean async, boolean timed, long waitMillis, boolean reenter) {
    }

    /** One seed: its clients, schedule, workers and checks. */
    private final class Seed {
        final long seed;
        final boolean fair;
        final Random rng;
        final String lockName;
        final String counter;
        final List<String> schedule = new ArrayList<>();
        final List<String> violations = new CopyOnWriteArrayList<>();
        /** Asleep verdicts, when they do not fail the rule (not strict). */
        final List<String> asleep = new CopyOnWriteArrayList<>();
        final boolean strict;
        final List<String> fieldMismatches = new CopyOnWriteArrayList<>();
        /** Acquisitions that failed (a lost reply) yet left the caller's field in Redis. */
        final List<String> orphans = new CopyOnWriteArrayList<>();
        final History history = new History();
        /** How long each phase took, for the summary line. */
        final StringBuilder phases = new StringBuilder();
        private long phaseStart = System.nanoTime();

        private void phase(String what) {
            long now = System.nanoTime();
            phases.append(what).append(' ').append((now - phaseStart) / 1_000_000).append(" ms, ");
            phaseStart = now;
        }

        Seed(long seed, boolean fair, boolean strict) {
            this.seed = seed;
            this.strict = strict;
            this.fair = fair;
            this.rng = new Random(seed * 0x9E3779B97F4A7C15L + (fair ? 29_2 : 29_1));
            this.lockName = "tck:timing:" + (fair ? "fair-" : "lock-") + seed;
            this.counter = "tck:timing:counter-" + seed;
        }

        List<String> run() {
            LockOptions options = LockOptions.builder().lockWatchdogTimeout(WATCHDOG).commandTimeout(COMMAND_TIMEOUT)
                    .fairLockWaitTimeout(FAIR_WAIT).build();
            List<Object> natives = new ArrayList<>();
            List<LockClient> clients = new ArrayList<>();
            List<Faults> faults = new ArrayList<>();
            List<List<Round>> plans = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                for (int w = 0; w < WORKERS; w++) {
                    List<Round> plan = new ArrayList<>();
                    for (int r = 0; r < ROUNDS; r++) {
                        plan.add(new Round(rng.nextInt(3) == 0, rng.nextInt(3) == 0, 100 + rng.nextInt(900),
                                rng.nextInt(3) == 0));
                    }
                    plans.add(plan);
                }
            }
            try (LivenessMonitor monitor = new LivenessMonitor(kit.topology(),
                    kit.livenessBound().plus(LONGEST_FAULT.multipliedBy(3)))) {
                for (int c = 0; c < CLIENTS; c++) {
                    Object nativeClient = kit.newNativeClient(kit.topology());
                    natives.add(nativeClient);
                    Faults f = c < FAULTY ? schedule("client " + name(c, -1), new Faults()) : null;
                    faults.add(f);
                    LockClient client = RedisLocks.create(f == null ? kit.provider()
                            : new FaultInjectingDriver(kit.provider(), f), nativeClient, options);
                    clients.add(client);
                    List<String> workers = new ArrayList<>();
                    for (int w = 0; w < WORKERS; w++) {
                        workers.add(name(c, w));
                    }
                    client.addLockLostListener(e -> workers.forEach(who -> history.record(who, History.Op.LOST,
                            e.lockName(), -1, e.reason().toString())));
                }
                LivenessMonitor.Watched watched = monitor.watch(lockName, List.of(lockName), null, null);
                monitor.start();
                List<CompletableFuture<Void>> done = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    for (int w = 0; w < WORKERS; w++) {
                        done.add(worker(name(c, w), clients.get(c), plans.get(c * WORKERS + w), watched));
                    }
                }
                try {
                    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
                            .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    violations.add("done: the workers did not finish within " + DEADLINE + "; threads:\n"
                            + threadDump());
                    return violations;
                } catch (InterruptedException | ExecutionException e) {
                    violations.add("a worker failed: " + e);
                }
                phase("run");
                for (Faults f : faults) {
                    if (f != null) {
                        f.clear(); // the faults stop: what follows is the drain
                    }
                }
                monitor.stop();
                monitor.violations().forEach(v -> (strict ? violations : asleep).add("asleep: " + v));
                checkHistory();
                for (int c = 0; c < CLIENTS; c++) {
                    LockClient client = clients.get(c);
                    String who = name(c, -1);
                    if (!eventually(Duration.ofSeconds(5), () -> client.stats().heldLocks() == 0)) {
                        violations.add("holds: client " + who + " still keeps " + client.stats()
                                + " after all its workers released");
                    }
                }
                if (!eventually(WATCHDOG.plus(Duration.ofSeconds(2)), () -> (Long) redis("EXISTS", lockName) == 0)) {
                    violations.add("holds: the lock's hash outlived every hold by more than a lease: "
                            + redis("HGETALL", lockName) + " (PTTL " + pttl(lockName) + ")");
                }
                phase("drain");
                redis("DEL", counter);
                for (LockClient client : clients) {
                    client.close();
                }
                phase("close");
                if (!eventually(Duration.ofSeconds(5), () -> ((List<?>) redis("KEYS", "*")).isEmpty())) {
                    violations.add("close: keys left after every client closed: " + leftovers());
                }
                phase("after close");
            } finally {
                for (LockClient client : clients) {
                    client.close();
                }
                for (Object n : natives) {
                    kit.closeNativeClient(n);
                }
            }
            return violations;
        }

        private String leftovers() {
            StringBuilder b = new StringBuilder();
            for (Object k : (List<?>) redis("KEYS", "*")) {
                String key = String.valueOf(k);
                b.append(key).append(' ').append(redis("TYPE", key)).append(' ');
                b.append(switch (String.valueOf(redis("TYPE", key))) {
                    case "list" -> redis("LRANGE", key, "0", "-1");
                    case "hash" -> redis("HGETALL", key);
                    case "zset" -> redis("ZRANGE", key, "0", "-1", "WITHSCORES");
                    default -> "";
                }).append("; ");
            }
            return b.toString();
        }

        private void checkHistory() {
            History.Verdict v = history.check(null);
            if (v.silentOverlaps() > 0) {
                violations.add("one: " + v.silentOverlaps() + " grant(s) while another worker believed it held,"
                        + " never signalled by onLost");
            }
            long increments = redis("GET", counter) == null ? 0 : Long.parseLong(String.valueOf(redis("GET", counter)));
            boolean lost = history.events().stream().anyMatch(e -> e.op() == History.Op.LOST);
            if (increments != v.grants() && !lost) {
                violations.add("one: " + v.grants() + " grants but the counter under the lock reads " + increments
                        + " (an increment was lost to an overlapping holder)");
            }
            for (String m : fieldMismatches) {
                String actor = m.substring(0, m.indexOf(':'));
                boolean told = history.events().stream().anyMatch(e -> e.op() == History.Op.LOST
                        && actor.equals(e.actor()));
                if (!told) {
                    violations.add("field: " + m);
                }
            }
        }

        /** Draws a faulty client's schedule from the seed and installs it on {@code f}. */
        private Faults schedule(String client, Faults f) {
            String acquire = fair ? "fair-acquire" : "lock-acquire";
            String release = fair ? "fair-release" : "lock-release";
            int n = 1 + rng.nextInt(4);
            for (int i = 0; i < n; i++) {
                String script = rng.nextBoolean() ? acquire : release;
                int skip = rng.nextInt(4);
                int times = 1 + rng.nextInt(2);
                Faults.Rule rule = f.on(script).skip(skip).times(times);
                String calls = script + " calls " + (skip + 1) + ".." + (skip + times);
                int kind = rng.nextInt(10);
                if (kind < 6) {
                    Duration d = Duration.ofMillis(20 + rng.nextInt((int) LONGEST_FAULT.toMillis() - 20));
                    rule.delayReply(d);
                    schedule.add(client + ": " + calls + ": reply " + d.toMillis() + " ms late");
                } else if (kind < 8) {
                    rule.failAfterRun();
                    schedule.add(client + ": " + calls + ": reply lost after the script ran");
                } else {
                    rule.failBeforeSend();
                    schedule.add(client + ": " + calls + ": refused before sending");
                }
            }
            if (rng.nextBoolean()) {
                Duration d = Duration.ofMillis(20 + rng.nextInt(200));
                f.on("lock-renew").skip(rng.nextInt(2)).times(2).delayReply(d);
                schedule.add(client + ": lock-renew: 2 replies " + d.toMillis() + " ms late");
            }
            if (rng.nextInt(3) == 0) {
                long at = rng.nextInt(500);
                long length = 50 + rng.nextInt((int) LONGEST_FAULT.toMillis() - 50);
                schedule.add(client + ": async queue stalled at " + at + " ms for " + length + " ms");
                CompletableFuture.delayedExecutor(at, TimeUnit.MILLISECONDS).execute(() -> {
                    Faults.Stall stall = f.stallAsync();
                    CompletableFuture.delayedExecutor(length, TimeUnit.MILLISECONDS).execute(stall::release);
                });
            }
            double lose = rng.nextDouble() * 0.15;
            double twice = rng.nextDouble() * 0.3;
            double late = rng.nextDouble() * 0.3;
            Random messages = new Random(rng.nextLong());
            schedule.add(String.format("%s: pub/sub messages: %.0f%% lost with their connection, %.0f%% twice,"
                    + " %.0f%% late", client, lose * 100, twice * 100, late * 100));
            long longest = LONGEST_FAULT.toMillis();
            f.messages((channel, message) -> {
                synchronized (messages) {
                    double x = messages.nextDouble();
                    int ms = 5 + messages.nextInt((int) longest - 5);
                    if (x < lose) {
                        return new Faults.Delivery(0, Duration.ofMillis(ms));
                    } else if (x < lose + twice) {
                        return new Faults.Delivery(2, Duration.ofMillis(ms / 3));
                    } else if (x < lose + twice + late) {
                        return new Faults.Delivery(1, Duration.ofMillis(ms));
                    }
                    return Faults.Delivery.NOW;
                }
            });
            return f;
        }

        private CompletableFuture<Void> worker(String name, LockClient client, List<Round> plan,
                LivenessMonitor.Watched watched) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    DistributedLock lock = fair ? client.getFairLock(lockName) : client.getLock(lockName);
                    String field = client.clientId() + ":" + Thread.currentThread().getId();
                    for (Round r : plan) {
                        round(name, lock, field, r, watched);
                    }
                    done.complete(null);
                } catch (Throwable e) {
                    history.record(name, History.Op.ERROR, lockName, -1, e.toString());
                    done.completeExceptionally(e);
                }
            }, "tck-timing-" + name);
            t.setDaemon(true);
            t.start();
            return done;
        }

        private void round(String name, DistributedLock lock, String field, Round r, LivenessMonitor.Watched watched)
                throws Exception {
            history.record(name, History.Op.REQUEST, lockName, -1, r.toString());
            boolean got = false;
            watched.enter();
            try {
                if (r.timed()) {
                    got = r.async() ? lock.tryLockAsync(r.waitMillis(), TimeUnit.MILLISECONDS).get()
                            : lock.tryLock(r.waitMillis(), TimeUnit.MILLISECONDS);
                } else {
                    if (r.async()) {
                        lock.lockAsync().get();
                    } else {
                        lock.lock();
                    }
                    got = true;
                }
            } catch (LockException | ExecutionException e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                if (!(cause instanceof LockException)) {
                    throw e;
                }
                history.record(name, History.Op.ERROR, lockName, -1, cause.toString()); // an injected failure
            } finally {
                watched.exit(got);
            }
            if (!got) {
                // the outcome is unknown: a lost reply's acquisition may have run. The caller cannot
                // hold what it was not told it holds, so it gives back whatever Redis says it has
                if (lock.isHeldByCurrentThread()) {
                    orphans.add(name + " after " + r);
                    while (lock.isHeldByCurrentThread()) {
                        release(name, lock, false);
                    }
                }
                return;
            }
            history.record(name, History.Op.GRANT, lockName, -1, "");
            checkField(name, field, 1);
            try (RespClient redis = kit.topology().adminFor(counter)) {
                Object v = redis.call("GET", counter);
                redis.call("SET", counter, Long.toString((v == null ? 0 : Long.parseLong(String.valueOf(v))) + 1));
            }
            boolean uncertain = false;
            if (r.reenter()) {
                try {
                    lock.lock();
                    checkField(name, field, 2);
                    lock.unlock();
                    checkField(name, field, 1);
                } catch (LockException e) {
                    // an injected failure: whether the re-entry or its release ran is unknown, so
                    // the hold count is too; the worker releases until Redis says it holds nothing
                    uncertain = true;
                    history.record(name, History.Op.ERROR, lockName, -1, "re-entry: " + e);
                }
            }
            history.record(name, History.Op.RELEASING, lockName, -1, "");
            release(name, lock, r.async());
            while (uncertain && lock.isHeldByCurrentThread()) {
                release(name, lock, false);
            }
        }

        /** Releases, retrying while the call fails (an injected failure): the hold is the worker's to end. */
        private void release(String name, DistributedLock lock, boolean async) throws Exception {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (true) {
                try {
                    if (async) {
                        lock.unlockAsync().get();
                    } else {
                        lock.unlock();
                    }
                    history.record(name, History.Op.RELEASE, lockName, -1, "ok");
                    return;
                } catch (IllegalMonitorStateException e) {
                    history.record(name, History.Op.RELEASE, lockName, -1, e.toString()); // a lost reply's release ran
                    return;
                } catch (LockException | ExecutionException e) {
                    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                    if (cause instanceof IllegalMonitorStateException) {
                        history.record(name, History.Op.RELEASE, lockName, -1, cause.toString());
                        return;
                    }
                    if (!(cause instanceof LockException) || System.nanoTime() - deadline > 0) {
                        throw e;
                    }
                    history.record(name, History.Op.ERROR, lockName, -1, "release: " + cause);
                    Thread.sleep(10); // an injected failure comes at once: do not spin on it
                }
            }
        }

        private void checkField(String name, String field, int count) {
            Object v = redis("HGET", lockName, field);
            if (v == null || Long.parseLong(String.valueOf(v)) != count) {
                fieldMismatches.add(name + ": holds the lock " + count + " time(s) but its field " + field + " reads "
                        + v + " (hash " + redis("HGETALL", lockName) + ")");
            }
        }

        private String name(int client, int worker) {
            String c = String.valueOf((char) ('A' + client)) + (client < FAULTY ? "*" : "");
            return worker < 0 ? c : c + worker;
        }
    }

    private static boolean eventually(Duration within, BooleanSupplier condition) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return condition.getAsBoolean();
            }
        }
        return true;
    }
}
