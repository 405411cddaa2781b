package io.github.relock.core.internal.wait;

import io.github.relock.api.ServerFallback;
import io.github.relock.core.internal.protocol.MessageWakes;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/*
 * Design: how waiters are woken.
 *
 * One Channel per channel per client, shared by every waiter of this client on that channel (blocked
 * threads and asynchronous waits alike), reference-counted. The first waiter subscribes the
 * channel on the driver's single pub/sub connection; the last one out unsubscribes it. Waiters
 * subscribe only after a failed attempt and attempt once more after the subscription is
 * confirmed, so an unlock between the first attempt and SUBSCRIBE is never missed.
 *
 * Wake-up: "0" (UNLOCK) wakes one parked waiter, or, when none is parked, banks the wake-up for the
 * next waiter about to park, which then attempts at once instead. "1" (READ_UNLOCK) and a pub/sub
 * reconnect wake every parked waiter and advance the entry's epoch: a waiter whose last attempt
 * was sent before that epoch does not park at all. "Poll a parked waiter, else bank" and "take a
 * banked wake-up (or see a newer epoch), else park" run under one per-entry lock, so a wake-up can
 * never fall between a waiter's check and its parking (the lost wake-up behind the 30-second
 * fair-lock stall of 7fcae35). A waiter that took a message and leaves without attempting passes
 * it on (Wait.finish).
 *
 * Safety net: nothing guarantees delivery (reconnects, other clients' pub/sub modes, expiry), so
 * every park is bounded by the TTL the last attempt returned; a lost message costs at most that.
 *
 * Cluster: Redisson 3.x publishes with PUBLISH, 4.x with SPUBLISH, and relock's scripts with both;
 * when the driver declares SHARDED_PUBSUB on a cluster each channel is subscribed both ways (one
 * entry, two subscriptions), so any of them wakes relock's waiters. A relock unlock then arrives
 * twice, and the two copies are one wake-up (Channel.heardOne): the first wakes the longest-parked
 * waiter; a copy heard the other way within a second is its twin and wakes no second waiter, so the
 * waiters of one client are still served in the order they parked. The pairing cannot tell a twin
 * from another release heard the other way (a Redisson 3 and a Redisson 4 unlock in quick
 * succession), so a twin is never dropped unless it is provably covered: the waiter the first copy
 * woke has not attempted yet (its attempt comes after the twin), or the first copy's banked wake-up
 * is still untaken; otherwise the twin goes to that same waiter (woken again if it parked, or owed
 * to its next park; once it has left, with the lock or without, the next waiter's: a lone copy's
 * waiter may have taken the lock and let it go, and the "twin" be a Redisson 4 unlock that only
 * this copy brings, kit rule 10.25). A copy that comes alone (the other
 * subscription is down, or a Redisson client published it) wakes as any message does.
 *
 * Directed wake-ups (issue 37 item 4; the script side is fragments/wake.lua): with every client
 * subscribed to Redisson's channel, a "0" per release wakes one waiter in each client, so a release
 * costs a script per waiting client (25.8 scripts per acquisition with 32 clients). On one server a
 * reentrant lock's waiters therefore also listen on the lock's wake channel relock__wake:{N}, which
 * counts the listening relock clients, and on the client's own relock__wake:{N}:<clientId>, where a
 * release names it (same entry: subscribed right after Redisson's channel on the same connection,
 * unsubscribed first; the entry is found by its own channel), and
 * each attempt a wait sends once it listens registers the client in relock__waiters:{N} if it
 * fails. A release that finds no subscriber of Redisson's channel beyond the wake channel's (so no
 * Redisson waiter, older relock or listener) pops the oldest registered client and publishes its id
 * on that client's own channel: it alone hears it and wakes one waiter (as a "0" would; nobody
 * hearing it: "0"). Anyone else listening: "0" as before. Liveness, as for "0": the woken
 * waiter attempts; if it fails it registers again and the holder's release wakes the next; if it
 * leaves unused the message goes to the next local waiter (Channel.left), and when a client's last
 * waiter leaves without the lock the entry sends the protocol's leave call (lock-wake-leave.lua:
 * unregister, and wake the next client if the lock is free), so a wake-up banked on an entry nobody
 * parks on again is passed on. A client that dies registered leaves more registrations than wake
 * channel listeners: the next release sees it, clears the set and publishes "0" (the live waiters
 * register again). What is left to the TTL bound, as before: a wake-up delivered to a client whose
 * entry is already gone while its leave call is in flight is covered by that call; one popped for a
 * dead client while a live unregistered listener hides it from the count is lost, and the others
 * wait at most the TTL they saw. Cluster: off (a node cannot count other nodes' classic
 * subscribers); a driver without it, or with -Drelock.directedWakes=off: "0" as before.
 *
 * Lingering (directed wake-ups only): when the last waiter leaves an entry with a wake channel, the
 * entry and its three subscriptions stay for LINGER_MS (-Drelock.wakeLinger, ms; 0: off) before
 * they are unsubscribed, and a waiter joining meanwhile reuses them. A client contending again and
 * again (one thread per client, many clients) so subscribes once instead of twice per wait, and is
 * never caught between its two SUBSCRIBEs or UNSUBSCRIBEs (which counts it as a foreign subscriber
 * and makes the release fall back to "0"). A lingering client is subscribed to both channels, so
 * the release's count sees it as a relock client, listening; it is not registered (its last waiter
 * left the set or holds the lock) except in the window between a waiter's registering attempt and
 * its join. While an entry lingers, it counts no waiter (stats, joined) but it listens: a wait's
 * first attempt registers (listening) and the wait then parks on it without a second attempt, as on
 * any live entry. A wake-up naming the client while nobody is joined is banked, as any wake-up
 * heard with nobody parked, and so is one "0" (Channel.wakeWhileLingering): that joining waiter
 * trusts its attempt, so a "0" dropped for want of a joined waiter left it asleep while the lock
 * was free (rule 31.8 under Sentinel; WaitModelCheckTest's lingering "0"). A waiter joining
 * within the linger takes it (and attempts at once);
 * if nobody does, the expiry passes it on with the leave call (unregister, wake the next client
 * if the lock is free), and one heard as the entry expires finds it retired (Channel.retire, under
 * the handshake lock) and is passed on the same way: a lingering subscription never swallows a
 * wake-up, it costs the other waiters at most the linger. Expiry and join run under the entry's
 * stripe lock (a join cancels the linger, a later leave starts a new one: each expiry checks its
 * own generation); close() expires every lingering entry at once (a leave call it sends is waited
 * for with the unsubscribes), and a leave after close() never lingers. The expiry runs on the
 * JDK's delayed executor (common pool): it only takes the stripe lock and starts async calls.
 *
 * Counting (LockClient.stats): every join is one waiting call until its leave, and a spin lock's
 * waiter, which joins nothing, counts itself between spinWaitStarted and spinWaitEnded; so the
 * count is touched only by calls that found the lock busy, never on the uncontended path.
 *
 * Closing: every wait that may queue (all but a single try, whose attempt never queues) is in
 * `active` from before its first attempt until it has finished (queue left, offer settled), which
 * is what close() waits for. Counting from the first attempt, not from the first busy reply,
 * matters for the fair lock: that attempt queues the owner in Redis, so a wait whose attempt was
 * on its way when the client closed must still be there to send its give-up before the driver
 * closes. A wait adds itself, then checks the closed flag; close() sets the flag, then waits for
 * `active`: either close() sees the wait, or the wait sees the flag and sends nothing.
 *
 * Ordering: subscribe and unsubscribe of one channel are serialised by a striped ReentrantLock
 * (no synchronized: virtual threads must not pin), and a subscribe that follows an unsubscribe
 * still in flight is chained after it, so the driver always sees them in order.
 *
 * Thread-safety: safe for use by several threads.
 */
public final class Waiters implements MessageListener, ConnectionListener {
    private static final System.Logger LOG = System.getLogger(Waiters.class.getName());
    private static final int STRIPES = 64;
    /** How long an entry with a wake channel outlives its last waiter (see Lingering above), in ms. */
    static final long LINGER_MS = Long.getLong("relock.wakeLinger", 100);

    private final CommandExecutor executor;
    /**
     * Cluster with sharded pub/sub: listen on both kinds (Redisson 3.x publishes classic, 4.x
     * sharded). Cleared for good once the server answers that it has no SSUBSCRIBE (Redis 6.2).
     */
    private volatile boolean alsoSharded;
    /** Told once per fallback (the client's events report each once): a server lacking a feature. */
    private final BiConsumer<ServerFallback, String> fallbacks;
    /** Entries by channel, and by wake channel where they have one (directed wake-ups). */
    private final Map<String, Channel> entries = new ConcurrentHashMap<>();
    /** Sends an entry's leave call (directed wake-ups); set once by the client. */
    private volatile java.util.function.Function<io.github.relock.core.internal.protocol.Call<?>, CompletableFuture<?>> leaveRunner =
            call -> CompletableFuture.completedFuture(null);
    /** Leave calls in flight: close() waits for them (quiesced) before the driver closes. */
    private final Set<CompletableFuture<?>> leaveCalls = ConcurrentHashMap.newKeySet();
    private final Map<String, CompletableFuture<Void>> unsubscribing = new ConcurrentHashMap<>();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    /** Hears the sharded copies, so lock listeners can pair a release heard both ways. */
    private final MessageListener shardedEar = (channel, message) -> deliver(channel, message, true);
    /** Calls now waiting: joined entries plus spin waiters. */
    private final AtomicInteger waiting = new AtomicInteger();
    /** Every wait that may queue, from before its first attempt to its finish: what close() wakes and waits for. */
    private final Set<Wait> active = ConcurrentHashMap.newKeySet();
    /**
     * Lock waits whose caller left while they still ran, by lock and owner field, until they and
     * the give-backs they sent are over: that owner's next call on that lock starts after them.
     */
    private final Map<String, CompletableFuture<Void>> leaving = new ConcurrentHashMap<>();
    /** Runs a lingering entry's expiry after the linger; null: no lingering. Tests run it by hand. */
    private volatile java.util.function.Consumer<Runnable> lingerTimer = LINGER_MS <= 0 ? null
            : task -> CompletableFuture.delayedExecutor(LINGER_MS, TimeUnit.MILLISECONDS).execute(task);
    /** Set by close(): from then on no entry lingers. */
    private volatile boolean closing;

    /**
     * @param executor the driver, for subscriptions
     * @param alsoSharded whether to subscribe every channel sharded too (a cluster with sharded pub/sub)
     */
    public Waiters(CommandExecutor executor, boolean alsoSharded) {
        this(executor, alsoSharded, (fallback, cause) -> { });
    }

    /**
     * @param executor the driver, for subscriptions
     * @param alsoSharded whether to subscribe every channel sharded too (a cluster with sharded pub/sub)
     * @param fallbacks told when the server lacks sharded pub/sub or refuses a subscription (the
     *     client reports each kind once)
     */
    public Waiters(CommandExecutor executor, boolean alsoSharded, BiConsumer<ServerFallback, String> fallbacks) {
        this.fallbacks = fallbacks;
        this.executor = executor;
        this.alsoSharded = alsoSharded;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    /** @param runner sends the leave call of an entry whose last waiter left without the lock */
    public void leaveRunner(java.util.function.Function<io.github.relock.core.internal.protocol.Call<?>, CompletableFuture<?>> runner) {
        this.leaveRunner = runner;
    }

    /** @param timer runs a lingering entry's expiry after the linger, or null for no lingering (tests) */
    void lingerTimer(java.util.function.Consumer<Runnable> timer) {
        this.lingerTimer = timer;
    }

    /** @return how many waits of this client are joined on {@code channel} now, lock listeners not counted (directed wake-ups) */
    public int joined(String channel) {
        Channel e = entries.get(channel);
        return e == null ? 0 : Math.max(0, e.refs - e.observers.size());
    }

    /**
     * @return 1 if this client listens for directed wake-ups on {@code channel} (a wait is joined
     *     on it, or its entry lingers with its subscriptions confirmed), else 0: a failed attempt
     *     then registers the client for a directed wake-up
     */
    public int listening(String channel) {
        if (joined(channel) > 0) {
            return 1;
        }
        Channel e = entries.get(channel);
        return e != null && e.wakeChannel != null && e.subscribed.isDone()
                && !e.subscribed.isCompletedExceptionally() ? 1 : 0;
    }

    /** Joins (or creates and subscribes) a lock channel's entry; pair with {@link #leave(Channel)}. */
    Channel join(String channel) {
        return join(channel, MessageWakes.LOCK);
    }

    /**
     * Joins (or creates and subscribes) the channel's entry, whose messages wake waiters as
     * {@code wakes} says (the first joiner's; one channel serves one kind of synchronizer).
     */
    Channel join(String channel, MessageWakes wakes) {
        return join(channel, wakes, null, null, null);
    }

    /**
     * As {@link #join(String, MessageWakes)}; a new entry also listens on {@code wakeChannel}
     * (directed wake-ups: see fragments/wake.lua), where the payload {@code wakeId} wakes one of its
     * waiters, and when its last waiter leaves without the lock sends {@code leaveCall} (the client
     * leaves the lock's set of waiting clients, passing on a wake-up the lock is free for).
     */
    Channel join(String channel, MessageWakes wakes, String wakeChannel, String wakeId,
                 io.github.relock.core.internal.protocol.Call<?> leaveCall) {
        ReentrantLock lock = stripe(channel);
        lock.lock();
        try {
            Channel e = entries.get(channel);
            if (e == null) {
                CompletableFuture<Void> pending = unsubscribing.get(channel);
                String own = wakeChannel == null ? null : ownWakeChannel(wakeChannel, wakeId);
                CompletableFuture<Subscription> sub = pending == null
                        ? subscribe(channel, wakeChannel, own)
                        : pending.handle((v, t) -> null).thenCompose(x -> subscribe(channel, wakeChannel, own));
                e = new Channel(channel, sub, wakes);
                if (wakeChannel != null) {
                    e.wakeChannel = own;
                    e.wakeId = wakeId;
                    e.leaveCall = leaveCall;
                    entries.put(own, e);
                }
                entries.put(channel, e);
            }
            e.refs++;
            waiting.incrementAndGet();
            return e;
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return the channel where a release names this client alone: the lock's wake channel, a
     *     colon and the client's id (fragments/wake.lua publishes there)
     */
    static String ownWakeChannel(String wakeChannel, String wakeId) {
        return wakeChannel + ":" + wakeId;
    }

    /**
     * Subscribes {@code channel}, then at once (on the same pub/sub connection, so the server sees
     * them in this order) {@code wakeChannel}, which only counts the listening relock clients, and
     * {@code own}, where a release wakes this client alone, if not null; unsubscribes them in the
     * opposite order. So the server never counts this client on the wake channel without its
     * subscription to the lock's channel, which is what lets a release tell relock's waiting clients
     * from other subscribers. Should the wake channels' subscriptions fail, the waiters wait on the
     * lock's channel alone: a release that cannot count this client, or whose message for it
     * nobody hears, publishes Redisson's "0" instead.
     */
    private CompletableFuture<Subscription> subscribe(String channel, String wakeChannel, String own) {
        CompletableFuture<Subscription> main = subscribe(channel);
        if (wakeChannel == null) {
            return main;
        }
        CompletableFuture<Subscription> counted = trySubscribe(wakeChannel, false, this);
        CompletableFuture<Subscription> named = trySubscribe(own, false, this);
        return main.thenCompose(m -> counted.handle((c, ct) -> c).thenCombine(named.handle((n, nt) -> n), (c, n) -> {
            if (c == null || n == null) {
                LOG.log(System.Logger.Level.DEBUG, "subscription to {0} or {1} failed; the waiters on {2} may wait "
                        + "for Redisson''s message", wakeChannel, own, channel);
            }
            Subscription both = c == null ? m : new Joint(m, c);
            return n == null ? both : (Subscription) new Joint(both, n);
        })).whenComplete((s, t) -> {
            if (t != null) { // the lock's channel failed: undo the wake channels'
                counted.thenAccept(Subscription::unsubscribe);
                named.thenAccept(Subscription::unsubscribe);
            }
        });
    }

    /**
     * Subscribes the channel classic, and on a cluster with sharded pub/sub also sharded; the
     * result unsubscribes both. If the classic one fails, the sharded one is undone and the result
     * fails; if only the sharded one fails, the waiters wait on the classic one.
     */
    private CompletableFuture<Subscription> subscribe(String channel) {
        CompletableFuture<Subscription> classic = executor.subscribe(channel, false, this);
        if (!alsoSharded) {
            return classic;
        }
        CompletableFuture<Subscription> shard = trySubscribe(channel, true, shardedEar);
        return classic.handle((c, ct) -> shard.handle((s, st) -> {
            if (ct == null && st == null) {
                return (Subscription) new Joint(c, s);
            }
            if (ct == null) {
                // The classic ear works: relock's unlocks and Redisson 3's arrive on it; a Redisson 4
                // unlock missed meanwhile costs at most the TTL the waiter last saw.
                String missing = unknownCommand(st);
                if (missing != null) { // Redis 6.2: no SSUBSCRIBE at all; stop asking
                    alsoSharded = false;
                    fallbacks.accept(ServerFallback.CLASSIC_PUBSUB, missing);
                }
                LOG.log(System.Logger.Level.DEBUG, "sharded subscription to {0} failed; waiting on the classic one: {1}",
                        channel, st);
                return c;
            }
            if (s != null) {
                s.unsubscribe();
            }
            throw ct instanceof CompletionException ce ? ce : new CompletionException(ct);
        })).thenCompose(f -> f);
    }

    /** @return the driver's subscription, or a failed future if the driver threw instead */
    private CompletableFuture<Subscription> trySubscribe(String channel, boolean sharded, MessageListener listener) {
        try {
            return executor.subscribe(channel, sharded, listener);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * @return the server's words when {@code failure} says it does not know the command (a server
     *     without the feature), else null
     */
    static String unknownCommand(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.toLowerCase(java.util.Locale.ROOT).contains("unknown command")) {
                return m;
            }
        }
        return null;
    }

    /**
     * A wait's subscription was refused (a permission error, a server or proxy without pub/sub):
     * the wait polls instead; reported once per client.
     *
     * @param channel the channel refused
     * @param cause the refusal
     */
    void subscriptionRefused(String channel, Throwable cause) {
        fallbacks.accept(ServerFallback.TTL_POLLING, "SUBSCRIBE " + channel + ": " + cause.getMessage());
    }

    /**
     * Two subscriptions as one: a channel subscribed both ways (classic and sharded), or a lock
     * channel with its wake channels; {@code extra} is unsubscribed first (the wake channels before
     * the lock's, see {@link #subscribe(String, String, String)}).
     */
    private record Joint(Subscription main, Subscription extra) implements Subscription {
        @Override
        public String channel() {
            return main.channel();
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            CompletableFuture<Void> first = extra.unsubscribe();
            return CompletableFuture.allOf(first, main.unsubscribe());
        }
    }

    /**
     * Listens to the channel's messages without waiting (a lock listener): shares the channel's
     * entry and subscription with its waiters, counts as no waiter. Pair with {@link #unobserve}.
     *
     * @return the entry observed
     */
    public Channel observe(String channel, Channel.Observer observer) {
        Channel e = join(channel);
        waiting.decrementAndGet();
        e.observers.add(observer);
        return e;
    }

    /** Stops observing; the last one out of the entry unsubscribes the channel. */
    public void unobserve(Channel e, Channel.Observer observer) {
        e.observers.remove(observer);
        waiting.incrementAndGet();
        leave(e);
    }

    /** Leaves the entry; the last one out unsubscribes the channel. */
    void leave(Channel e) {
        leave(e, true);
    }

    /**
     * Leaves the entry; the last one out unsubscribes the channel, and, leaving without the lock
     * ({@code holds} false), takes the client off the lock's waiting clients (directed wake-ups).
     */
    void leave(Channel e, boolean holds) {
        ReentrantLock lock = stripe(e.channel);
        lock.lock();
        try {
            waiting.decrementAndGet();
            if (--e.refs > 0) {
                return;
            }
            java.util.function.Consumer<Runnable> timer = lingerTimer;
            boolean linger = e.wakeChannel != null && timer != null && !closing;
            if (e.wakeChannel != null && (!holds || !linger)) {
                // Without the lock: pass on a wake-up it may have taken. Holding, with no linger (off,
                // or closing): a registration a cohort pass left goes now (else the expiry sends it).
                sendLeave(e);
            }
            if (linger) {
                long generation = ++e.lingers;
                timer.accept(() -> expire(e, generation));
                return;
            }
            drop(e);
            e.retire(false); // a wake-up heard now is covered: by the leave call just sent, or by this client's own release
        } finally {
            lock.unlock();
        }
    }

    /**
     * The linger of {@code generation} (-1: whichever, at close) is over: unless a waiter joined
     * since, the entry goes, and its leave call goes out, always: it passes on a wake-up banked on
     * the entry that nobody took, and it takes the client off the lock's waiting clients where a
     * registration outlived its last waiter (a cohort pass, which leaves it until the run's
     * release; a release that registered the client again for a waiter leaving meanwhile). One
     * script per lock and client as its contention ends; a client contending on keeps its entry.
     */
    private void expire(Channel e, long generation) {
        ReentrantLock lock = stripe(e.channel);
        lock.lock();
        try {
            if (e.refs == 0 && (generation < 0 || e.lingers == generation) && entries.get(e.channel) == e) {
                drop(e);
                e.retire(true);
                sendLeave(e);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A directed wake-up naming this client, for entry {@code e} as the message found it (it may have expired since). */
    void wakeNamed(Channel e) {
        if (!e.wakeOneUnlessRetired()) {
            passOn(e); // its linger expired as the message came: nobody here takes it
        }
    }

    /** A wake-up naming this client reached an entry no waiter will take it from: the leave call passes it on. */
    private void passOn(Channel e) {
        sendLeave(e);
    }

    /** Sends the entry's leave call (if it has one), tracked until it completes: close() waits for it (quiesced). */
    private void sendLeave(Channel e) {
        if (e.leaveCall != null) {
            CompletableFuture<?> left = leaveRunner.apply(e.leaveCall);
            leaveCalls.add(left);
            left.whenComplete((v, t) -> leaveCalls.remove(left));
        }
    }

    /** Removes the entry and unsubscribes its channels; under its stripe lock. */
    private void drop(Channel e) {
        entries.remove(e.channel, e);
        if (e.wakeChannel != null) {
            entries.remove(e.wakeChannel, e);
        }
        CompletableFuture<Void> done = e.subscribed
                .thenCompose(Subscription::unsubscribe)
                .exceptionally(t -> null); // a failed subscribe has nothing to undo
        unsubscribing.put(e.channel, done);
        done.whenComplete((v, t) -> unsubscribing.remove(e.channel, done));
    }

    /**
     * @return the channel's entry if it exists and its subscription is confirmed, else null; an
     *     entry, once removed, is never reused, so finding the same one after a later
     *     {@link #join} proves the subscription lived throughout
     */
    Channel subscribedChannel(String channel) {
        Channel e = channel == null ? null : entries.get(channel); // null: a lock type without pub/sub
        return e != null && e.subscribed.isDone() && !e.subscribed.isCompletedExceptionally() ? e : null;
    }

    /**
     * @return the entry of {@code channel} if this client has waiters on it, else null (a releaser
     *     that found nobody heard its release wakes one of them itself)
     */
    public Channel entry(String channel) {
        return channel == null ? null : entries.get(channel);
    }

    /** @return the number of channels with waiters or listeners, lingering ones not counted (for stats, tests and leak checks) */
    public int activeChannels() {
        return (int) entries.entrySet().stream()
                .filter(en -> en.getKey().equals(en.getValue().channel) && en.getValue().refs > 0).count();
    }

    /** @return the number of entries lingering after their last waiter left (tests) */
    int lingering() {
        return (int) entries.entrySet().stream()
                .filter(en -> en.getKey().equals(en.getValue().channel) && en.getValue().refs == 0).count();
    }

    /** @return the calls now waiting for a lock: joined on a channel, or spinning */
    public int waiting() {
        return waiting.get();
    }

    void spinWaitStarted() {
        waiting.incrementAndGet();
    }

    void spinWaitEnded() {
        waiting.decrementAndGet();
    }

    /** A wait that may queue is about to send its first attempt: close() waits for it from now on. */
    /** @return whether any wait whose caller left is not over (the common answer, no: nothing to look up) */
    boolean anyLeaving() {
        return !leaving.isEmpty();
    }

    /** @return the wait of owner-and-lock {@code key} whose caller left and that is not over, or null */
    CompletableFuture<Void> leavingWait(String key) {
        return leaving.get(key);
    }

    /** A wait of {@code key} whose caller left runs on until {@code over} completes. */
    void leaving(String key, CompletableFuture<Void> over) {
        leaving.put(key, over);
        if (over.isDone()) {
            leaving.remove(key, over);
        }
    }

    /** That wait and its give-backs are over: the owner's next call may go. */
    void over(String key, CompletableFuture<Void> over) {
        over.complete(null);
        leaving.remove(key, over);
    }

    void started(Wait w) {
        active.add(w);
    }

    /** The wait is over (its queue left, its offer settled): pairs with {@link #started}, once. */
    void finished(Wait w) {
        active.remove(w);
    }

    /**
     * Wakes every wait so it sees its client closed, then waits until each has finished: had the
     * reply to an attempt already sent, left its offer, its channel and, for a fair lock, its
     * queue (bounded by {@code timeoutNanos}).
     *
     * @return whether every wait finished in time
     */
    public boolean closeAll(long timeoutNanos) {
        closing = true; // a leave from now on drops its entry; the lingering ones go now
        for (Channel e : new java.util.HashSet<>(entries.values())) {
            expire(e, -1);
        }
        active.forEach(Wait::wake);
        entries.values().forEach(Channel::wakeAll);
        long deadline = System.nanoTime() + timeoutNanos;
        while (!active.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                LOG.log(System.Logger.Level.WARNING, "{0} wait(s) had not finished when close() stopped waiting",
                        active.size());
                return false;
            }
            active.forEach(Wait::wake); // one that started meanwhile sees the client closed, too
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    /**
     * @return a future completing when every unsubscribe and every leave call (directed wake-ups)
     *     in flight has completed: close() waits for it, so that a client closed while its waiters
     *     were registered takes itself off the lock's waiting clients before its driver closes
     */
    public CompletableFuture<Void> quiesced() {
        java.util.List<CompletableFuture<?>> all = new java.util.ArrayList<>(unsubscribing.values());
        all.addAll(leaveCalls);
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    public void onMessage(String channel, String message) {
        deliver(channel, message, false);
    }

    private void deliver(String channel, String message, boolean sharded) {
        Channel e = entries.get(channel);
        if (e == null) {
            return;
        }
        if (channel.equals(e.wakeChannel)) { // a directed wake-up: for one waiting client, named
            if (message.equals(e.wakeId)) {
                wakeNamed(e);
            }
            return;
        }
        int wakes = e.wakes.wakes(message);
        int n = Math.min(wakes, e.refs); // never bank more wake-ups than it has waiters
        if (n == 0 && wakes > 0 && e.wakeChannel != null) {
            e.wakeWhileLingering(); // for a waiter about to join on the attempt it sent (see Lingering above)
        } else if (n == MessageWakes.ALL) {
            e.wakeAll();
        } else if (n == 0) {
            LOG.log(System.Logger.Level.DEBUG, "no waiter to wake for message ''{0}'' on {1}", message, channel);
        } else if (n == 1 && alsoSharded) {
            e.heardOne(message, sharded); // heard twice, classic and sharded: one wake-up
        } else {
            for (int i = 0; i < n; i++) {
                e.wakeOne();
            }
        }
        for (Channel.Observer o : e.observers) {
            o.message(message, sharded);
        }
    }

    @Override
    public void onReconnect() {
        LOG.log(System.Logger.Level.INFO, "pub/sub reconnected: {0} waiting channel(s) poll again", entries.size());
        entries.values().forEach(Channel::wakeAll);
    }

    private ReentrantLock stripe(String channel) {
        return stripes[(channel.hashCode() & 0x7fffffff) % STRIPES];
    }
}
