package io.github.relock.spi.pubsub;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
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
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * All pub/sub of one executor over <b>one</b> always-open pub/sub connection of a
 * {@link ConnectionTransport}: what a driver's {@link io.github.relock.spi.CommandExecutor#subscribe}
 * and {@link io.github.relock.spi.CommandExecutor#setConnectionListener} delegate to when its client
 * reconnects and resubscribes by itself (Lettuce). Classic and sharded channels share the
 * connection; the client routes {@code SSUBSCRIBE} by slot.
 *
 * <h2>Why it looks like this</h2>
 * Such a client needs no reader thread and no sessions (compare {@link SessionPubSub}): its
 * commands return futures completed on Redis's confirmation, its messages arrive on its I/O
 * threads, and after a break it reconnects and sends {@code SUBSCRIBE} again for the channels it
 * knows. What is left, and written here once, is which listener gets a message, deadlines, the
 * order of the commands of one channel, undoing what a race left subscribed, and knowing when every
 * channel is back so that core can be told.
 *
 * <h2>State (all guarded by {@link #lock})</h2>
 * Per kind (classic, sharded): the <em>wanted</em> subscription of each channel, at most one. A
 * subscription is registered before its {@code SUBSCRIBE} is sent and removed before its
 * {@code UNSUBSCRIBE} is sent, so no message is lost between the confirmation and its use, and none
 * reaches a listener after its unsubscribe (messages are dispatched without the lock, from maps
 * written under it). Every command is sent under the lock, so for one channel the transport sees
 * them in the order of this bookkeeping; a transport's send only enqueues, it never waits for
 * Redis.
 *
 * <h2>Deadlines</h2>
 * A subscribe fails when the transport fails it, and with {@link RedisUnavailableException} when
 * Redis has not confirmed it within the timeout. Either way its subscription is removed and an
 * {@code UNSUBSCRIBE} is sent, which the connection carries after a {@code SUBSCRIBE} the client
 * may still send: a late confirmation leaves neither a listener nor a subscription behind. An
 * unsubscribe completes when Redis confirms it, when the transport fails it (the connection, and
 * the subscription with it, are gone) or at the timeout (its listener is detached already). The
 * deadlines and the retries below run on one daemon thread ({@code relock-pubsub-timer}), started
 * at the first command and ended after {@value #TIMER_IDLE_SECONDS} idle seconds: none per
 * subscription.
 *
 * <h2>Reconnects</h2>
 * When the transport reports the connection back, every wanted channel is subscribed again by this
 * class too (redundant with the client's own resubscribe, harmless, and independent of when that
 * runs); once all of them have settled (confirmed, failed or timed out), and unless another
 * reconnect came meanwhile (it tells), {@link ConnectionListener#onReconnect()} is called once,
 * failures or not: a resubscribe can fail while the connection stays up (Redis refused the
 * channel, e.g. an ACL tightened while the link was down), and then no later reconnect would come
 * to tell, and the channel's waiters would sleep until their leases ran out. The failed channels
 * are subscribed again with the back-off below while they are wanted, and core is told again when
 * one is confirmed. A channel unsubscribed meanwhile is unsubscribed again after the
 * confirmation of its resubscribe: when the unsubscribe did not travel the same connection (a
 * cluster node's), the two commands may have crossed, and Redis, and the client's own resubscribe
 * list, would keep the channel with no listener.
 *
 * <p>A transport that reports the break too ({@link ConnectionTransport.Events#disconnected()})
 * has core told at once ({@link ConnectionListener#onDisconnect()}), and then told of the
 * reconnect even when no channel is wanted, so that core's view of the link does not stay broken.
 *
 * <h2>Slot moves and node links</h2>
 * When the server drops a sharded channel that is still wanted (its slot moved), or the transport
 * reports the link of the channel's node broken (a cluster client keeps one per node, and a
 * master that died never answers on it again), it is subscribed again (the client routes it by
 * the slot's owner now), retried after a failure or timeout with a back-off (50, 100 ms ...
 * doubling to 2 s) while still wanted, then {@link ConnectionListener#onReconnect()} is called:
 * messages may have been lost meanwhile. One retry chain runs per subscription; a drop reported
 * while it runs makes it subscribe once more after its confirmation. The same undo applies. A {@code sunsubscribe} for a channel whose subscribe Redis has not confirmed
 * yet is not a drop of that subscription: it answers an earlier {@code SUNSUBSCRIBE} (core
 * subscribes a channel again as soon as its unsubscribe completes), and the pending
 * {@code SSUBSCRIBE} is carried after it; so it is ignored, rather than answered with a
 * resubscribe and a wake-up of every waiter.
 *
 * <h2>Probes</h2>
 * A pub/sub connection only reads, so a flow that a NAT or load balancer dropped without a reset
 * would look subscribed forever, and the client would never reconnect. So, while any channel is
 * wanted and the transport can {@linkplain ConnectionTransport#ping() ping}, a {@code PING} is sent
 * every probe interval (on the timer thread, one at a time); one not answered within the timeout
 * makes the transport {@linkplain ConnectionTransport#reconnect() reconnect}, and the reconnect is
 * handled as above. A lost connection is so noticed within the interval plus the timeout.
 *
 * <p>Thread-safety: safe for use by several threads. Listeners are called on the transport's
 * threads without the lock held; futures are completed, and core told, after the lock is released
 * (a {@link java.util.concurrent.locks.ReentrantLock}, so a virtual thread never pins).
 */
public final class ConnectionPubSub implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ConnectionPubSub.class.getName());
    private static final long TIMER_IDLE_SECONDS = 10;

    private final ConnectionTransport transport;
    private final String description;
    private final Duration timeout;
    private final boolean shardedSupported;
    private final Duration probeInterval;
    private final ScheduledThreadPoolExecutor timer;
    private final DeferringLock lock = new DeferringLock();
    /** The wanted subscription per classic channel; written under the lock, read without it to dispatch. */
    private final Map<String, Sub> classic = new ConcurrentHashMap<>();
    /** The same for sharded channels. */
    private final Map<String, Sub> sharded = new ConcurrentHashMap<>();
    private volatile ConnectionListener connectionListener;

    // guarded by lock
    /** Unsubscribes sent and not settled yet; close() settles them. */
    private final Set<Sub> leaving = new HashSet<>();
    /** Counts reconnects; only the latest one's resubscribe tells core. */
    private int reconnects;
    /** The transport reported a break and core was told; the next reconnect tells core, wanted channels or not. */
    private boolean down;
    private boolean closed;
    /** The periodic probe, while channels are wanted; null otherwise. */
    private ScheduledFuture<?> probing;
    /** A PING is in flight. */
    private boolean pinging;
    /** The transport cannot ping, or Redis refused a PING: never probe again. */
    private boolean unprobed;

    /**
     * Opens the transport at once (with the events it reports to); starts no thread until the first
     * command.
     *
     * @param open makes the driver's transport, given where it reports its client's events
     * @param description the client, for messages (no password)
     * @param timeout how long a subscribe or unsubscribe waits for Redis's confirmation
     * @param shardedSupported whether {@code sharded = true} may be asked (the driver declares
     *     {@link Capability#SHARDED_PUBSUB})
     */
    public ConnectionPubSub(Function<ConnectionTransport.Events, ConnectionTransport> open, String description,
                            Duration timeout, boolean shardedSupported) {
        this(open, description, timeout, shardedSupported, Duration.ZERO);
    }

    /**
     * As {@link #ConnectionPubSub(Function, String, Duration, boolean)}, and probes the connection
     * as the class comment says.
     *
     * @param probeInterval how often a {@code PING} is sent while channels are subscribed
     *     ({@link io.github.relock.spi.DriverOptions#pubSubProbeInterval()}); zero: never. It is
     *     answered within {@code timeout}, or the transport reconnects
     */
    public ConnectionPubSub(Function<ConnectionTransport.Events, ConnectionTransport> open, String description,
                            Duration timeout, boolean shardedSupported, Duration probeInterval) {
        Objects.requireNonNull(open, "open");
        this.probeInterval = Objects.requireNonNull(probeInterval, "probeInterval");
        if (probeInterval.isNegative()) {
            throw new IllegalArgumentException("probeInterval must not be negative, was " + probeInterval);
        }
        this.description = Objects.requireNonNull(description, "description");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        this.shardedSupported = shardedSupported;
        this.timer = PubSubs.timer("relock-pubsub-timer");
        timer.setKeepAliveTime(TIMER_IDLE_SECONDS, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        lock.lock(); // events reported while the transport opens wait for it
        try {
            this.transport = Objects.requireNonNull(open.apply(new Events()), "open returned no transport");
        } finally {
            lock.unlock();
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
     * @param sharded {@code SSUBSCRIBE} rather than {@code SUBSCRIBE}
     * @param listener gets the channel's messages on the transport's threads
     * @return completes when Redis confirmed; fails with {@link IllegalStateException} when closed
     *     or when the channel is subscribed already, else as the class comment says
     * @throws UnsupportedOperationException if {@code sharded} and the constructor was told no
     */
    public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        Objects.requireNonNull(channel, "channel must not be null");
        Objects.requireNonNull(listener, "listener must not be null");
        if (sharded && !shardedSupported) {
            throw new UnsupportedOperationException("subscribe('" + channel + "', sharded = true): the executor for "
                    + description + " does not declare " + Capability.SHARDED_PUBSUB
                    + " (sharded pub/sub needs Redis 7 or later); only sharded = false is allowed here");
        }
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "cannot subscribe '" + channel + "': the executor for " + description + " is closed"));
            }
            Map<String, Sub> wanted = wanted(sharded);
            if (wanted.containsKey(channel)) {
                return CompletableFuture.failedFuture(new IllegalStateException((sharded ? "sharded " : "") + "channel '"
                        + channel + "' is already subscribed by this executor; unsubscribe it first (core subscribes a channel at most once)"));
            }
            Sub sub = new Sub(channel, sharded, listener);
            wanted.put(channel, sub);
            startProbingLocked();
            String what = command("SUBSCRIBE", channel, sharded);
            within(send(true, channel, sharded), what).whenComplete((v, failure) -> subscribed(sub, failure, what));
            return sub.subscribed;
        } finally {
            lock.unlock();
        }
    }

    /** Redis confirmed {@code sub}'s SUBSCRIBE ({@code failure == null}), or it failed or timed out. */
    private void subscribed(Sub sub, Throwable failure, String what) {
        lock.lock();
        try {
            if (sub.settled) {
                return; // unsubscribed or closed meanwhile; a late confirmation is answered by that UNSUBSCRIBE
            }
            sub.settled = true;
            if (failure == null) {
                sub.confirmed = true;
                lock.defer(() -> sub.subscribed.complete(sub));
                return;
            }
            RuntimeException typed = PubSubs.typed(failure, what);
            LOG.log(Level.DEBUG, what + " failed: " + typed);
            lock.defer(() -> sub.subscribed.completeExceptionally(typed));
            unsubscribe(sub); // nothing stays behind, should the client still send the SUBSCRIBE
        } finally {
            lock.unlock();
        }
    }

    private CompletableFuture<Void> unsubscribe(Sub sub) {
        lock.lock();
        try {
            if (!sub.requestUnsubscribe()) { // no message reaches it from now on
                return sub.unsubscribed;
            }
            sub.settled = true; // finished() completes a subscribe still pending, as subscribed
            if (!wanted(sub.sharded).remove(sub.channel, sub) || closed) {
                lock.defer(sub::finished);
                return sub.unsubscribed;
            }
            leaving.add(sub);
            String what = command("UNSUBSCRIBE", sub.channel, sub.sharded);
            within(send(false, sub.channel, sub.sharded), what).whenComplete((v, failure) -> {
                if (failure != null) {
                    LOG.log(Level.DEBUG, what + " not confirmed; the listener is detached already: " + failure);
                }
                lock.lock();
                try {
                    leaving.remove(sub);
                    lock.defer(sub::finished);
                } finally {
                    lock.unlock();
                }
            });
            return sub.unsubscribed;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- the transport's events

    private void dispatch(String channel, String message, boolean sharded) {
        Sub sub = wanted(sharded).get(channel);
        if (sub != null) {
            sub.deliver(message);
        }
    }

    private void reconnected() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            int reconnect = ++reconnects;
            List<Sub> subs = new ArrayList<>(classic.values());
            subs.addAll(sharded.values());
            if (subs.isEmpty()) {
                if (down) { // nobody waits for a message: only that the link is back
                    down = false;
                    tellCoreLocked("pub/sub connection of relock on " + description + " is back");
                }
                return;
            }
            List<Sub> failed = new ArrayList<>(); // guarded by the lock
            CompletableFuture<?>[] settled = new CompletableFuture<?>[subs.size()];
            for (int i = 0; i < settled.length; i++) {
                Sub sub = subs.get(i);
                String what = command("SUBSCRIBE", sub.channel, sub.sharded);
                settled[i] = within(resubscribe(sub.channel, sub.sharded), what).handle((v, failure) -> {
                    if (failure != null) {
                        LOG.log(Level.DEBUG, "re" + what + " after a reconnect failed: " + failure);
                        lock.lock();
                        try {
                            failed.add(sub);
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                });
            }
            CompletableFuture.allOf(settled).whenComplete((v, never) -> resubscribed(reconnect, subs.size(), failed));
        } finally {
            lock.unlock();
        }
    }

    /** Every resubscribe of reconnect number {@code reconnect} settled; {@code failed} lists those that failed or timed out. */
    private void resubscribed(int reconnect, int count, List<Sub> failed) {
        lock.lock();
        try {
            if (closed || reconnect != reconnects) {
                return; // a later reconnect subscribes every channel again, and tells
            }
            for (Sub sub : failed) {
                retry(sub, 1, "channel '" + sub.channel + "' of " + description + " subscribed again after a reconnect");
            }
            down = false;
            // Core is told even when a resubscribe failed: while the connection stays up no later
            // reconnect comes to tell it, and its waiters would sleep until their leases run out.
            tellCoreLocked("pub/sub connection of relock on " + description + " is back; " + (count - failed.size())
                    + " of " + count + " channel(s) subscribed again" + (failed.isEmpty() ? ""
                    : ", the others are retried: " + failed.stream().map(sub -> sub.channel).toList()));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: subscribes a wanted channel again after {@code failures} failed tries, with
     * the back-off, while it is wanted; tells core ({@code why}) once Redis confirmed. One chain
     * per subscription: asked again while one runs, the chain subscribes once more when its
     * confirmation comes (the new break may have come after it).
     */
    private void retry(Sub sub, int failures, String why) {
        if (sub.retrying) {
            sub.retryAgain = true;
            return;
        }
        sub.retrying = true;
        schedule(() -> attempt(sub, failures, why), PubSubs.backoffMs(failures));
    }

    private void attempt(Sub sub, int failures, String why) {
        lock.lock();
        try {
            if (closed || wanted(sub.sharded).get(sub.channel) != sub) {
                return;
            }
            sub.retryAgain = false;
            String what = command("SUBSCRIBE", sub.channel, sub.sharded);
            within(resubscribe(sub.channel, sub.sharded), what).whenComplete((v, failure) -> {
                lock.lock();
                try {
                    if (closed || wanted(sub.sharded).get(sub.channel) != sub) {
                        return;
                    }
                    if (failure != null || sub.retryAgain) {
                        int next = failure == null ? 0 : failures + 1;
                        if (failure != null) {
                            LOG.log(Level.DEBUG, what + " failed; again in " + PubSubs.backoffMs(next) + " ms: " + failure);
                        }
                        schedule(() -> attempt(sub, next, why), PubSubs.backoffMs(next));
                        return;
                    }
                    sub.retrying = false;
                    tellCoreLocked(why);
                } finally {
                    lock.unlock();
                }
            });
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: sends a SUBSCRIBE of a wanted channel again, undone if it is unwanted when confirmed. */
    private CompletableFuture<Void> resubscribe(String channel, boolean sharded) {
        CompletableFuture<Void> confirmed = send(true, channel, sharded);
        confirmed.thenRun(() -> undoIfUnsubscribedMeanwhile(channel, sharded));
        return confirmed;
    }

    /**
     * A channel unsubscribed while it was subscribed again may have had its UNSUBSCRIBE overtaken
     * by the SUBSCRIBE (on a cluster they travel different connections); if nobody wants it now,
     * it is unsubscribed once more. Under the lock, so a new subscribe of the channel, which sends
     * its SUBSCRIBE under the lock too, is either seen here or sent after this UNSUBSCRIBE.
     */
    private void undoIfUnsubscribedMeanwhile(String channel, boolean sharded) {
        lock.lock();
        try {
            if (closed || wanted(sharded).containsKey(channel)) {
                return;
            }
            send(false, channel, sharded).whenComplete((v, failure) -> {
                if (failure != null) {
                    LOG.log(Level.DEBUG, "undoing the resubscribe of '" + channel + "' not confirmed: " + failure);
                }
            });
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- probes

    /** Under the lock: probes every interval from now, unless probing is off or already under way. */
    private void startProbingLocked() {
        if (probing == null && !unprobed && !probeInterval.isZero()) {
            long every = probeInterval.toNanos();
            try {
                probing = timer.scheduleWithFixedDelay(this::probe, every, every, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closedMeanwhile) {
                // nothing to probe any more
            }
        }
    }

    /** Under the lock: no more probes until the next subscribe (so the timer thread can end). */
    private void stopProbingLocked() {
        if (probing != null) {
            probing.cancel(false);
            probing = null;
        }
    }

    /** Timer thread: a PING, unless one is in flight; none while nothing is wanted. */
    private void probe() {
        lock.lock();
        try {
            if (closed || pinging) {
                return;
            }
            if (classic.isEmpty() && sharded.isEmpty()) {
                stopProbingLocked();
                return;
            }
            CompletableFuture<Void> pong;
            try {
                pong = transport.ping();
            } catch (RuntimeException e) {
                pong = CompletableFuture.failedFuture(e);
            }
            if (pong == null) {
                unprobed = true;
                stopProbingLocked();
                return;
            }
            pinging = true;
            String what = "PING on the pub/sub connection of " + description;
            within(pong, what).whenComplete((v, failure) -> pinged(failure, what));
        } finally {
            lock.unlock();
        }
    }

    /** The probe's PING was answered ({@code failure == null}), or failed, or timed out: then the transport reconnects. */
    private void pinged(Throwable failure, String what) {
        lock.lock();
        try {
            pinging = false;
            if (failure == null || closed) {
                return;
            }
            RuntimeException typed = PubSubs.typed(failure, what);
            if (typed instanceof RedisErrorException) { // the server is there, and refuses PING here
                LOG.log(Level.DEBUG, what + " refused; the connection is not probed any more: " + typed);
                unprobed = true;
                stopProbingLocked();
                return;
            }
            LOG.log(Level.WARNING, "pub/sub connection of relock on " + description + " did not answer a PING within "
                    + timeout.toMillis() + " ms (" + typed.getMessage() + "); breaking it so that it reconnects");
            transport.reconnect();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "breaking the silent pub/sub connection of " + description + " failed", e);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- helpers

    /** The transport reported the connection broken: core is told once per break. */
    private void disconnected() {
        lock.lock();
        try {
            if (closed || down) {
                return;
            }
            down = true;
            ConnectionListener l = connectionListener;
            lock.defer(() -> PubSubs.tellDisconnect(l));
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: calls {@link ConnectionListener#onReconnect()} once the lock is released. */
    private void tellCoreLocked(String what) {
        ConnectionListener l = connectionListener;
        lock.defer(() -> PubSubs.tellReconnect(l, what));
    }

    private Map<String, Sub> wanted(boolean kindSharded) {
        return kindSharded ? sharded : classic;
    }

    private String command(String verb, String channel, boolean kindSharded) {
        return (kindSharded ? "S" + verb : verb) + " " + channel + " on " + description;
    }

    /** Under the lock: one command to the transport; what it throws fails the returned future. */
    private CompletableFuture<Void> send(boolean subscribe, String channel, boolean kindSharded) {
        try {
            CompletableFuture<Void> reply = subscribe ? transport.subscribe(channel, kindSharded)
                    : transport.unsubscribe(channel, kindSharded);
            return Objects.requireNonNull(reply, "the transport returned no future");
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** @return {@code reply}, or a failure with {@link RedisUnavailableException} at the timeout; {@code reply} is left alone */
    private CompletableFuture<Void> within(CompletableFuture<Void> reply, String what) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        reply.whenComplete((v, failure) -> {
            if (failure == null) {
                out.complete(null);
            } else {
                out.completeExceptionally(failure);
            }
        });
        if (out.isDone()) {
            return out;
        }
        ScheduledFuture<?> expiry = schedule(() -> out.completeExceptionally(new RedisUnavailableException(
                what + " not confirmed within " + timeout, new TimeoutException())), timeout.toMillis());
        if (expiry != null) {
            out.whenComplete((v, failure) -> expiry.cancel(false));
        }
        return out;
    }

    /** @return the scheduled task, or null when the timer is shut down (closed: nothing waits any more) */
    private ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        try {
            return timer.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closedMeanwhile) {
            return null;
        }
    }

    /**
     * Closes the transport and ends the timer thread. Subscribes not confirmed yet fail with
     * {@link RedisUnavailableException}, unsubscribes in flight complete, later subscribes fail
     * with {@link IllegalStateException}. Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (Map<String, Sub> wanted : List.of(classic, sharded)) {
                for (Sub sub : wanted.values()) {
                    sub.unsubscribeRequested = true;
                    if (!sub.settled) {
                        sub.settled = true;
                        RedisUnavailableException e = new RedisUnavailableException("the executor for " + description
                                + " was closed before Redis confirmed the subscription of '" + sub.channel + "'");
                        lock.defer(() -> sub.subscribed.completeExceptionally(e));
                    }
                    lock.defer(sub::finished);
                }
                wanted.clear();
            }
            leaving.forEach(sub -> lock.defer(sub::finished));
            leaving.clear();
        } finally {
            lock.unlock();
        }
        try {
            transport.close();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "closing the pub/sub transport of " + description + " failed", e);
        }
        timer.shutdownNow();
    }

    @Override
    public String toString() {
        return "ConnectionPubSub[" + description + "]";
    }

    /** What the transport reports, handed to it by the constructor. */
    private final class Events implements ConnectionTransport.Events {
        @Override
        public void message(String channel, String message, boolean kindSharded) {
            dispatch(channel, message, kindSharded);
        }

        @Override
        public void reconnected() {
            ConnectionPubSub.this.reconnected();
        }

        @Override
        public void disconnected() {
            ConnectionPubSub.this.disconnected();
        }

        @Override
        public void shardDropped(String channel) {
            lock.lock();
            try {
                Sub sub = sharded.get(channel);
                if (sub != null && sub.confirmed) { // else not this subscription's drop (see Slot moves)
                    retry(sub, 0, "sharded channel '" + channel + "' of " + description
                            + " was dropped by its node (its slot moved, or its link broke); subscribed again");
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** A channel subscription handed to core. */
    private final class Sub extends ChannelSubscription {
        final boolean sharded;
        /** Guarded by the lock: its subscribe future is (being) completed. */
        boolean settled;
        /** Guarded by the lock: Redis confirmed its subscribe. */
        boolean confirmed;
        /** Guarded by the lock: a {@link #retry} chain runs for it. */
        boolean retrying;
        /** Guarded by the lock: asked to retry while a chain ran; the chain subscribes once more. */
        boolean retryAgain;

        Sub(String channel, boolean sharded, MessageListener listener) {
            super(channel, listener);
            this.sharded = sharded;
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return ConnectionPubSub.this.unsubscribe(this);
        }

        @Override
        public String toString() {
            return (sharded ? "sharded " : "") + "subscription to '" + channel + "' on " + description;
        }
    }
}
