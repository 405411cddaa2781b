package io.github.relock.core.internal.timing;

import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.Watchdog;
import io.github.relock.core.internal.lock.ClientServices;
import io.github.relock.core.internal.lock.RedisLock;
import io.github.relock.core.internal.observe.LockEvents;
import io.github.relock.core.internal.protocol.FairProtocol;
import io.github.relock.core.internal.protocol.ProtocolContext;
import io.github.relock.core.internal.protocol.ReentrantProtocol;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.wait.Handoff;
import io.github.relock.core.internal.wait.WaitContext;
import io.github.relock.core.internal.wait.Waiters;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/*
 * Design: one seed of the timing-fault simulation (issue 33 item 6).
 *
 * Two clients, each the engine's real parts (wait machine, hand-off lines, hold registry,
 * watchdog, script runner, channels) assembled as DefaultLockClient does, over SimRedis, share one
 * lock: the reentrant lock, or (every third seed) the fair lock. A few owners per client (thread
 * ids given to the async API) lock, try, re-enter, cancel and unlock; an owner that cancels goes
 * on as a new owner (a new thread), or, in half the seeds, calls again as the same owner while its
 * cancelled wait may still be running (sameOwnerAfterCancel). Optionally one
 * client closes at a random step. Everything runs on this one thread: every future completes here,
 * every timer task runs here (SimTimer's virtual clock), so a seed is one schedule, replayed exactly.
 *
 * Each step the seeded RNG picks one enabled event by weight: an owner's next call, a queued script
 * run on the model, a reply delivered, lost, timed out or refused, a subscription confirmed or
 * failed, a pub/sub message delivered, delivered twice or lost with its connection, the clock
 * advanced to the next timer, an orphan key expiring. Each seed draws its own fault rates, so some
 * seeds are calm and some stormy. After a fixed number of steps the faults stop and the simulation
 * drains: holders unlock, waiters must all get the lock, time passes only when nothing else can
 * happen, and everything left over is a leak.
 *
 * Time. The engine reads System.nanoTime for its deadlines; the simulation keeps every one of them
 * either always or never passed: leases and the watchdog last minutes, the subscription and
 * outage budgets an hour, the hand-off run bound is by count only; and the waits' command timeout
 * is one nanosecond (set in their WaitContext), so a waiter that parks for a claim to settle has
 * given up on it by the time its timer fires, and the simulation alone decides whether the
 * releaser's reply came first.
 *
 * Invariants, checked after every step:
 *   one     at most one owner believes it holds the lock (its lock call completed, no unlock sent
 *           for that count, no lock-lost event told it otherwise)
 *   field   every such owner's field is in the hash
 *   hold    every such owner has a valid registered hold
 *   redis   every registered hold not being released has its field in the hash
 *   orphan  every field in the hash has a registered hold, or a call in flight that names it (an
 *           acquire or a release/give-back), or a wait of its owner still running (a transfer that
 *           landed after the waiter gave up on the claim: its next attempt resolves it), or a reply
 *           naming it was lost or a give-back of it was refused (sent again later, or it expires)
 * and while draining:
 *   asleep  no waiter sleeps on a free lock for longer than BOUND (unless the lock went free by
 *           expiry, which publishes nothing: then the waiter's own timer, the TTL it saw, is the bound)
 *   done    every call ends, and the client is left with no hold, wait, channel or hand-off line
 *   queue   no fair-queue entry outlives its wait, nor its client's close(), unless a reply of its
 *           attempt or give-up was lost or close() gave up waiting (it then leaves by its deadline)
 *
 * Thread-safety: not thread-safe; one seed on one thread.
 */
final class TimingSimulation {
    static final String LOCK = "timing-lock";
    static final String QUEUE = "redisson_lock_queue:{" + LOCK + "}";
    static final long WATCHDOG_MS = 300_000;
    /** The fair lock's fairLockWaitTimeout: how long a stale queue head can block the lock (virtual time). */
    static final long FAIR_WAIT_MS = 10_000;
    /** Longest virtual time a waiter may sleep on a free lock that was released (not expired). */
    static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int MAIN_STEPS = 400;
    /** The wall clock the fair scripts see at the simulation's start. */
    private static final long EPOCH_MS = 1_800_000_000_000L;
    /** Owner ids of one actor: its first, then that plus this once per cancelled call. */
    private static final long OWNER_STRIDE = 100;
    private static final int DRAIN_STEPS = 20_000;

    /** What one owner is doing. */
    enum Doing { IDLE, ACQUIRING, RELEASING }

    /** One owner (a thread id of one client) and what it believes. */
    final class Actor {
        final Client client;
        long ownerId;
        String field;
        Doing doing = Doing.IDLE;
        /** Hold count it believes it has (without the one an unlock in flight gives up). */
        int count;
        /** A lock-lost event told it the hold is gone. */
        boolean toldLost;
        CompletableFuture<?> call;
        /** Incremented for every call, so a late completion of a cancelled call is ignored. */
        int callId;

        Actor(Client client, long ownerId) {
            this.client = client;
            become(ownerId);
        }

        /** Acts as owner {@code id} from now on (a new thread, after a cancelled call: see sameOwnerAfterCancel). */
        void become(long id) {
            this.ownerId = id;
            this.field = client.id + ":" + id;
            owners.put(field, this);
        }

        boolean believes() {
            return count > 0 && !toldLost;
        }

        @Override
        public String toString() {
            return field;
        }
    }

    /** One client's services. */
    final class Client {
        final String id;
        final SimRedis.Executor executor;
        final HoldRegistry holds;
        final Handoff handoff;
        final Waiters waiters;
        final ClientServices services;
        final Watchdog watchdog;
        final SimTimer.View timer;
        /** close() has begun: it waits for the client's waits ({@link #closeStep}). */
        boolean closing;
        /** close() has returned: the timer and the driver are shut. */
        boolean closed;
        /** close() gave up on waits whose calls never answered: their queue entries may stay till they expire. */
        boolean closeTimedOut;
        final RedisLock lock;
        final List<Actor> actors = new ArrayList<>();

        Client(String id, int handoffRun) {
            this.id = id;
            this.executor = redis.executor(id, rng);
            LockOptions options = LockOptions.builder().clientId(id)
                    .lockWatchdogTimeout(Duration.ofMillis(WATCHDOG_MS))
                    .subscriptionTimeout(Duration.ofHours(1))
                    .commandTimeout(Duration.ofMillis(1))
                    .build();
            this.timer = clock.view(id);
            ScriptRunner runner = new ScriptRunner(executor, 0, 0, null, id);
            this.waiters = new Waiters(executor, false);
            executor.setConnectionListener(waiters);
            this.handoff = new Handoff(handoffRun, Long.MAX_VALUE / 4);
            this.holds = new HoldRegistry(WATCHDOG_MS, this::lost, Runnable::run);
            LockEvents events = new LockEvents(LockEventListener.NOOP);
            ProtocolContext protocols = new ProtocolContext("PUBLISH", FAIR_WAIT_MS, 1, 128, 0);
            this.services = new ClientServices(id, options, runner, holds, waiters, handoff, events, protocols, timer);
            oneNanosecondCommandTimeout(services);
            this.watchdog = new Watchdog(holds, runner::renewAsync, timer, WATCHDOG_MS, 500, false, slot -> null,
                    TimeUnit.HOURS.toMillis(1), events);
            watchdog.start();
            this.lock = new RedisLock(services, fair ? new FairProtocol(protocols, LOCK, true)
                    : new ReentrantProtocol(protocols, LOCK, ReentrantProtocol.Variant.REENTRANT));
        }

        private void lost(LockLostEvent e) {
            log("  " + id + " reports lock lost: " + e.ownerId() + " " + e.reason());
            for (Actor a : actors) {
                if (a.field.equals(e.ownerId()) && a.count > 0) { // a retired owner's loss is nobody's news
                    a.toldLost = true;
                }
            }
        }
    }

    private final long seed;
    private final boolean trace;
    final Random rng;
    final SimTimer clock = new SimTimer();
    final SimRedis redis;
    final List<Client> clients = new ArrayList<>();
    final List<Actor> actors = new ArrayList<>();
    /** Every owner field used so far, and whose it is. */
    private final Map<String, Actor> owners = new LinkedHashMap<>();
    private final List<String> log = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    /** Fields a lost or timed-out reply named: they may stay in Redis with no hold, until they expire. */
    private final Set<String> excused = new LinkedHashSet<>();
    /**
     * Fair waiters whose queue entry may outlive their wait: a reply of their attempt or give-up was
     * lost, timed out or refused (the entry then leaves when its deadline passes).
     */
    private final Set<String> queueExcused = new LinkedHashSet<>();
    private int step;
    /** What the seed exercised, for the run's summary: event name -> how often. */
    private final Map<String, Integer> counts = new LinkedHashMap<>();
    private boolean draining;
    // this seed's rates
    private final double loseReply;
    private final double timeOut;
    private final double refuse;
    private final double duplicate;
    private final double disconnect;
    private final double failSubscribe;
    private final double cancel;
    private final double tryOnce;
    private final double reenter;
    private final double timerRate;

    /**
     * Whether an owner whose lock call it cancelled calls again under the same id while that call's
     * wait may still run (a thread that timed out waiting and locks again: Redisson's owner is the
     * client and the thread). The engine then starts the new call only once the cancelled wait and
     * its give-backs are over (Wait: one owner's calls one after another); before it did, a stale
     * give-back reply dropped the new hold, and a resolve attempt of the cancelled wait took the
     * new call's acquisition as its lost grant and gave it back (seeds 65 and 205).
     */
    private final boolean sameOwnerAfterCancel;
    /** The non-default options this seed ran with, as system properties (for the replay command). */
    private final String options;

    /** Whether the seed's lock is the fair lock (else the reentrant lock). */
    final boolean fair;
    /** The step at which {@link #closer} closes, or 0: no client closes. */
    private final int closeStep;
    private final Client closer;

    /**
     * @param sameOwnerKind "never", "always" (an owner that cancels calls again under the same id),
     *     or "mixed" (half the seeds: those whose number is 0 or 1 modulo 4)
     * @param lockKind "reentrant", "fair", or "mixed" (every third seed fair)
     * @param closeKind "never", "always" (one client closes at a random step), or "mixed" (every
     *     second seed)
     */
    TimingSimulation(long seed, boolean trace, String sameOwnerKind, String lockKind, String closeKind) {
        this.seed = seed;
        this.trace = trace;
        this.sameOwnerAfterCancel = switch (sameOwnerKind) {
            case "always" -> true;
            case "never" -> false;
            default -> Math.floorMod(seed, 4) < 2;
        };
        this.options = (lockKind.equals("mixed") ? "" : " -Drelock.timing.lock=" + lockKind)
                + (closeKind.equals("mixed") ? "" : " -Drelock.timing.close=" + closeKind)
                + (sameOwnerKind.equals("mixed") ? "" : " -Drelock.timing.sameOwnerAfterCancel=" + sameOwnerKind);
        this.fair = switch (lockKind) {
            case "fair" -> true;
            case "reentrant" -> false;
            default -> seed % 3 == 0;
        };
        this.rng = new Random(seed);
        boolean calm = rng.nextInt(5) == 0;
        this.loseReply = calm ? 0 : rng.nextDouble() * 0.06;
        this.timeOut = calm ? 0 : rng.nextDouble() * 0.06;
        this.refuse = calm ? 0 : rng.nextDouble() * 0.04;
        this.duplicate = calm ? 0 : rng.nextDouble() * 0.15;
        this.disconnect = calm ? 0 : rng.nextDouble() * 0.03;
        this.failSubscribe = calm ? 0 : rng.nextDouble() * 0.05;
        this.cancel = rng.nextDouble() * 0.15;
        this.tryOnce = rng.nextDouble() * 0.4;
        this.reenter = rng.nextDouble() * 0.2;
        this.timerRate = 0.05 + rng.nextDouble() * 0.4;
        int lanes = rng.nextBoolean() ? 1 : 1 + rng.nextInt(3);
        this.redis = new SimRedis(lanes, this::log, () -> EPOCH_MS + clock.now() / 1_000_000);
        int handoffRun = 1 + rng.nextInt(4);
        for (int c = 1; c <= 2; c++) {
            Client client = new Client("c" + c, handoffRun);
            clients.add(client);
            int n = 1 + rng.nextInt(3);
            for (int o = 1; o <= n; o++) {
                Actor a = new Actor(client, o);
                client.actors.add(a);
                actors.add(a);
            }
        }
        boolean closes = switch (closeKind) {
            case "always" -> true;
            case "never" -> false;
            default -> seed % 2 == 0;
        };
        this.closeStep = closes ? 50 + rng.nextInt(MAIN_STEPS - 50) : 0;
        this.closer = closes ? clients.get(rng.nextInt(clients.size())) : null;
        log("seed " + seed + ": " + (fair ? "fair lock, " : "reentrant lock, ")
                + (sameOwnerAfterCancel ? "same owner after cancel, " : "")
                + (closes ? closer.id + " closes at step " + closeStep + ", " : "")
                + (calm ? "calm" : "faults") + String.format(
                " loseReply %.3f timeOut %.3f refuse %.3f duplicate %.3f disconnect %.3f failSubscribe %.3f"
                        + " cancel %.3f tryOnce %.2f reenter %.2f timer %.2f", loseReply, timeOut, refuse, duplicate,
                disconnect, failSubscribe, cancel, tryOnce, reenter, timerRate)
                + ", lanes " + lanes + ", hand-off run " + handoffRun + ", owners " + actors);
    }

    /** The waits' command timeout, 1 ns: see the design comment (Time). */
    private static void oneNanosecondCommandTimeout(ClientServices services) {
        try {
            Field f = ClientServices.class.getDeclaredField("waits");
            f.setAccessible(true);
            WaitContext w = (WaitContext) f.get(services);
            f.set(services, new WaitContext(w.waiters(), w.handoff(), w.timer(), w.closed(), w.clientId(),
                    w.subscriptionTimeoutNanos(), 1, w.watchdogMs()));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot set the waits' command timeout", e);
        }
    }

    void log(String line) {
        String s = "#" + step + " t=" + SimTimer.ms(clock.now()) + " " + line;
        log.add(s);
        if (trace) {
            System.out.println(s);
        }
    }

    /** @return the violations found (empty: the seed passed) */
    List<String> run() {
        try {
            for (step = 1; step <= MAIN_STEPS && violations.isEmpty(); step++) {
                if (step == closeStep) {
                    startClose(closer);
                } else if (!next()) {
                    break;
                }
                closeProgress();
                check();
            }
            draining = true;
            log("faults stop; draining");
            int drained = 0;
            while (violations.isEmpty() && !quiet()) {
                step++;
                if (++drained > DRAIN_STEPS) {
                    violation("done", "the simulation did not settle within " + DRAIN_STEPS + " steps: " + pending());
                    break;
                }
                if (!next()) {
                    violation("done", "nothing can happen any more, yet " + pending());
                    break;
                }
                closeProgress();
                check();
            }
            if (violations.isEmpty()) {
                finalCheck();
            }
        } catch (RuntimeException | AssertionError e) {
            violation("crash", e.toString());
            StringBuilder sb = new StringBuilder();
            for (StackTraceElement el : e.getStackTrace()) {
                sb.append("\n    at ").append(el);
            }
            log(sb.toString());
        }
        return violations;
    }

    private void count(String what) {
        counts.merge(what, 1, Integer::sum);
    }

    /** @return the schedule as run so far, one line per event and per call the engine made */
    List<String> schedule() {
        return List.copyOf(log);
    }

    /** @return what the seed exercised: event name -> how often */
    Map<String, Integer> counts() {
        return counts;
    }

    String report(int tail) {
        StringBuilder sb = new StringBuilder();
        sb.append("timing seed ").append(seed).append(" failed: ").append(violations).append('\n');
        sb.append("replay: mvn -B -pl lock-core -am test -Dtest=TimingFaultTest#replayOneSeed -Drelock.timing.seed=")
                .append(seed).append(" -Dsurefire.failIfNoSpecifiedTests=false").append(options).append('\n');
        sb.append(log.get(0)).append('\n');
        int from = Math.max(1, log.size() - tail);
        if (from > 1) {
            sb.append("... (").append(from - 1).append(" earlier lines; the replay prints them all)\n");
        }
        for (int i = from; i < log.size(); i++) {
            sb.append(log.get(i)).append('\n');
        }
        return sb.toString();
    }

    private void violation(String rule, String what) {
        String v = rule + ": " + what;
        violations.add(v);
        log("VIOLATION " + v);
    }

    // ---------------------------------------------------------------- events

    private record Event(double weight, Runnable run) {
    }

    /** Picks one enabled event and runs it. @return false if none is enabled */
    private boolean next() {
        List<Event> events = new ArrayList<>();
        double w = 0;
        for (Actor a : actors) {
            Event e = actorEvent(a);
            if (e != null) {
                events.add(e);
                w += e.weight;
            }
        }
        for (SimRedis.Op o : redis.runnable()) {
            events.add(new Event(3, () -> {
                log("redis runs " + o);
                redis.run(o);
                count(o.script);
                if (o.args.contains("resolve")) {
                    count("resolving attempt");
                }
                if (List.of(2L, 0L).equals(o.result)) {
                    count("hand-off");
                }
                log("  -> " + o.result + " " + hashState());
            }));
        }
        for (SimRedis.Op o : redis.answerable()) {
            events.add(new Event(3, () -> {
                log("reply of " + o + ": " + o.result);
                redis.reply(o);
            }));
            if (!draining && loseReply > 0) {
                events.add(new Event(3 * loseReply, () -> {
                    log("reply LOST of " + o + " (it ran: " + o.result + ")");
                    count("reply lost");
                    excused.addAll(o.fields());
                    queueExcused.addAll(o.queued());
                    redis.loseReply(o);
                }));
            }
        }
        if (!draining) {
            for (SimRedis.Op o : redis.waitingQueued()) {
                if (timeOut > 0) {
                    events.add(new Event(timeOut, () -> {
                        log("TIMEOUT of queued " + o + " (it stays queued)");
                        count("call timed out");
                        excused.addAll(o.fields());
                        queueExcused.addAll(o.queued());
                        redis.timeOut(o);
                    }));
                }
                if (refuse > 0) {
                    events.add(new Event(refuse, () -> {
                        log("REFUSED before sending: " + o);
                        count("call refused");
                        if (o.releases(o.args.get(1))) {
                            excused.add(o.args.get(1)); // a give-back is sent again after a pause (GiveBack)
                        }
                        queueExcused.addAll(o.queued());
                        redis.refuse(o);
                    }));
                }
            }
        }
        for (SimRedis.Sub s : List.copyOf(redis.pendingSubs)) {
            events.add(new Event(2, () -> {
                log("redis confirms " + s);
                redis.confirm(s);
            }));
            if (!draining && failSubscribe > 0) {
                events.add(new Event(2 * failSubscribe, () -> {
                    log("subscribe FAILS: " + s);
                    count("subscribe failed");
                    redis.failSubscribe(s);
                }));
            }
        }
        for (Map.Entry<String, java.util.Deque<SimRedis.Msg>> in : redis.inboxes.entrySet()) {
            if (in.getValue().isEmpty()) {
                continue;
            }
            String c = in.getKey();
            events.add(new Event(2, () -> log("pub/sub delivers " + redis.deliver(c, false))));
            if (!draining && duplicate > 0) {
                events.add(new Event(2 * duplicate, () -> {
                    log("pub/sub delivers TWICE " + redis.deliver(c, true));
                    count("message twice");
                }));
            }
            if (!draining && disconnect > 0) {
                events.add(new Event(2 * disconnect, () -> {
                    log("pub/sub connection of " + c + " BREAKS, " + redis.reconnect(c)
                            + " message(s) lost; reconnected");
                    count("pub/sub broken");
                }));
            }
        }
        for (Client c : clients) {
            if (c.closing && !c.closed && !draining && redis.ops.stream().anyMatch(o -> o.client.equals(c.id))) {
                events.add(new Event(0.5, () -> {
                    log(c.id + "'s close() STOPS WAITING for " + active(c).size() + " wait(s) (its calls did not answer"
                            + " within the command timeout)");
                    c.closeTimedOut = true;
                    finishClose(c);
                }));
            }
        }
        String orphan = orphan();
        if (!draining) {
            if (clock.next() != null) {
                events.add(new Event(Math.max(0.2, w + events.size()) * timerRate, this::fireTimer));
            }
            if (orphan != null) {
                events.add(new Event(0.3, () -> expire(orphan)));
            }
        }
        if (events.isEmpty()) {
            if (!draining) {
                return false;
            }
            return idle(orphan);
        }
        double total = 0;
        for (Event e : events) {
            total += e.weight;
        }
        double r = rng.nextDouble() * total;
        for (Event e : events) {
            r -= e.weight;
            if (r < 0) {
                e.run.run();
                return true;
            }
        }
        events.get(events.size() - 1).run.run();
        return true;
    }

    /** Draining with nothing else to do: time passes (an orphan expires, or the next timer fires). */
    private boolean idle(String orphan) {
        SimTimer.Task t = clock.next();
        long wait = t == null ? Long.MAX_VALUE : t.dueNanos - clock.now();
        if (orphan != null && wait > BOUND_NANOS) {
            expire(orphan);
            return true;
        }
        if (t == null) {
            return false;
        }
        if (wait > BOUND_NANOS && !redis.hashes.containsKey(LOCK) && !redis.freedByExpiry.contains(LOCK)
                && (!fair || liveHead())) {
            List<Actor> waiting = actors.stream().filter(a -> a.doing == Doing.ACQUIRING).toList();
            if (!waiting.isEmpty()) {
                violation("asleep", waiting + " wait(s) for a free lock with nothing to wake them before "
                        + SimTimer.ms(wait) + " (next: " + t + ")");
                return true;
            }
        }
        fireTimer();
        return true;
    }

    /**
     * @return whether the fair queue's head is an owner waiting now: the release told it, so it must
     *     not sleep; a stale head (its give-up lost) or none (a waiter's entry passed its deadline
     *     while its polls were stalled) leaves the waiters to their polls, at most a third of the
     *     fair wait apart
     */
    private boolean liveHead() {
        List<String> q = redis.queue(QUEUE);
        if (q.isEmpty()) {
            return false;
        }
        Actor a = actor(q.get(0));
        return a != null && a.field.equals(q.get(0)) && a.doing == Doing.ACQUIRING;
    }

    private void fireTimer() {
        SimTimer.Task t = clock.next();
        log("time passes to " + t);
        clock.fireNext();
    }

    private void expire(String field) {
        log("key " + LOCK + " EXPIRES (orphan field " + field + ")");
        count("orphan expired");
        redis.expire(LOCK);
    }

    // ---------------------------------------------------------------- close()

    /**
     * DefaultLockClient.close(), step by step, with its wait for the client's waits
     * (Waiters.closeAll) turned into simulation steps: the waits are woken, and the simulation goes
     * on until none is active (or, with faults, close() gives up on calls that do not answer); then
     * the timer and the driver are shut. Keep in step with DefaultLockClient.close(). Where the
     * engine goes through identity-hashed sets (ClientServices.failPending, the first round of
     * Waiters.closeAll), this does the same in a fixed order, so a seed replays exactly.
     */
    private void startClose(Client c) {
        log(c.id + " CLOSES (" + active(c).size() + " wait(s) active)");
        count("close");
        c.closing = true;
        c.services.close();
        c.watchdog.stop();
        c.holds.close();
        IllegalStateException closedError = new IllegalStateException("this LockClient (" + c.id
                + ") was closed while the call was waiting");
        for (Actor a : c.actors) {
            if (a.doing == Doing.ACQUIRING) {
                a.call.completeExceptionally(closedError); // ClientServices.failPending, owner by owner
            }
        }
        c.services.failPending();
        List<Object> waits = new ArrayList<>(active(c));
        waits.sort(java.util.Comparator.comparing(TimingSimulation::waitField));
        waits.forEach(TimingSimulation::wake); // Waiters.closeAll: every active wait, then every channel
        channels(c).values().forEach(io.github.relock.core.internal.wait.Channel::wakeAll);
        for (Actor a : c.actors) {
            a.count = 0; // the client reported its holds CLIENT_CLOSED; its owners hold nothing any more
        }
    }

    private void closeProgress() {
        for (Client c : clients) {
            if (c.closing && !c.closed && active(c).isEmpty()) {
                finishClose(c);
            }
        }
    }

    private void finishClose(Client c) {
        c.timer.shutdownNow();
        c.executor.close();
        c.closed = true;
        log("  " + c.id + "'s close() returns");
    }

    private static final Field ACTIVE;

    static {
        try {
            ACTIVE = Waiters.class.getDeclaredField("active");
            ACTIVE.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final Field ENTRIES;
    private static final Field WAIT_FIELD;
    private static final java.lang.reflect.Method WAKE;

    static {
        try {
            ENTRIES = Waiters.class.getDeclaredField("entries");
            ENTRIES.setAccessible(true);
            Class<?> wait = Class.forName("io.github.relock.core.internal.wait.Wait");
            WAIT_FIELD = wait.getDeclaredField("field");
            WAIT_FIELD.setAccessible(true);
            WAKE = wait.getDeclaredMethod("wake");
            WAKE.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static String waitField(Object wait) {
        try {
            return (String) WAIT_FIELD.get(wait);
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    private static void wake(Object wait) {
        try {
            WAKE.invoke(wait);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, io.github.relock.core.internal.wait.Channel> channels(Client c) {
        try {
            return (Map<String, io.github.relock.core.internal.wait.Channel>) ENTRIES.get(c.waiters);
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    /** @return the waits close() waits for (Waiters.active) */
    private static Set<?> active(Client c) {
        try {
            return (Set<?>) ACTIVE.get(c.waiters);
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    // ---------------------------------------------------------------- the owners

    private Event actorEvent(Actor a) {
        if (a.client.closing) {
            return null;
        }
        switch (a.doing) {
            case IDLE -> {
                if (draining) {
                    return a.count > 0 ? new Event(2, () -> unlock(a)) : null;
                }
                if (a.count > 0) {
                    return new Event(1, () -> {
                        if (rng.nextDouble() < reenter) {
                            lock(a, false);
                        } else {
                            unlock(a);
                        }
                    });
                }
                return new Event(1, () -> lock(a, rng.nextDouble() < tryOnce));
            }
            case ACQUIRING -> {
                if (draining || cancel == 0 || (a.count > 0 && !sameOwnerAfterCancel)) {
                    return null; // a re-entry is not cancelled: its owner would have two releases out at once
                }
                return new Event(cancel, () -> {
                    log(a + " CANCELS its lock call");
                    count("cancel");
                    a.call.cancel(false);
                    if (!sameOwnerAfterCancel) {
                        a.become(a.ownerId + OWNER_STRIDE);
                        log("  and goes on as owner " + a.field);
                    }
                });
            }
            default -> {
                return null;
            }
        }
    }

    private void lock(Actor a, boolean tryOnce) {
        int id = ++a.callId;
        a.doing = Doing.ACQUIRING;
        log(a + (tryOnce ? " calls tryLockAsync" : " calls lockAsync") + (a.count > 0 ? " (re-entry)" : ""));
        CompletableFuture<?> f = tryOnce ? a.client.lock.tryLockAsync(a.ownerId) : a.client.lock.lockAsync(a.ownerId);
        a.call = f;
        f.whenComplete((v, t) -> {
            if (id != a.callId) {
                return;
            }
            a.doing = Doing.IDLE;
            if (t == null && (v == null || Boolean.TRUE.equals(v))) {
                if (a.count == 0) {
                    a.toldLost = false;
                }
                a.count++;
                log("  " + a + " holds the lock (count " + a.count + ")");
                count("acquired");
                return;
            }
            Throwable cause = unwrap(t);
            log("  " + a + "'s lock call ends: " + (t == null ? "not acquired" : cause));
            if (t != null && !(cause instanceof RedisUnavailableException) && !(cause instanceof CancellationException)
                    && !a.client.closing) {
                violation("call", a + "'s lock call failed with " + cause);
            }
        });
    }

    private void unlock(Actor a) {
        int id = ++a.callId;
        a.doing = Doing.RELEASING;
        a.count--;
        log(a + " calls unlockAsync (count " + (a.count + 1) + " -> " + a.count + ")");
        boolean wasTold = a.toldLost;
        CompletableFuture<Void> f = a.client.lock.unlockAsync(a.ownerId);
        a.call = f;
        f.whenComplete((v, t) -> {
            if (id != a.callId) {
                return;
            }
            a.doing = Doing.IDLE;
            if (t == null) {
                log("  " + a + " unlocked");
                return;
            }
            Throwable cause = unwrap(t);
            if (ScriptRunner.notSent(cause)) {
                if (!a.client.closing) { // a closing client reported its holds CLIENT_CLOSED: nothing is held
                    a.count++; // never sent: still held; it unlocks again later
                }
                log("  " + a + "'s unlock was not sent: " + cause);
                return;
            }
            log("  " + a + "'s unlock failed: " + cause);
            if (a.client.closing) {
                return;
            }
            if (cause instanceof IllegalMonitorStateException && !wasTold && !a.toldLost) {
                violation("field", a + " believed it held the lock, and its unlock found it did not: "
                        + cause.getMessage());
            } else if (!(cause instanceof RedisUnavailableException)
                    && !(cause instanceof IllegalMonitorStateException)) {
                violation("call", a + "'s unlock failed with " + cause);
            }
        });
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    // ---------------------------------------------------------------- invariants

    private Map<String, Long> hash() {
        Map<String, Long> h = redis.hashes.get(LOCK);
        return h == null ? Map.of() : h;
    }

    private String hashState() {
        return "hash " + (redis.hashes.containsKey(LOCK) ? redis.hashes.get(LOCK) : "{}")
                + (fair ? " queue " + redis.queue(QUEUE) + " deadlines " + redis.deadlines(
                        "redisson_lock_timeout:{" + LOCK + "}") : "");
    }

    private boolean inFlight(String field) {
        for (SimRedis.Op o : redis.ops) {
            if (o.fields().contains(field)) {
                return true;
            }
        }
        return false;
    }

    private Hold hold(Actor a) {
        return a.client.holds.get(LOCK, a.field);
    }

    /** @return the actor that is or was owner {@code field} */
    private Actor actor(String field) {
        return owners.get(field);
    }

    private Hold hold(String field) {
        Actor a = actor(field);
        return a == null ? null : a.client.holds.get(LOCK, field);
    }

    /** @return a field in the hash that no client will ever release (so it may expire), or null */
    private String orphan() {
        for (String f : hash().keySet()) {
            Actor a = actor(f);
            if (a != null && hold(f) == null && !inFlight(f) && !(a.believes() && a.field.equals(f))) {
                return f;
            }
        }
        return null;
    }

    private void check() {
        if (!redis.unknownScripts.isEmpty()) {
            violation("model", "no model of " + redis.unknownScripts);
            return;
        }
        Map<String, Long> h = hash();
        List<Actor> believers = actors.stream().filter(Actor::believes).toList();
        if (believers.size() > 1) {
            violation("one", "several owners believe they hold the lock: " + believers + "; " + hashState());
        }
        for (Actor a : believers) {
            if (!h.containsKey(a.field)) {
                violation("field", a + " believes it holds the lock (count " + a.count + "), but " + hashState());
            }
            Hold hold = hold(a.field);
            if (hold == null || !hold.valid()) {
                violation("hold", a + " believes it holds the lock, but its client has "
                        + (hold == null ? "no hold registered" : "a hold lost " + hold.lostReason()));
            }
        }
        for (Map.Entry<String, Actor> o : owners.entrySet()) {
            String f = o.getKey();
            Hold hold = hold(f);
            // only the registry's own count of the hold's releases in flight excuses it
            if (hold != null && hold.valid() && !releasing(hold) && !h.containsKey(f)) {
                violation("redis", o.getValue().client.id + " has a hold of " + f + " registered, not being released,"
                        + " but " + hashState());
            }
        }
        for (String f : h.keySet()) {
            Actor a = actor(f);
            if (a == null) {
                violation("orphan", "unknown field " + f);
            } else if (hold(f) == null && !inFlight(f) && !excused.contains(f) && !a.client.closing
                    && !(a.field.equals(f) && a.doing == Doing.ACQUIRING)) { // a transfer its wait will resolve
                violation("orphan", f + " is in Redis (" + hashState() + ") with no hold, no call in flight for it"
                        + " and no lost reply to explain it");
            }
        }
        excused.removeIf(f -> !h.containsKey(f) && !inFlight(f));
    }

    private static final Field RELEASING;

    static {
        try {
            RELEASING = Hold.class.getDeclaredField("releases");
            RELEASING.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static boolean releasing(Hold h) {
        try {
            return RELEASING.getInt(h) > 0;
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    /** @return whether the drain is over: every call ended, nothing in flight */
    private boolean quiet() {
        for (Actor a : actors) {
            if (a.doing != Doing.IDLE || a.count > 0) {
                return false;
            }
        }
        return redis.ops.isEmpty() && redis.pendingSubs.isEmpty() && !clock.hasOneShot()
                && redis.inboxes.values().stream().allMatch(java.util.Deque::isEmpty) && orphan() == null;
    }

    private String pending() {
        Map<String, Object> p = new LinkedHashMap<>();
        for (Actor a : actors) {
            if (a.doing != Doing.IDLE || a.count > 0) {
                p.put(a.field, a.doing + " count " + a.count + (a.toldLost ? " told lost" : ""));
            }
        }
        p.put("ops", redis.ops);
        p.put("subscribes", redis.pendingSubs);
        p.put("timer", clock.next());
        p.put("redis", hashState());
        return p.toString();
    }

    private void finalCheck() {
        if (!hash().isEmpty()) {
            violation("done", "the lock is still held after every owner finished: " + hashState());
        }
        for (String f : redis.queue(QUEUE)) {
            Actor a = actor(f);
            if (!queueExcused.contains(f) && !(a != null && a.client.closeTimedOut)) {
                violation("queue", f + " is still queued for the fair lock after its wait ended"
                        + (a != null && a.client.closed ? " and its client closed" : "") + ": " + redis.queue(QUEUE));
            }
        }
        for (Client c : clients) {
            if (c.holds.size() != 0) {
                violation("done", c.id + " still has " + c.holds.size() + " hold(s) registered");
            }
            if (c.waiters.waiting() != 0 || c.waiters.activeChannels() != 0) {
                violation("done", c.id + " still has " + c.waiters.waiting() + " wait(s) and "
                        + c.waiters.activeChannels() + " channel(s)");
            }
            if (c.handoff.activeLines() != 0 && !c.closed) { // a closed client's lines go with it
                violation("done", c.id + " still has " + c.handoff.activeLines() + " hand-off line(s)");
            }
        }
        log("seed passed");
    }
}
