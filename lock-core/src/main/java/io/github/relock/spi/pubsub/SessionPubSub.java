package io.github.relock.spi.pubsub;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Consumer;

/**
 * All pub/sub of one executor over <b>one</b> pub/sub connection of a {@link SessionTransport},
 * read by one daemon thread: what a driver's {@link io.github.relock.spi.CommandExecutor#subscribe}
 * and {@link io.github.relock.spi.CommandExecutor#setConnectionListener} delegate to. The same
 * state machine serves classic pub/sub (one per executor) and sharded pub/sub on one cluster node
 * (one per node, owned by {@link ShardedPubSub}); only the transport differs, plus two things the
 * sharded one does: every command carries the channels of one hash slot (a cluster refuses mixed
 * slots with {@code CROSSSLOT}, which would end the session), and confirmed channels the server
 * drops are handed back for routing (see <em>Failures</em>).
 *
 * <h2>Why it looks like this</h2>
 * Jedis pub/sub blocks the subscribing thread inside {@code subscribe(JedisPubSub, channels...)}
 * until the connection has no channel left; it cannot start without a channel, and the connection
 * goes back to the client's pool when the last channel is gone. So the reader thread runs
 * <em>sessions</em>: a session starts with every wanted channel (sharded: those of the first slot;
 * the others are sent at its first confirmation), other threads add and remove channels on the
 * session's link while it runs, and the session ends when the server's subscription count reaches
 * zero. No private keep-alive channel exists, so {@code PUBSUB CHANNELS} shows only what core
 * subscribed, and an executor with nothing subscribed holds no connection. Where the connection
 * comes from (the client's pool, its credentials, TLS, cluster node choice) is the transport's.
 *
 * <h2>State (all guarded by {@link #lock})</h2>
 * <ul>
 *   <li>Per channel: the <em>wanted</em> subscription ({@code current}, or none), whether the
 *       server has it ({@code serverSubscribed}, as far as sent commands go) and a FIFO of commands
 *       sent and not yet confirmed, each carrying the futures its confirmation completes. Redis
 *       confirms each channel's commands in order, so the head of the FIFO is what a confirmation
 *       answers.</li>
 *   <li>The session: {@code IDLE} (no connection), {@code STARTING} (reader is opening it; nobody
 *       may send yet because the client has not attached the connection), {@code ACTIVE} (anyone
 *       may send, under the lock), {@code DRAINING} (the last channel's {@code UNSUBSCRIBE} is out;
 *       the session will end, so nothing more is sent on it), {@code CLOSED}.</li>
 * </ul>
 * Every change of what is wanted ends in {@link #reconcileLocked}: when {@code ACTIVE} it sends
 * the difference ({@code SUBSCRIBE} before {@code UNSUBSCRIBE}, so the count only reaches zero
 * when nothing is wanted); otherwise the reader does it when the session becomes {@code ACTIVE}
 * (first confirmation) or starts a new session when the old one ended.
 *
 * <h2>Failures</h2>
 * A broken connection ends the session with an exception. Unsubscribes in flight complete (the
 * connection is gone); subscriptions Redis had not confirmed yet fail with
 * {@link RedisUnavailableException} (or {@link RedisErrorException} when Redis refused them, e.g.
 * an ACL) and are dropped, so nobody waits on a server that is not there. The confirmed ones stay
 * wanted: the reader opens a new session with all of them after a backoff (0, 50, 100 ms ...
 * doubling to 2 s) and, once every one is confirmed again, calls
 * {@link ConnectionListener#onReconnect()}. Core is told of the break at once
 * ({@link ConnectionListener#onDisconnect()}, once per outage, when any channel is wanted), and
 * told {@code onReconnect} too when no channel is wanted any more before the link came back. When Redis answers but refuses that resubscribe (an
 * error reply, e.g. an ACL tightened while the link was down), core is told at once as well, once
 * per outage: no session may confirm every channel for a long time, and their waiters would sleep
 * until their leases ran out. Redis refuses a command of several channels whole when it refuses
 * one of them, so once it refused one, every channel goes in its own command from then on; the
 * error reply answers the oldest command in flight ({@link Op#command} numbers them), so even a
 * link that ends its session at an error reply (Jedis' loop) tells which command was refused. A
 * refused channel whose subscription Redis had confirmed before stays wanted but is held back
 * (100 ms doubling to 10 s) so that no session keeps asking for it, and every other channel is
 * heard again. Sharded ({@link ShardedPubSub}'s node multiplexers),
 * the confirmed channels are instead detached and handed back, as are channels the server
 * unsubscribes on its own (a {@code sunsubscribe} push when a slot moves): their node may no
 * longer own them, so the router routes them again.
 *
 * <h2>Probes</h2>
 * A pub/sub connection only reads, so a flow that a NAT or load balancer dropped without a reset
 * looks subscribed forever (Jedis sets no read timeout on pub/sub). So, when the transport's link
 * can {@linkplain SessionTransport.Link#ping() ping}, an {@code ACTIVE} session sends {@code PING}
 * every probe interval, on one daemon thread ({@code <threadName>-probe}); when its pong has not
 * come within the probe timeout (the command timeout), the link is
 * {@linkplain SessionTransport.Link#abort() aborted}, and the session ends as a broken one does
 * (so is a {@code STARTING} one whose first confirmation has not come within the interval plus
 * the timeout: the drop may have swallowed it):
 * a new session after the back-off, then {@link ConnectionListener#onReconnect()}. A lost link is
 * so noticed within the interval plus the timeout. A {@code DRAINING} session sends none: a pong
 * after the last channel's confirmation would be left unread on a pooled connection.
 *
 * <p>Thread-safety: safe for use by several threads. Listeners are called on the reader thread
 * without the lock held; sends from caller threads hold the lock (a
 * {@link java.util.concurrent.locks.ReentrantLock}, so a virtual thread never pins).
 */
public final class SessionPubSub implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SessionPubSub.class.getName());
    /** The longest a channel whose resubscribe Redis refused is held back before it is sent again. */
    private static final long MAX_HOLD_MS = 10_000;

    private enum State { IDLE, STARTING, ACTIVE, DRAINING, CLOSED }

    private enum Kind { SUB, UNSUB }

    /** A command sent for one channel, waiting for its confirmation. */
    private static final class Op {
        final Kind kind;
        /** Which command carried it (numbered as sent): Redis answers commands in order. */
        final long command;
        /** SUB: subscriptions to confirm; UNSUB: subscriptions whose unsubscribe it completes. */
        final List<Sub> subscriptions = new ArrayList<>(1);

        Op(Kind kind, long command) {
            this.kind = kind;
            this.command = command;
        }
    }

    /** What this executor wants of one channel and what it has told the server. */
    private static final class ChannelState {
        Sub current;
        final List<Sub> retiring = new ArrayList<>(1);
        boolean serverSubscribed;
        final ArrayDeque<Op> inFlight = new ArrayDeque<>(2);
        /** A confirmed channel whose resubscribe Redis refused is not sent before this ({@code nanoTime}; 0: none). */
        long heldUntil;
        /** Refused resubscribes in a row, for the hold's back-off. */
        int refusals;

        boolean held(long now) {
            return heldUntil != 0 && now - heldUntil < 0;
        }

        /** @return whether a session should subscribe it now: wanted and not held back */
        boolean sendable(long now) {
            return current != null && !held(now);
        }

        boolean idle() {
            return current == null && retiring.isEmpty() && inFlight.isEmpty() && !serverSubscribed;
        }
    }

    private final SessionTransport transport;
    private final String threadName;
    private final String description;
    private final Duration stopTimeout;
    /** Sharded: every command carries the channels of one hash slot. */
    private final boolean oneSlotPerCommand;
    /** Sharded: told (after the lock is released) of confirmed channels the server dropped. */
    private final Consumer<List<String>> onLost;
    /** Sends the probes and checks their deadlines; null when probing is off. */
    private final ScheduledThreadPoolExecutor probes;
    private final Duration probeInterval;
    private final Duration probeTimeout;
    private final DeferringLock lock = new DeferringLock();
    private final Condition wakeReader = lock.newCondition();
    /** Read without the lock by the reader to dispatch messages. */
    private final Map<String, Sub> listeners = new ConcurrentHashMap<>();
    private volatile ConnectionListener connectionListener;

    // guarded by lock
    private final Map<String, ChannelState> channels = new HashMap<>();
    private State state = State.IDLE;
    private Session session;
    private Thread reader;
    private boolean reconnecting;
    /** This outage's refused resubscribe was told to core already. */
    private boolean refusalTold;
    private int failures;
    private long backoffUntilNanos;
    /** Redis refused a command of several channels: from now on each channel goes in its own command. */
    private boolean oneChannelPerCommand;
    /** Numbers the commands sent, for {@link Op#command}. */
    private long commandsSent;

    /**
     * A classic pub/sub multiplexer: a broken connection is reopened on the same transport and
     * {@link ConnectionListener#onReconnect()} is called once every channel is back. Starts no
     * thread until the first subscribe.
     *
     * @param transport the driver's raw pub/sub
     * @param threadName the reader thread's name (a daemon thread, started at the first subscribe)
     * @param description the client, for messages (no password)
     * @param stopTimeout how long {@link #close()} waits for the reader to end (twice, the second
     *     time after interrupting it)
     */
    public SessionPubSub(SessionTransport transport, String threadName, String description, Duration stopTimeout) {
        this(transport, threadName, description, stopTimeout, Duration.ZERO, Duration.ZERO, false, null);
    }

    /**
     * As {@link #SessionPubSub(SessionTransport, String, String, Duration)}, and probes each
     * session's link as the class comment says.
     *
     * @param probeInterval how often an active session sends {@code PING}
     *     ({@link io.github.relock.spi.DriverOptions#pubSubProbeInterval()}); zero: never
     * @param probeTimeout how long a {@code PING} may wait for its pong before the link is aborted
     *     ({@link io.github.relock.spi.DriverOptions#commandTimeout()})
     */
    public SessionPubSub(SessionTransport transport, String threadName, String description, Duration stopTimeout,
                         Duration probeInterval, Duration probeTimeout) {
        this(transport, threadName, description, stopTimeout, probeInterval, probeTimeout, false, null);
    }

    /**
     * @param oneSlotPerCommand every command carries the channels of one hash slot
     * @param onLost {@code null}: see the public constructor; otherwise confirmed channels the server
     *     dropped (a {@code SUNSUBSCRIBE} push when their slot moved, or a broken connection) are
     *     detached from this multiplexer and handed to it, to subscribe elsewhere
     */
    SessionPubSub(SessionTransport transport, String threadName, String description, Duration stopTimeout,
                  Duration probeInterval, Duration probeTimeout, boolean oneSlotPerCommand,
                  Consumer<List<String>> onLost) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.description = Objects.requireNonNull(description, "description");
        this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
        this.oneSlotPerCommand = oneSlotPerCommand;
        this.onLost = onLost;
        this.probeInterval = Objects.requireNonNull(probeInterval, "probeInterval");
        this.probeTimeout = Objects.requireNonNull(probeTimeout, "probeTimeout");
        if (probeInterval.isNegative() || (!probeInterval.isZero() && (probeTimeout.isNegative() || probeTimeout.isZero()))) {
            throw new IllegalArgumentException("probeInterval must not be negative and probeTimeout must be positive, were "
                    + probeInterval + " and " + probeTimeout);
        }
        if (probeInterval.isZero()) {
            this.probes = null;
        } else {
            this.probes = PubSubs.timer(threadName + "-probe");
            probes.setKeepAliveTime(10, TimeUnit.SECONDS);
            probes.allowCoreThreadTimeOut(true);
        }
    }

    /** See {@link io.github.relock.spi.CommandExecutor#setConnectionListener}. */
    public void setConnectionListener(ConnectionListener listener) {
        this.connectionListener = listener;
    }

    /**
     * Subscribes one channel, as {@link io.github.relock.spi.CommandExecutor#subscribe} describes.
     *
     * @param channel the channel
     * @param listener gets the channel's messages on the reader thread
     * @return completes when Redis confirmed; fails with {@link IllegalStateException} when closed
     *     or when the channel is subscribed already
     */
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        Objects.requireNonNull(channel, "channel must not be null");
        Objects.requireNonNull(listener, "listener must not be null");
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "cannot subscribe '" + channel + "': the executor for " + description + " is closed"));
            }
            ChannelState cs = channels.computeIfAbsent(channel, c -> new ChannelState());
            if (cs.current != null) {
                return CompletableFuture.failedFuture(new IllegalStateException("channel '" + channel
                        + "' is already subscribed by this executor; unsubscribe it first (core subscribes a channel at most once)"));
            }
            Sub sub = new Sub(channel, listener);
            cs.current = sub;
            listeners.put(channel, sub);
            startReaderLocked();
            reconcileLocked();
            return sub.subscribed;
        } finally {
            lock.unlock();
        }
    }

    private CompletableFuture<Void> unsubscribe(Sub sub) {
        lock.lock();
        try {
            if (!sub.requestUnsubscribe()) {
                return sub.unsubscribed;
            }
            listeners.remove(sub.channel, sub); // no message reaches it from now on
            ChannelState cs = channels.get(sub.channel);
            if (cs == null || cs.current != sub || state == State.CLOSED) {
                finishUnsubscribe(sub);
                return sub.unsubscribed;
            }
            cs.current = null;
            cs.retiring.add(sub);
            reconcileLocked();
            return sub.unsubscribed;
        } finally {
            lock.unlock();
        }
    }

    /** Sends what differs between wanted and server state, if a session can take commands now. */
    private void reconcileLocked() {
        if (state == State.IDLE) {
            wakeReader.signalAll();
        }
        if (state != State.ACTIVE) {
            // STARTING: no connection attached yet; DRAINING: the session is ending. The reader
            // reconciles when the next session is ACTIVE. Futures that can be settled already are.
            attachFuturesLocked();
            pruneLocked();
            return;
        }
        List<String> toSub = new ArrayList<>();
        List<String> toUnsub = new ArrayList<>();
        int remaining = 0;
        long now = System.nanoTime();
        for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
            ChannelState cs = e.getValue();
            boolean wanted = cs.current != null;
            if (wanted && !cs.serverSubscribed && !cs.held(now)) {
                toSub.add(e.getKey());
            } else if (!wanted && cs.serverSubscribed) {
                toUnsub.add(e.getKey());
            }
            if (wanted && (cs.serverSubscribed || !cs.held(now))) {
                remaining++; // a held one is not on the server: it does not keep the session open
            }
        }
        Session s = session;
        try {
            for (List<String> group : commands(toSub)) {
                s.link.subscribe(group);
                long command = ++commandsSent;
                for (String c : group) {
                    ChannelState cs = channels.get(c);
                    cs.serverSubscribed = true;
                    cs.inFlight.add(new Op(Kind.SUB, command));
                }
            }
            if (!toUnsub.isEmpty() && remaining == 0) {
                state = State.DRAINING; // the count will reach zero: the client ends the session
            }
            for (List<String> group : commands(toUnsub)) {
                s.link.unsubscribe(group);
                long command = ++commandsSent;
                for (String c : group) {
                    ChannelState cs = channels.get(c);
                    cs.serverSubscribed = false;
                    cs.inFlight.add(new Op(Kind.UNSUB, command));
                }
            }
        } catch (RuntimeException sendFailed) {
            // The connection broke under us; the reader sees it too, ends the session and
            // reconnects. Until then treat the session as ending.
            LOG.log(Level.DEBUG, "pub/sub send failed on " + description + "; the reader will reconnect", sendFailed);
            state = State.DRAINING;
        }
        attachFuturesLocked();
        pruneLocked();
    }

    /**
     * @return the channels as the commands that carry them: one, or (sharded) one per hash slot;
     *     one per channel once Redis refused a command of several (it refuses the whole command
     *     when it refuses one channel, e.g. an ACL that no longer grants it)
     */
    private List<List<String>> commands(List<String> channelsToSend) {
        if (channelsToSend.isEmpty()) {
            return List.of();
        }
        if (oneChannelPerCommand) {
            List<List<String>> single = new ArrayList<>(channelsToSend.size());
            channelsToSend.forEach(c -> single.add(List.of(c)));
            return single;
        }
        return oneSlotPerCommand ? PubSubs.bySlot(channelsToSend) : List.of(channelsToSend);
    }

    /** Hangs pending futures on the command whose confirmation they wait for, or completes them. */
    private void attachFuturesLocked() {
        for (ChannelState cs : channels.values()) {
            Op last = cs.inFlight.peekLast();
            if (cs.current != null && !cs.current.confirmed && cs.serverSubscribed) {
                if (last != null && last.kind == Kind.SUB) {
                    if (!last.subscriptions.contains(cs.current)) {
                        last.subscriptions.add(cs.current);
                    }
                } else {
                    confirmSubscribed(cs.current); // the server had it already, confirmed
                }
            }
            if (!cs.retiring.isEmpty()) {
                if (last != null && last.kind == Kind.UNSUB) {
                    last.subscriptions.addAll(cs.retiring);
                } else if (!cs.serverSubscribed || cs.current != null) {
                    // the server keeps the channel for the new subscription, or never had it:
                    // the old listener is detached already, so it is done
                    cs.retiring.forEach(this::finishUnsubscribe);
                } else {
                    continue; // waits for an UNSUBSCRIBE the next ACTIVE session sends
                }
                cs.retiring.clear();
            }
        }
    }

    private void pruneLocked() {
        channels.values().removeIf(ChannelState::idle);
        if (reconnecting && wantedCountLocked() == 0) {
            // core was told of the break: tell it that no link is needed now (the next session
            // opens for a new subscribe, whose own confirmation is its wake-up)
            reconnecting = false;
            ConnectionListener l = connectionListener;
            lock.defer(() -> PubSubs.tellReconnect(l, "pub/sub connection of relock on " + description
                    + " is not reopened: no channel is wanted any more"));
        }
    }

    private void startReaderLocked() {
        if (reader == null) {
            reader = new Thread(this::readerLoop, threadName);
            reader.setDaemon(true);
            reader.start();
        }
    }

    // ---------------------------------------------------------------- reader thread

    private void readerLoop() {
        while (true) {
            Session s;
            List<String> initial;
            lock.lock();
            try {
                while (state != State.CLOSED && (sendableCountLocked() == 0 || System.nanoTime() < backoffUntilNanos)) {
                    if (wantedCountLocked() == 0) {
                        reconnecting = false; // nobody waits for channels: nothing to tell core (pruneLocked told it)
                        wakeReader.await();
                    } else if (sendableCountLocked() == 0) {
                        wakeReader.awaitNanos(holdEndLocked() - System.nanoTime()); // only held-back channels
                    } else {
                        wakeReader.awaitNanos(backoffUntilNanos - System.nanoTime());
                    }
                }
                if (state == State.CLOSED) {
                    return;
                }
                s = new Session();
                session = s;
                state = State.STARTING;
                startDeadlineLocked(s);
                List<String> wanted = new ArrayList<>();
                long now = System.nanoTime();
                for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
                    if (e.getValue().sendable(now)) {
                        wanted.add(e.getKey());
                    }
                }
                if (reconnecting) {
                    s.awaitingResubscribe.addAll(wanted);
                }
                // Sharded: the session opens with the first slot's channels; reconcileLocked sends
                // the others when it becomes ACTIVE, one command per slot.
                initial = commands(wanted).get(0);
                long command = ++commandsSent;
                for (String c : initial) {
                    ChannelState cs = channels.get(c);
                    cs.serverSubscribed = true;
                    cs.inFlight.add(new Op(Kind.SUB, command));
                }
                attachFuturesLocked();
            } catch (InterruptedException e) {
                return; // only close() interrupts, after setting CLOSED
            } finally {
                lock.unlock();
            }

            RuntimeException failure = null;
            try {
                s.link.run(initial); // blocks until the session ends
            } catch (RuntimeException e) {
                failure = e;
            }
            sessionEnded(s, failure);
        }
    }

    private int wantedCountLocked() {
        int n = 0;
        for (ChannelState cs : channels.values()) {
            if (cs.current != null) {
                n++;
            }
        }
        return n;
    }

    private int sendableCountLocked() {
        int n = 0;
        long now = System.nanoTime();
        for (ChannelState cs : channels.values()) {
            if (cs.sendable(now)) {
                n++;
            }
        }
        return n;
    }

    /** @return when the first held-back channel may be sent again ({@code nanoTime}); now when none is held */
    private long holdEndLocked() {
        long now = System.nanoTime();
        long end = 0;
        boolean any = false;
        for (ChannelState cs : channels.values()) {
            if (cs.current != null && cs.held(now) && (!any || cs.heldUntil - end < 0)) {
                end = cs.heldUntil;
                any = true;
            }
        }
        return any ? end : now;
    }

    /**
     * Under the lock: Redis refused resubscribing {@code channel}, whose subscription it had
     * confirmed before (an ACL tightened meanwhile). It stays wanted but is not sent for a while
     * (100 ms doubling to {@value #MAX_HOLD_MS} ms), so that a session never keeps asking for what
     * is refused; then the next session or reconcile sends it again, and the probe timer, when
     * there is one, reconciles at the hold's end.
     */
    private void holdLocked(String channel, ChannelState cs) {
        long delayMs = Math.min(MAX_HOLD_MS, 100L << Math.min(cs.refusals, 10));
        cs.refusals++;
        cs.heldUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
        if (cs.heldUntil == 0) {
            cs.heldUntil = 1;
        }
        LOG.log(Level.DEBUG, "resubscribing '" + channel + "' on " + description + " refused; tried again in "
                + delayMs + " ms");
        if (probes != null) {
            try {
                probes.schedule(() -> {
                    lock.lock();
                    try {
                        if (state == State.ACTIVE) {
                            reconcileLocked();
                        } else {
                            wakeReader.signalAll();
                        }
                    } finally {
                        lock.unlock();
                    }
                }, delayMs, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closedMeanwhile) {
                // closed: nothing to retry
            }
        }
    }

    /**
     * Under the lock, when a session ended with an error reply (a link that cannot read on after
     * one): Redis answers in order, so the reply answers the oldest command still in flight.
     *
     * @return that command's channels, or empty when it is no subscribe (nothing to attribute)
     */
    private List<String> refusedCommandLocked() {
        Op oldest = null;
        for (ChannelState cs : channels.values()) {
            Op head = cs.inFlight.peek();
            if (head != null && (oldest == null || head.command < oldest.command)) {
                oldest = head;
            }
        }
        List<String> refused = new ArrayList<>();
        if (oldest == null || oldest.kind != Kind.SUB) {
            return refused;
        }
        for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
            Op head = e.getValue().inFlight.peek();
            if (head != null && head.command == oldest.command) {
                refused.add(e.getKey());
            }
        }
        return refused;
    }

    private void sessionEnded(Session s, RuntimeException failure) {
        lock.lock();
        try {
            if (s.probing != null) {
                s.probing.cancel(false);
            }
            session = null;
            boolean closed = state == State.CLOSED;
            if (!closed) {
                state = State.IDLE;
            }
            if (failure != null && !closed) {
                // Subscriptions Redis never confirmed fail rather than wait for an unknown time:
                // an error reply (e.g. an ACL refusing the channel) or a connection that broke
                // or could not be opened. Confirmed ones are resubscribed after a reconnect.
                RuntimeException err = failure instanceof RedisErrorException
                        ? failure
                        : new RedisUnavailableException("subscribing on " + description + " failed: " + failure, failure);
                // An error reply answers the oldest command in flight: when that is known, only its
                // channels are refused. Redis refuses a command of several channels whole when it
                // refuses one, so they are sent one per command from now on and none fails yet; a
                // command of one channel fails its subscribe, or holds back a confirmed channel.
                List<String> refused = failure instanceof RedisErrorException ? refusedCommandLocked() : List.of();
                if (refused.size() > 1 && !redirect(failure)) {
                    oneChannelPerCommand = true;
                } else if (refused.size() > 1) {
                    refused = List.of(); // a slot moved: every channel of the command fails, as before
                } else if (refused.size() == 1) {
                    ChannelState cs = channels.get(refused.get(0));
                    if (cs.current != null && cs.current.confirmed) {
                        holdLocked(refused.get(0), cs);
                    }
                }
                for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
                    ChannelState cs = e.getValue();
                    if (!refused.isEmpty() && (refused.size() > 1 || !refused.contains(e.getKey()))) {
                        continue; // not refused: subscribed again by the next session
                    }
                    if (cs.current != null && !cs.current.confirmed) {
                        LOG.log(Level.DEBUG, "subscribing '" + e.getKey() + "' on " + description + " failed: " + failure);
                        listeners.remove(e.getKey(), cs.current);
                        failSubscribe(cs.current, err);
                        cs.current = null;
                    }
                }
            }
            // The server dropped every subscription with the connection: settle what was in flight.
            for (ChannelState cs : channels.values()) {
                cs.serverSubscribed = false;
                for (Op op : cs.inFlight) {
                    if (op.kind == Kind.UNSUB) { // its connection is gone, and the subscription with it
                        op.subscriptions.forEach(this::finishUnsubscribe);
                    }
                }
                cs.inFlight.clear(); // SUB futures stay with their subscriptions and are re-attached
                cs.retiring.forEach(this::finishUnsubscribe);
                cs.retiring.clear();
            }
            if (closed) {
                failPendingLocked();
                channels.clear();
                return;
            }
            if (failure != null && onLost != null) {
                // Sharded: the node may no longer own these channels (failover, node gone), so
                // hand them back to be routed again rather than reopening this node.
                List<String> lost = new ArrayList<>();
                for (Map.Entry<String, ChannelState> e : channels.entrySet()) {
                    ChannelState cs = e.getValue();
                    if (cs.current != null) {
                        listeners.remove(e.getKey(), cs.current);
                        cs.current = null;
                        lost.add(e.getKey());
                    }
                }
                if (!lost.isEmpty()) {
                    lock.defer(() -> onLost.accept(lost));
                }
            }
            pruneLocked();
            if (failure == null) {
                failures = 0;
                backoffUntilNanos = 0;
                // the count reached zero: no channel is left to re-poll, unless the session's first
                // command was refused and its channels go again one per command (or held back)
                reconnecting = reconnecting && wantedCountLocked() > 0;
            } else {
                boolean anyWanted = wantedCountLocked() > 0;
                // once per outage, not once per retry
                LOG.log(anyWanted && failures == 0 ? Level.WARNING : Level.DEBUG, "pub/sub connection of relock on "
                        + description + " lost (" + failure + ")" + (anyWanted ? "; reconnecting" : ""));
                if (!reconnecting) {
                    refusalTold = false; // a new outage
                    if (anyWanted) {
                        ConnectionListener l = connectionListener;
                        lock.defer(() -> PubSubs.tellDisconnect(l));
                    }
                }
                reconnecting = reconnecting || anyWanted;
                if (reconnecting && failure instanceof RedisErrorException && !s.awaitingResubscribe.isEmpty()
                        && !refusalTold) {
                    // Redis is back but refused the resubscribe (an ACL tightened meanwhile): no
                    // session confirms these channels until it stops refusing, so the "every channel
                    // is back" below may never come; their waiters would sleep until their leases
                    // ran out. Told once per outage; the sessions go on with the back-off.
                    refusalTold = true;
                    ConnectionListener l = connectionListener;
                    String what = "pub/sub connection of relock on " + description + " is back, but Redis refused"
                            + " subscribing " + s.awaitingResubscribe + " again (" + failure.getMessage()
                            + "); retried, and core is told again when every channel is back";
                    lock.defer(() -> PubSubs.tellReconnect(l, what));
                }
                long delay = PubSubs.backoffMs(failures);
                failures++;
                backoffUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Reader thread, inside the link's callback: the server confirmed one SUBSCRIBE. */
    private void onSubscribed(Session s, String channel) {
        lock.lock();
        try {
            if (s != session) {
                return;
            }
            ChannelState cs = channels.get(channel);
            Op op = cs == null ? null : cs.inFlight.poll();
            if (op != null) {
                op.subscriptions.forEach(this::confirmSubscribed);
            }
            if (cs != null) {
                cs.refusals = 0;
                cs.heldUntil = 0;
            }
            if (s.awaitingResubscribe.remove(channel) && s.awaitingResubscribe.isEmpty() && reconnecting) {
                reconnecting = false;
                ConnectionListener l = connectionListener;
                String what = "pub/sub connection of relock on " + description + " is back; every channel"
                        + (sendableCountLocked() < wantedCountLocked() ? " Redis accepted" : "") + " is subscribed again";
                lock.defer(() -> PubSubs.tellReconnect(l, what));
            }
            if (state == State.STARTING) {
                state = State.ACTIVE; // the client has attached the connection: others may send now
                failures = 0;
                startProbingLocked(s);
                reconcileLocked();
            } else if (state == State.CLOSED) {
                s.link.unsubscribeAll();
            } else {
                pruneLocked();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Reader thread, inside the link's callback: the server confirmed (or sent) one UNSUBSCRIBE. */
    private void onUnsubscribed(Session s, String channel) {
        lock.lock();
        try {
            if (s != session || channel == null) {
                return;
            }
            ChannelState cs = channels.get(channel);
            Op head = cs == null ? null : cs.inFlight.peek();
            if (onLost != null && cs != null && (head == null || head.kind != Kind.UNSUB)) {
                // Not an answer to our SUNSUBSCRIBE: the server dropped the channel itself (its
                // slot moved away). Redis answers in order, so no command of ours is lost with it.
                cs.serverSubscribed = false;
                cs.retiring.forEach(this::finishUnsubscribe);
                cs.retiring.clear();
                if (cs.current != null && cs.current.confirmed && head == null) {
                    listeners.remove(channel, cs.current);
                    cs.current = null;
                    lock.defer(() -> onLost.accept(List.of(channel)));
                }
            } else {
                Op op = cs == null ? null : cs.inFlight.poll();
                if (op != null) {
                    op.subscriptions.forEach(this::finishUnsubscribe);
                }
            }
            pruneLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reader thread, inside the link's callback: Redis refused the subscribe that carried
     * {@code refused}; the session goes on. Each channel's oldest command in flight is that
     * subscribe (Redis answers in order): it is settled, and the subscriptions it was to confirm
     * fail with {@code error}. The server does not have the channel unless a later command of
     * ours, still in flight, asks for it again.
     */
    private void onRefused(Session s, List<String> refused, RuntimeException error) {
        lock.lock();
        try {
            if (s != session) {
                return;
            }
            if (refused.size() > 1 && !redirect(error)) {
                // Redis refuses a command of several channels whole when it refuses one of them
                // (an ACL): send each again in its own command, so that only the refused one fails.
                oneChannelPerCommand = true;
                for (String channel : refused) {
                    ChannelState cs = channels.get(channel);
                    Op head = cs == null ? null : cs.inFlight.peek();
                    if (head != null && head.kind == Kind.SUB) {
                        cs.inFlight.poll();
                        for (Sub sub : head.subscriptions) {
                            if (sub != cs.current) {
                                failRefusedLocked(channel, cs, sub, error); // unsubscribed meanwhile
                            }
                        }
                    }
                    if (cs != null && cs.inFlight.isEmpty()) {
                        cs.serverSubscribed = false;
                    }
                }
                LOG.log(Level.DEBUG, "subscribing " + refused + " on " + description + " refused (" + error
                        + "); sending them one per command");
                reconcileLocked();
                return;
            }
            for (String channel : refused) {
                ChannelState cs = channels.get(channel);
                if (cs == null) {
                    continue;
                }
                Op head = cs.inFlight.peek();
                if (head != null && head.kind == Kind.SUB) {
                    cs.inFlight.poll();
                    for (Sub sub : head.subscriptions) {
                        failRefusedLocked(channel, cs, sub, error);
                    }
                }
                if (cs.inFlight.isEmpty()) {
                    cs.serverSubscribed = false;
                    if (cs.current != null && !cs.current.confirmed) {
                        failRefusedLocked(channel, cs, cs.current, error);
                    } else if (cs.current != null) {
                        holdLocked(channel, cs); // a resubscribe: the channel stays wanted
                    }
                }
                LOG.log(Level.DEBUG, "subscribing '" + channel + "' on " + description + " refused: " + error);
                if (s.awaitingResubscribe.remove(channel) && s.awaitingResubscribe.isEmpty() && reconnecting) {
                    reconnecting = false; // every other channel is back; this one failed its caller
                    ConnectionListener l = connectionListener;
                    lock.defer(() -> PubSubs.tellReconnect(l, "pub/sub connection of relock on " + description
                            + " is back; every channel Redis accepted is subscribed again"));
                }
            }
            pruneLocked();
        } finally {
            lock.unlock();
        }
    }

    /** @return whether {@code error} redirects a slot ({@code MOVED}, {@code ASK}): all of a command's channels are refused alike */
    private static boolean redirect(RuntimeException error) {
        String m = String.valueOf(error.getMessage());
        return m.startsWith("MOVED ") || m.startsWith("ASK ");
    }

    private void failRefusedLocked(String channel, ChannelState cs, Sub sub, RuntimeException error) {
        if (sub.confirmed) {
            return;
        }
        listeners.remove(channel, sub);
        if (cs.current == sub) {
            cs.current = null;
        }
        failSubscribe(sub, error);
    }

    /** Under the lock: a new ACTIVE session is probed every interval, if probing is on. */
    private void startProbingLocked(Session s) {
        if (probes == null) {
            return;
        }
        try {
            long every = probeInterval.toNanos();
            s.probing = probes.scheduleWithFixedDelay(() -> probe(s), every, every, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closedMeanwhile) {
            // close() shut the probes down: nothing to probe any more
        }
    }

    /**
     * Under the lock: a STARTING session cannot be pinged (the client attaches its connection with
     * the first confirmation), so one whose first confirmation has not come within the probe
     * interval plus the probe timeout is aborted, as a silent ACTIVE one is: the flow may have
     * been dropped with the confirmation in it. Its subscribes then fail at once rather than at
     * core's subscription timeout.
     */
    private void startDeadlineLocked(Session s) {
        if (probes == null) {
            return;
        }
        try {
            probes.schedule(() -> {
                lock.lock();
                try {
                    if (s == session && state == State.STARTING) {
                        LOG.log(Level.WARNING, "pub/sub connection of relock on " + description + " did not confirm its"
                                + " first subscribe within " + probeInterval.plus(probeTimeout).toMillis()
                                + " ms; breaking it and reconnecting");
                        s.link.abort();
                    }
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, "aborting the silent pub/sub connection of " + description + " failed", e);
                } finally {
                    lock.unlock();
                }
            }, probeInterval.plus(probeTimeout).toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closedMeanwhile) {
            // close() shut the probes down
        }
    }

    /** Probe thread: sends a PING on an ACTIVE session with none in flight, and sets its deadline. */
    private void probe(Session s) {
        lock.lock();
        try {
            if (s != session || state != State.ACTIVE || s.pingSentAt != 0) {
                return; // ended or draining (sessionEnded cancels), or a PING awaits its deadline
            }
            if (!s.link.ping()) {
                s.probing.cancel(false); // this link cannot be probed
                return;
            }
            long sent = System.nanoTime();
            s.pingSentAt = sent;
            probes.schedule(() -> pongDue(s, sent), probeTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException sendFailed) {
            // the connection broke under us: the reader sees it too and reconnects
            LOG.log(Level.DEBUG, "pub/sub PING on " + description + " failed; the reader will reconnect", sendFailed);
        } finally {
            lock.unlock();
        }
    }

    /** Probe thread: the PING sent at {@code sent} is due; a session still waiting for its pong is aborted. */
    private void pongDue(Session s, long sent) {
        lock.lock();
        try {
            if (s != session || s.pingSentAt != sent) {
                return; // answered, or the session ended
            }
            LOG.log(Level.WARNING, "pub/sub connection of relock on " + description + " did not answer a PING within "
                    + probeTimeout.toMillis() + " ms; breaking it and reconnecting");
            s.link.abort();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "aborting the silent pub/sub connection of " + description + " failed", e);
        } finally {
            lock.unlock();
        }
    }

    /** Reader thread, inside the link's callback: the session's PING was answered. */
    private void onPong(Session s) {
        lock.lock();
        try {
            s.pingSentAt = 0;
        } finally {
            lock.unlock();
        }
    }

    private void onMessage(String channel, String message) {
        Sub sub = listeners.get(channel);
        if (sub != null) {
            sub.deliver(message);
        }
    }

    /** Under the lock: completes {@code sub}'s subscribe future once the lock is released. */
    private void confirmSubscribed(Sub sub) {
        sub.confirmed = true;
        lock.defer(() -> sub.subscribed.complete(sub));
    }

    /** Under the lock: completes {@code sub}'s unsubscribe (and a still pending subscribe) after. */
    private void finishUnsubscribe(Sub sub) {
        sub.confirmed = true;
        lock.defer(sub::finished);
    }

    private void failSubscribe(Sub sub, RuntimeException e) {
        lock.defer(() -> sub.subscribed.completeExceptionally(e));
    }

    private void failPendingLocked() {
        for (ChannelState cs : channels.values()) {
            if (cs.current != null && !cs.current.confirmed) {
                failSubscribe(cs.current, new RedisUnavailableException(
                        "the executor for " + description + " was closed before Redis confirmed the subscription"));
            }
            cs.retiring.forEach(this::finishUnsubscribe);
        }
        listeners.clear();
    }

    /**
     * Ends the session (unsubscribing everything) and the reader; waits for the reader to end.
     * Subscribes not confirmed yet fail with {@link RedisUnavailableException}; later ones with
     * {@link IllegalStateException}. Idempotent.
     */
    @Override
    public void close() {
        Thread t;
        lock.lock();
        try {
            if (state == State.CLOSED) {
                t = reader;
            } else {
                State was = state;
                state = State.CLOSED;
                t = reader;
                if (was == State.ACTIVE && session != null) {
                    try {
                        session.link.unsubscribeAll(); // the session ends cleanly; the connection goes back
                    } catch (RuntimeException e) {
                        LOG.log(Level.DEBUG, "unsubscribe on close failed", e);
                    }
                }
                // STARTING: the first confirmation sees CLOSED and unsubscribes; DRAINING ends by itself
                failPendingLocked();
                if (session == null) {
                    channels.clear();
                }
                wakeReader.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (probes != null) {
            probes.shutdownNow();
        }
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        try {
            t.join(stopTimeout.toMillis());
            if (t.isAlive()) {
                t.interrupt(); // a pool borrow or connect may still be blocking
                t.join(stopTimeout.toMillis());
                if (t.isAlive()) {
                    LOG.log(Level.WARNING, threadName + " for " + description + " did not end within "
                            + stopTimeout.multipliedBy(2) + "; it is a daemon thread and ends with its connection");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "SessionPubSub[" + description + "]";
    }

    /** One session's link; its callbacks are tagged with it so a stale one is ignored. */
    private final class Session {
        final Set<String> awaitingResubscribe = new HashSet<>();
        /** Guarded by the lock: the periodic probe, once ACTIVE and probing is on. */
        ScheduledFuture<?> probing;
        /** Guarded by the lock: when the PING awaiting its pong was sent ({@code nanoTime}), else 0. */
        long pingSentAt;
        final SessionTransport.Link link = transport.open(new SessionTransport.Events() {
            @Override
            public void subscribed(String channel) {
                onSubscribed(Session.this, channel);
            }

            @Override
            public void unsubscribed(String channel) {
                onUnsubscribed(Session.this, channel);
            }

            @Override
            public void message(String channel, String message) {
                onMessage(channel, message);
            }

            @Override
            public void refused(List<String> channels, RuntimeException error) {
                onRefused(Session.this, channels, error);
            }

            @Override
            public void pong() {
                onPong(Session.this);
            }
        });
    }

    /** A channel subscription handed to core. */
    private final class Sub extends ChannelSubscription {
        boolean confirmed; // guarded by lock: its subscribe future is (being) completed normally

        Sub(String channel, MessageListener listener) {
            super(channel, listener);
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return SessionPubSub.this.unsubscribe(this);
        }
    }
}
