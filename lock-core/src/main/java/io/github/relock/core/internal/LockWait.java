package io.github.relock.core.internal;

import io.github.relock.api.RedisUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/*
 * Design: waiting for a lock, for every lock type (the protocol supplies the scripts, the channel
 * and what giving up undoes). Spec 5.1-5.3.
 *
 * Blocking (acquire): attempt; on failure join the channel's Waiters entry (subscribing it);
 * attempt again once the subscription is confirmed, so an unlock in between is never missed
 * (not needed, and skipped, when the entry was already subscribed before the first attempt was
 * sent: every release after that attempt reaches the entry and wakes one of its waiters);
 * then park on the entry's semaphore for at most the TTL the last attempt returned (or the time
 * left) and attempt again. A thread that leaves without the lock, for any reason including a
 * first attempt that threw, gives up (a fair waiter leaves the queue) before it returns, so a next
 * attempt by the same owner cannot race its own give-up.
 *
 * Local hand-off (Handoff): once subscribed, a blocking waiter of a lock type that hands off posts
 * an offer; it arms the offer after each failed attempt and parks on it (queued as one of the
 * entry's listeners, so pub/sub still wakes it) instead of on the semaphore. A releaser of this
 * client may then make it the owner in the release script itself; the waiter finds its offer
 * granted when it wakes. Every exit without the lock leaves the offer first, settling a claim in
 * flight: a waiter that turns out to have been handed the lock returns it if it was leaving with
 * an error, and takes it if it was leaving because its time ran out.
 *
 * Async (acquireAsync): the same steps as a state machine on driver and timer threads, parking no
 * thread; see AsyncWait for how a caller that leaves (cancel, orTimeout, close) ends it.
 *
 * Outages while waiting: an attempt after the first that fails for want of Redis (a failover: the
 * node died and the client is finding its successor) is retried every RETRY_AFTER_OUTAGE_MS for up
 * to the subscription timeout, then thrown. The first attempt still fails at once, so a caller on
 * a dead Redis learns it immediately.
 *
 * Polling bounds: a wait never exceeds the TTL the server returned, so a lost message costs at
 * most that; an answer of 0 (free, but another waiter's turn, e.g. a dead fair-queue head) makes
 * the waiter back off exponentially from 2 ms to MAX_BACKOFF_MS instead of spinning.
 */
final class LockWait {
    private static final System.Logger LOG = System.getLogger(LockWait.class.getName());
    /** First back-off before a refused give-back is sent again; it doubles up to the maximum. */
    private static final long GIVE_BACK_FIRST_RETRY_MS = 10;
    private static final long GIVE_BACK_MAX_RETRY_MS = 1_000;

    private final RedisLock lock;
    private final DefaultLockClient client;

    LockWait(RedisLock lock) {
        this.lock = lock;
        this.client = lock.client;
    }

    /** Pause before the next attempt of a waiter whose attempt failed for want of Redis. */
    static final long RETRY_AFTER_OUTAGE_MS = 250;

    /**
     * How long a waiter tolerates attempts failing for want of Redis (a failover: the node died,
     * the client is finding the new one) before it throws: the subscription timeout. A first
     * attempt that fails still throws at once.
     */
    private long outageAllowanceNanos() {
        return client.options().subscriptionTimeout().toNanos();
    }

    /** Longest pause between polls when the lock is free but not ours to take (a fair queue's head goes first). */
    static final long MAX_BACKOFF_MS = 100;

    /**
     * How long to wait after an attempt that answered {@code ttl}, given {@code remaining} ns.
     *
     * @param idlePolls how many attempts in a row answered 0 (free, but another waiter's turn): a
     *     dead fair-queue head makes waiters back off up to {@link #MAX_BACKOFF_MS}, not spin
     */
    private long waitNanos(long ttl, long remaining, int idlePolls) {
        long ms = ttl >= 0 ? ttl : client.watchdogMs() / 3; // -1: a key without expiry; poll at the renewal rate
        long floor = Math.min(MAX_BACKOFF_MS, 2L << Math.min(idlePolls, 6));
        ms = Math.max(floor, Math.min(ms, lock.protocol.maxPollIntervalMs()));
        return Math.min(TimeUnit.MILLISECONDS.toNanos(ms), remaining);
    }

    /**
     * The sync wait (spec 5.1/5.2): attempt; subscribe; attempt again; then wait on the entry's
     * semaphore for at most the returned TTL (or the time left), and repeat.
     *
     * @param waitMs {@link Args#WAIT_FOREVER}, {@link Args#TRY_ONCE}, or the longest wait
     * @param interruptible whether an interrupt aborts the wait; if not, the status is restored after
     * @return whether the lock was acquired
     */
    boolean acquire(long waitMs, long ttlMs, long ownerId, boolean interruptible)
            throws InterruptedException {
        client.ensureOpen();
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + lock.name + "'");
        }
        long start = System.nanoTime();
        boolean queue = waitMs != 0;
        // A channel already subscribed (by this client's other waiters) before the first attempt
        // is sent hears every release after it: no second attempt is needed after joining it.
        Waiters.Entry live = queue ? client.waiters().subscribedEntry(lock.waitChannel(ownerId)) : null;
        Long firstTtl = queue ? heldByAnotherLocalOwner(ownerId) : null;
        if (firstTtl == null) {
            if (queue) {
                yieldToAnotherClient();
            }
            try {
                firstTtl = lock.tryAcquireOnce(ttlMs, ownerId, queue);
            } catch (RuntimeException e) {
                if (queue) {
                    awaitGiveUp(ownerId); // the attempt may have joined the fair queue before it failed
                }
                throw e;
            }
        }
        if (firstTtl == null) {
            return true;
        }
        if (!queue) {
            return false;
        }
        boolean forever = waitMs == Args.WAIT_FOREVER;
        long deadline = forever ? 0 : start + TimeUnit.MILLISECONDS.toNanos(waitMs);
        String channel = lock.waitChannel(ownerId);
        if (channel == null) {
            return spin(deadline, forever, ttlMs, ownerId, interruptible);
        }
        boolean interrupted = false;
        boolean acquired = false;
        Waiters.Entry entry = client.waiters().join(channel);
        Handoff.Offer offer = null;
        try {
            long subscribeBudget = client.options().subscriptionTimeout().toNanos();
            if (!forever) {
                subscribeBudget = Math.min(subscribeBudget, deadline - System.nanoTime());
            }
            while (true) {
                try {
                    entry.subscribed.get(Math.max(0, subscribeBudget), TimeUnit.NANOSECONDS);
                    break;
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw RedisLock.asRuntime(DefaultLockClient.unwrap(e));
                } catch (TimeoutException e) {
                    if (!forever && deadline - System.nanoTime() <= 0) {
                        return false;
                    }
                    throw new RedisUnavailableException("subscription to " + entry.channel + " not confirmed within "
                            + client.options().subscriptionTimeout().toMillis() + " ms");
                }
            }
            offer = postOffer(ownerId, ttlMs);
            Long standing = entry == live ? firstTtl : null; // the first attempt stands (see above)
            int idlePolls = 0;
            long unavailableSince = 0;
            while (true) {
                client.ensureOpen();
                if (offer != null) {
                    offer.drain();
                    if (!client.handoff().busy(offer)) { // a releaser claimed it: wait for its answer
                        if (client.handoff().settle(offer)) {
                            acquired = true;
                            return true;
                        }
                        if (!client.handoff().busy(offer)) { // gone (its releaser never answered): wait without it
                            acquired = client.handoff().leave(offer);
                            offer = null;
                            if (acquired) {
                                return true;
                            }
                        }
                    }
                }
                Long ttl;
                if (standing == null) {
                    yieldToAnotherClient();
                }
                try {
                    ttl = standing != null ? standing : lock.tryAcquireOnce(ttlMs, ownerId, true);
                    standing = null;
                    unavailableSince = 0;
                } catch (RedisUnavailableException e) {
                    long now = System.nanoTime();
                    unavailableSince = unavailableSince == 0 ? now : unavailableSince;
                    if (now - unavailableSince > outageAllowanceNanos()) {
                        throw e;
                    }
                    LOG.log(System.Logger.Level.DEBUG, "waiting for ''{0}'': attempt failed, retrying: {1}",
                            lock.name, e.getMessage());
                    ttl = RETRY_AFTER_OUTAGE_MS;
                }
                if (ttl == null) {
                    acquired = true;
                    return true;
                }
                if (offer != null) {
                    client.handoff().arm(offer); // from now a releaser of this client may hand it to us
                }
                idlePolls = ttl == 0 ? idlePolls + 1 : 0;
                long remaining = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (remaining <= 0) {
                    acquired = offer != null && client.handoff().leave(offer); // handed to us just now?
                    return acquired;
                }
                try {
                    park(entry, offer, waitNanos(ttl, remaining, idlePolls));
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true;
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            if (offer != null && client.handoff().leave(offer)) {
                // Handed to us while we were leaving with an error: give it back before we throw.
                try {
                    lock.release(ownerId);
                } catch (RuntimeException giveBack) {
                    e.addSuppressed(giveBack);
                }
            }
            throw e;
        } finally {
            if (offer != null) {
                client.handoff().leave(offer); // idempotent: every exit above settled the offer first
            }
            client.waiters().leave(entry);
            if (!acquired) {
                awaitGiveUp(ownerId);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A waiter need not ask Redis for a lock that a hand-off gave to another thread of this client
     * and that is still validly held: its attempt would fail. It queues for the next hand-off at
     * once, with the hold's remaining time as its first wait (the TTL an attempt would have
     * answered). Not for the fair lock, whose waiters must join its queue in Redis.
     *
     * @return that remaining time in ms, or null: attempt as usual
     */
    private Long heldByAnotherLocalOwner(long ownerId) {
        Handoff handoff = client.handoff();
        if (!handoff.enabled() || lock.protocol.handsOffToQueueHead() || !lock.protocol.handsOff()) {
            return null;
        }
        String holder = handoff.heldLocally(lock.name);
        if (holder == null || holder.equals(lock.field(ownerId))) {
            return null;
        }
        long remaining = client.holds().remainingMs(lock.name, holder);
        return remaining > 0 ? remaining : null;
    }

    /**
     * Right after a run of hand-offs ended with a release another client's waiter heard, waits a
     * moment (about two round trips, see {@link Handoff#yieldAfterRun}) before attempting, so that
     * waiter gets the lock it was told is free.
     */
    private void yieldToAnotherClient() {
        long nanos = client.handoff().yieldNanos(lock.name);
        if (nanos > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(nanos); // an interrupt ends it early, as it should
        }
    }

    /** @return an offer to take the lock straight from a releaser of this client, or null where hand-off does not apply */
    private Handoff.Offer postOffer(long ownerId, long ttlMs) {
        Handoff handoff = client.handoff();
        String field = lock.field(ownerId);
        if (!handoff.enabled() || client.replicaSync() || !lock.protocol.handsOff()) {
            return null;
        }
        return handoff.post(lock.name, ownerId, field, ttlMs);
    }

    /**
     * Parks a blocked waiter for at most {@code nanos}: on the entry's semaphore, or, with an
     * offer, on the offer, queued as one of the entry's listeners so that pub/sub wakes it too (a
     * wake-up banked on the semaphore before it queued is taken at once).
     */
    private static void park(Waiters.Entry entry, Handoff.Offer offer, long nanos) throws InterruptedException {
        if (offer == null) {
            entry.latch.tryAcquire(nanos, TimeUnit.NANOSECONDS);
            return;
        }
        if (entry.takeBankedOrQueue(offer.wake)) {
            return;
        }
        try {
            offer.park(nanos);
        } finally {
            entry.listeners.remove(offer.wake);
        }
    }

    /**
     * The sync wait of a lock type without pub/sub (spin lock, spec 5.5): attempt, pause
     * {@link LockProtocol#backOffMs}, repeat. Nothing is left on the server, so giving up undoes nothing.
     */
    private boolean spin(long deadline, boolean forever, long ttlMs, long ownerId, boolean interruptible)
            throws InterruptedException {
        boolean interrupted = false;
        client.waiters().spinWaitStarted();
        try {
            for (int polls = 1; ; polls++) {
                long remaining = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.sleep(spinNanos(polls, remaining));
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true;
                }
                client.ensureOpen();
                if (lock.tryAcquireOnce(ttlMs, ownerId, true) == null) {
                    return true;
                }
            }
        } finally {
            client.waiters().spinWaitEnded();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private long spinNanos(int polls, long remaining) {
        return Math.min(TimeUnit.MILLISECONDS.toNanos(lock.protocol.backOffMs(polls)), remaining);
    }

    /** Leaves the wait queue (fair lock) before returning, so a next attempt by the same owner cannot race it. */
    private void awaitGiveUp(long ownerId) {
        boolean interrupted = false;
        CompletableFuture<Void> done = giveUpQuietly(ownerId);
        long deadline = System.nanoTime() + client.options().commandTimeout().toNanos();
        while (true) {
            try {
                done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                break; // logged by giveUpQuietly, or still running: the entry expires on its own
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private CompletableFuture<Void> giveUpQuietly(long ownerId) {
        return lock.protocol.giveUp(lock.field(ownerId)).exceptionally(t -> {
            LOG.log(System.Logger.Level.DEBUG,
                    "leaving the wait queue of ''" + lock.name + "'' failed; the entry expires on its own", t);
            return null;
        });
    }

    /**
     * The async wait (spec 5.3): never parks a thread; continuations run on driver or timer threads.
     * The future returned is the caller's and the one the engine watches: cancelling it (or
     * {@code orTimeout}, or closing the client) reaches the wait at once, and an acquisition that
     * lands after that is given back.
     *
     * @param outcome maps "acquired?" to the caller's value; may throw (e.g. a timeout for leases)
     */
    <T> CompletableFuture<T> acquireAsync(long waitMs, long ttlMs, long ownerId,
            Function<Boolean, T> outcome) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        try {
            client.ensureOpen();
        } catch (IllegalStateException e) {
            caller.completeExceptionally(e);
            return caller;
        }
        client.track(caller);
        new AsyncWait<>(caller, outcome, waitMs, ttlMs, ownerId).start();
        return caller;
    }

    /**
     * One async waiter's state machine: attempt; subscribe; attempt / wait-for-wake-or-timer, repeat.
     *
     * <p>Ending. Exactly one party ends the wait, whoever sets {@code finished} first: the machine
     * (acquired, timed out, failed) or the caller (cancel, orTimeout, client closed), seen through
     * the caller's future. Cleaning up after the caller means leaving the channel entry and, for a
     * fair lock, the queue; it must not overtake an attempt already sent (a fair attempt re-joins
     * the queue), so the two sides meet Dekker-style: an attempt sets {@code inFlight} then checks
     * {@code finished}; the caller's side sets {@code finished} then checks {@code inFlight}. The
     * side that sees the other cleans up, and a reply that arrives after the end gives back what it
     * acquired.
     */
    private final class AsyncWait<T> {
        private final CompletableFuture<T> caller;
        private final Function<Boolean, T> outcome;
        private final long deadline;
        private final boolean forever;
        private final boolean queue;
        private final long ttlMs;
        private final long ownerId;
        private final AtomicBoolean finished = new AtomicBoolean();
        private final AtomicBoolean inFlight = new AtomicBoolean();
        private final AtomicBoolean cleaned = new AtomicBoolean();
        private final AtomicBoolean left = new AtomicBoolean();
        private volatile Waiters.Entry entry;
        private volatile Runnable listener;
        private volatile ScheduledFuture<?> timer;
        private final String channel; // null: no pub/sub, poll with back-off (spin lock)
        private volatile boolean spinCounted; // a channel-less waiter counted in Waiters.waiting; leave() uncounts it
        private int idlePolls; // touched by one continuation at a time
        private long unavailableSince; // when attempts started failing for want of Redis; 0 while they answer

        AsyncWait(CompletableFuture<T> caller, Function<Boolean, T> outcome, long waitMs, long ttlMs, long ownerId) {
            this.caller = caller;
            this.outcome = outcome;
            this.forever = waitMs == Args.WAIT_FOREVER;
            this.queue = waitMs != 0;
            this.deadline = forever || !queue ? 0 : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
            this.ttlMs = ttlMs;
            this.ownerId = ownerId;
            this.channel = lock.waitChannel(ownerId);
        }

        void start() {
            caller.whenComplete((v, t) -> {
                if (finished.compareAndSet(false, true)) { // ended by the caller, not by us
                    stopWaiting();
                    cleanUpIfIdle();
                }
            });
            send(queue);
        }

        /** Sends one attempt unless the wait has ended. */
        private void send(boolean joinQueue) {
            inFlight.set(true);
            if (finished.get()) {
                inFlight.set(false);
                cleanUpIfIdle();
                return;
            }
            CompletableFuture<Long> attempt;
            try {
                attempt = lock.tryAcquireOnceAsync(ttlMs, ownerId, joinQueue);
            } catch (RuntimeException e) {
                attempt = CompletableFuture.failedFuture(e);
            }
            attempt.whenComplete(this::onReply);
        }

        private void onReply(Long ttl, Throwable error) {
            inFlight.set(false);
            if (finished.get()) { // the caller left while this attempt was out
                if (error == null && ttl == null) {
                    giveBack();
                }
                cleanUpIfIdle();
                return;
            }
            if (error != null) {
                Throwable cause = DefaultLockClient.unwrap(error);
                long now = System.nanoTime();
                if (entry != null && cause instanceof RedisUnavailableException) {
                    unavailableSince = unavailableSince == 0 ? now : unavailableSince;
                    if (now - unavailableSince <= outageAllowanceNanos()) {
                        waitOrGiveUp(RETRY_AFTER_OUTAGE_MS); // a failover: keep waiting, as the sync path does
                        return;
                    }
                }
                finish(null, cause);
            } else if (ttl == null) {
                acquired();
            } else if (!queue) {
                finish(false, null);
            } else if (channel == null) {
                unavailableSince = 0;
                spinOrGiveUp();
            } else if (entry == null) {
                subscribe(ttl);
            } else {
                unavailableSince = 0;
                waitOrGiveUp(ttl);
            }
        }

        private void subscribe(long firstTtl) {
            Waiters.Entry e = client.waiters().join(channel);
            entry = e;
            if (finished.get()) { // the caller left while we joined: the cleanup may have missed the entry
                leave();
                return;
            }
            long budget = client.options().subscriptionTimeout().toNanos();
            if (!forever) {
                budget = Math.min(budget, Math.max(0, deadline - System.nanoTime()));
            }
            ScheduledFuture<?> timeout = client.schedule(() -> {
                if (!e.subscribed.isDone()) {
                    if (!forever && deadline - System.nanoTime() <= 0) {
                        finish(false, null);
                    } else {
                        finish(null, new RedisUnavailableException("subscription to " + e.channel
                                + " not confirmed within " + client.options().subscriptionTimeout().toMillis() + " ms"));
                    }
                }
            }, budget, this::closed);
            e.subscribed.whenComplete((sub, error) -> {
                if (timeout != null) {
                    timeout.cancel(false);
                }
                if (error != null) {
                    finish(null, DefaultLockClient.unwrap(error));
                } else {
                    send(true); // attempt again now that no unlock can be missed
                }
            });
        }

        private void waitOrGiveUp(long ttl) {
            idlePolls = ttl == 0 ? idlePolls + 1 : 0;
            long remaining = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
            if (remaining <= 0) {
                finish(false, null);
                return;
            }
            waitForWake(waitNanos(ttl, remaining, idlePolls));
        }

        /** No pub/sub (spin lock): attempt again after the back-off, from the timer. */
        private void spinOrGiveUp() {
            long remaining = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
            if (remaining <= 0) {
                finish(false, null);
                return;
            }
            if (!spinCounted) {
                client.waiters().spinWaitStarted();
                spinCounted = true;
            }
            timer = client.schedule(() -> send(true), spinNanos(++idlePolls, remaining), this::closed);
            if (finished.get()) { // the caller left while we counted or scheduled: uncount, cancel the timer
                stopWaiting();
                leave();
            }
        }

        private void waitForWake(long waitNanos) {
            Waiters.Entry e = entry;
            AtomicBoolean fired = new AtomicBoolean();
            Runnable onMessage = new Runnable() {
                @Override
                public void run() {
                    if (!finished.get() && fired.compareAndSet(false, true)) {
                        ScheduledFuture<?> t = timer;
                        if (t != null) {
                            t.cancel(false);
                        }
                        send(true);
                    } else {
                        e.wakeOne(); // this wake-up was meant for someone still waiting: pass it on
                    }
                }
            };
            listener = onMessage;
            // A message that arrived before the listener could be queued banked a permit: take it
            // and attempt now; otherwise the listener is queued in the same step, so no wake-up
            // can fall in between.
            if (e.takeBankedOrQueue(onMessage)) {
                fired.set(true);
                send(true);
                return;
            }
            timer = client.schedule(() -> {
                if (fired.compareAndSet(false, true)) {
                    e.listeners.remove(onMessage);
                    send(true);
                }
            }, waitNanos, this::closed);
            if (finished.get()) { // the caller left while we queued the listener
                stopWaiting();
            }
        }

        private void acquired() {
            leave();
            if (!finished.compareAndSet(false, true)) {
                giveBack();
                return;
            }
            T value;
            try {
                value = outcome.apply(true);
            } catch (RuntimeException ex) {
                giveBack();
                caller.completeExceptionally(ex);
                return;
            }
            if (!caller.complete(value)) { // cancelled after we won the race: cannot happen, but never keep it
                giveBack();
            }
        }

        /** Ends the wait without the lock: leaves the channel and the queue first, then tells the caller. */
        private void finish(Boolean value, Throwable error) {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            stopWaiting();
            cleaned.set(true);
            leave();
            (queue ? giveUpQuietly(ownerId) : CompletableFuture.<Void>completedFuture(null)).whenComplete((v, t) -> {
                if (error != null) {
                    caller.completeExceptionally(error);
                    return;
                }
                try {
                    caller.complete(outcome.apply(value));
                } catch (RuntimeException ex) {
                    caller.completeExceptionally(ex);
                }
            });
        }

        private void closed() {
            finish(null, new IllegalStateException("this LockClient (" + client.clientId()
                    + ") was closed while waiting for lock '" + lock.name + "'"));
        }

        /** Unhooks the pending listener and timer, so a caller who left frees the channel at once. */
        private void stopWaiting() {
            Waiters.Entry e = entry;
            Runnable l = listener;
            if (e != null && l != null) {
                e.listeners.remove(l);
            }
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }

        /** After the caller left: leave the channel and the fair queue, unless an attempt is still out. */
        private void cleanUpIfIdle() {
            if (!inFlight.get() && cleaned.compareAndSet(false, true)) {
                leave();
                if (queue) {
                    giveUpQuietly(ownerId);
                }
            }
        }

        /** An acquisition nobody will use: release it (the hold was registered, so this balances it). */
        private void giveBack() {
            giveBack(System.nanoTime(), GIVE_BACK_FIRST_RETRY_MS);
        }

        /**
         * Releases the unused acquisition. A release the driver refused before sending it (its queue
         * of async calls was full, as when thousands of cancelled attempts land at once) is sent
         * again after a back-off, while the hold is still renewed, for up to one watchdog timeout;
         * then the hold is dropped and the key expires on its own. Any other failure has an unknown
         * outcome and is not retried: a second release could take a hold count the owner still uses.
         */
        private void giveBack(long since, long retryMs) {
            if (client.isClosed()) {
                return; // onAttempt registered nothing and already gave it back, or close released it
            }
            lock.unlockAsync(ownerId).exceptionally(t -> {
                boolean notSent = DefaultLockClient.notSent(t);
                if (notSent && System.nanoTime() - since < TimeUnit.MILLISECONDS.toNanos(client.watchdogMs())) {
                    long next = Math.min(retryMs * 2, GIVE_BACK_MAX_RETRY_MS);
                    client.schedule(() -> giveBack(since, next), TimeUnit.MILLISECONDS.toNanos(retryMs), () -> { });
                    return null;
                }
                if (notSent) {
                    client.holds().releaseFailed(lock.name, lock.field(ownerId)); // stop renewing it
                }
                LOG.log(System.Logger.Level.WARNING,
                        "giving back lock ''" + lock.name + "'' after its caller left failed; it expires on its own", t);
                return null;
            });
        }

        /** Leaves the channel entry, or uncounts a spin waiter; once, whoever calls first. */
        private void leave() {
            Waiters.Entry e = entry;
            if ((e != null || spinCounted) && left.compareAndSet(false, true)) {
                if (e != null) {
                    client.waiters().leave(e);
                } else {
                    client.waiters().spinWaitEnded();
                }
            }
        }
    }

}
