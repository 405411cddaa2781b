package io.github.relock.tck;

import io.github.relock.spi.MessageListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The faults a {@link FaultInjectingDriver} injects, keyed by script name ({@code lock-acquire},
 * {@code lock-release}, {@code lock-renew}, {@code fair-acquire}, …), and what it saw: how many
 * times each script was sent and which replies it still holds back. It can also stall every
 * asynchronous call in one queue ({@link #stallAsync()}), and delay, duplicate or lose pub/sub
 * messages ({@link #messages}).
 *
 * <pre>{@code
 * Faults faults = new Faults();
 * Faults.Gate gate = faults.on("lock-acquire").delayReply();   // the next acquire runs, its reply waits
 * CompletableFuture<Void> f = kit.newFaultyLockClient(options, faults).getLock("x").lockAsync();
 * f.cancel(false);
 * gate.release();                                               // the reply arrives after the cancel
 * }</pre>
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class Faults {

    /** What happens to a matched call. */
    enum Kind {
        DELAY_REPLY, DELAY_REPLY_FOR, FAIL_AFTER_RUN, FAIL_BEFORE_SEND, FAIL_SYNCHRONOUSLY, DROP_REPLY, BEFORE_SEND, ANSWER
    }

    /** One fault: which script, which calls (skip the first {@code skip}, then {@code times}), what happens. */
    public static final class Rule {
        private final String script;
        private volatile int skip;
        private volatile int times = 1;
        volatile Kind kind;
        volatile Runnable hook;
        volatile Object answer;
        volatile Duration delay;
        final Gate gate = new Gate();
        private final AtomicInteger seen = new AtomicInteger();

        private Rule(String script) {
            this.script = script;
        }

        /**
         * @param n how many matching calls pass untouched before this rule applies
         * @return this rule
         */
        public Rule skip(int n) {
            this.skip = n;
            return this;
        }

        /**
         * @param n how many calls this rule applies to (default 1); {@link Integer#MAX_VALUE} for every one
         * @return this rule
         */
        public Rule times(int n) {
            this.times = n;
            return this;
        }

        /** @return the gate that lets the held replies through: the script runs, its reply waits */
        public Gate delayReply() {
            kind = Kind.DELAY_REPLY;
            return gate;
        }

        /**
         * The script runs on Redis; its reply arrives {@code delay} later (a slow network, a busy
         * client). Calls delayed by different amounts answer out of the order Redis ran them.
         *
         * @param delay how long the reply waits; keep it under the command timeout, as a real
         *     driver's late reply is
         */
        public void delayReply(Duration delay) {
            this.delay = delay;
            kind = Kind.DELAY_REPLY_FOR;
        }

        /** The script runs on Redis, then the call fails with RedisUnavailableException: outcome unknown. */
        public void failAfterRun() {
            kind = Kind.FAIL_AFTER_RUN;
        }

        /** Nothing is sent; the call fails (asynchronously for async calls) with RedisUnavailableException. */
        public void failBeforeSend() {
            kind = Kind.FAIL_BEFORE_SEND;
        }

        /** Nothing is sent; an async call returns an already-failed future, a sync call throws. */
        public void failSynchronously() {
            kind = Kind.FAIL_SYNCHRONOUSLY;
        }

        /** The script runs on Redis; the reply never comes (until {@link Faults#clear()}). */
        public void dropReply() {
            kind = Kind.DROP_REPLY;
        }

        /** @param hook runs just before the script is sent (e.g. to delete a key behind the engine's back) */
        public void beforeSend(Runnable hook) {
            this.hook = hook;
            kind = Kind.BEFORE_SEND;
        }

        /** @param reply answered at once, without sending anything (a driver that lies) */
        public void answer(Object reply) {
            this.answer = reply;
            kind = Kind.ANSWER;
        }

        /** @return whether this call is one the rule applies to (counts it) */
        boolean matches(String name) {
            if (!script.equals(name) || kind == null) {
                return false;
            }
            int n = seen.getAndIncrement();
            return n >= skip && (times == Integer.MAX_VALUE || n < skip + times);
        }
    }

    /**
     * Holds replies back until released.
     *
     * <p>Thread-safety: safe for use by several threads.
     */
    public static final class Gate {
        private final CompletableFuture<Void> open = new CompletableFuture<>();

        private Gate() {
        }

        /** Lets every held reply through, now and from now on. */
        public void release() {
            open.complete(null);
        }

        CompletableFuture<Void> opened() {
            return open;
        }
    }

    /**
     * A stalled queue of asynchronous calls, as a driver whose async pool is saturated (Jedis, Spring
     * Data Redis: a queued call waits for a thread, with no timeout): from {@link Faults#stallAsync()}
     * on, every asynchronous script call waits unsent; {@link #release()} lets them through one at
     * a time, in order, each after the previous one answered (one pool thread). Calls that their
     * replies make queue behind. Blocking calls are not stalled (they use connections of their own).
     *
     * <p>Thread-safety: safe for use by several threads.
     */
    public static final class Stall {
        private final ExecutorService serial = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tck-stalled-async-pool");
            t.setDaemon(true);
            return t;
        });
        private final CompletableFuture<Void> open = new CompletableFuture<>();
        private final AtomicInteger waiting = new AtomicInteger();
        private final AtomicInteger unfinished = new AtomicInteger();

        private Stall() {
            serial.execute(() -> open.join()); // the one thread is busy until released
        }

        /** Lets the queued calls through, in order; from now on calls still go through one at a time. */
        public void release() {
            open.complete(null);
        }

        /** @return how many calls wait unsent */
        public int queued() {
            return waiting.get();
        }

        /** @return how many calls are queued or running (0: the queue drained and every reply was handled) */
        public int unfinished() {
            return unfinished.get();
        }

        CompletableFuture<Object> submit(Supplier<CompletableFuture<Object>> call) {
            CompletableFuture<Object> out = new CompletableFuture<>();
            waiting.incrementAndGet();
            unfinished.incrementAndGet();
            serial.execute(() -> {
                waiting.decrementAndGet();
                try {
                    Object reply;
                    try {
                        reply = call.get().get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        out.completeExceptionally(e.getCause());
                        return;
                    } catch (Exception e) {
                        out.completeExceptionally(e);
                        return;
                    }
                    out.complete(reply); // its callbacks run here: a call they make queues behind
                } finally {
                    unfinished.decrementAndGet();
                }
            });
            return out;
        }

        void close() {
            release();
            serial.shutdown();
        }
    }

    /**
     * What happens to one pub/sub message on its way from the wrapped driver to the engine
     * ({@link Faults#messages}).
     *
     * @param copies 0: the message is lost with the connection it came on, and the engine is told
     *     {@code delay} later that the connection came back ({@code ConnectionListener.onReconnect},
     *     as a driver does after a reconnect); 1: delivered once; 2 or more: delivered that many
     *     times
     * @param delay how long the message waits before it (every copy) is delivered: messages
     *     delayed by different amounts arrive out of the order they were published
     */
    public record Delivery(int copies, Duration delay) {
        /** Delivered once, at once: no fault. */
        public static final Delivery NOW = new Delivery(1, Duration.ZERO);
    }

    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private volatile BiFunction<String, String, Delivery> fate;
    private volatile Stall stall;
    private final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();
    private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> dropped = ConcurrentHashMap.newKeySet();

    /** Creates an empty set of faults: every call passes through. */
    public Faults() {
    }

    /**
     * @param scriptName the script's name, e.g. {@code "lock-acquire"}
     * @return a new rule for it; say what happens with one of its methods
     */
    public Rule on(String scriptName) {
        Rule r = new Rule(scriptName);
        rules.add(r);
        return r;
    }

    /** @return a stall of every asynchronous call from now on, until {@link Stall#release()} (or {@link #clear()}) */
    public Stall stallAsync() {
        Stall s = new Stall();
        stall = s;
        return s;
    }

    /**
     * Faults on the pub/sub path: from now on every message the wrapped driver delivers (on any
     * channel, classic or sharded) is first given to {@code fate}, whose answer says whether it is
     * delivered once, several times, late, or lost with its connection.
     *
     * @param fate decides each message's {@link Delivery} from its channel and payload; called on
     *     the driver's pub/sub thread, so it must not block; null delivers every message untouched
     */
    public void messages(BiFunction<String, String, Delivery> fate) {
        this.fate = fate;
    }

    /** Hands one message to {@code to} as {@link #messages}' fate says; {@code reconnected} tells the engine of a "reconnect". */
    void deliver(String channel, String message, MessageListener to, Runnable reconnected) {
        BiFunction<String, String, Delivery> f = fate;
        Delivery d = f == null ? null : f.apply(channel, message);
        if (d == null || d.equals(Delivery.NOW)) {
            to.onMessage(channel, message);
            return;
        }
        Runnable run = () -> {
            if (d.copies() == 0) {
                reconnected.run();
            }
            for (int i = 0; i < d.copies(); i++) {
                to.onMessage(channel, message);
            }
        };
        if (d.delay().isZero()) {
            run.run();
        } else {
            CompletableFuture.delayedExecutor(d.delay().toNanos(), TimeUnit.NANOSECONDS).execute(run);
        }
    }

    Stall stall() {
        return stall;
    }

    /**
     * @param scriptName a script's name
     * @return how many times it was sent (EVALSHA calls, NOSCRIPT fallbacks not counted twice)
     */
    public int sent(String scriptName) {
        AtomicInteger n = sent.get(scriptName);
        return n == null ? 0 : n.get();
    }

    /** @return how many futures this driver returned that have not completed yet */
    public int pendingFutures() {
        return pending.size();
    }

    /** Removes every rule and message fault, opens every gate, releases the stall and fails every dropped reply. */
    public void clear() {
        fate = null;
        Stall s = stall;
        stall = null;
        if (s != null) {
            s.close();
        }
        for (Rule r : rules) {
            r.gate.release();
        }
        rules.clear();
        for (CompletableFuture<?> f : dropped) {
            f.completeExceptionally(new io.github.relock.api.RedisUnavailableException("dropped reply, cleared"));
        }
        dropped.clear();
    }

    Rule match(String scriptName) {
        sent.computeIfAbsent(scriptName, k -> new AtomicInteger()).incrementAndGet();
        for (Rule r : rules) {
            if (r.matches(scriptName)) {
                return r;
            }
        }
        return null;
    }

    <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        pending.add(f);
        f.whenComplete((v, t) -> pending.remove(f));
        return f;
    }

    void dropped(CompletableFuture<?> f) {
        dropped.add(f);
    }
}
