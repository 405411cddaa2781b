package io.github.relock.core.internal;

import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.HoldRegistry.Hold;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A Redisson-compatible lock of one name: reentrant, fair, spin, fenced or non-reentrant, as its
 * {@link LockProtocol} says ({@link FencedRedisLock} adds the token methods).
 * Owner field {@code <clientId>:<ownerId>}. Waiting is {@link LockWait}'s, holds are the
 * {@link HoldRegistry}'s, renewal is the {@link Watchdog}'s; this class runs single attempts and
 * releases and keeps the registry in step with the scripts' answers.
 *
 * <p>Thread-safety: safe for use by several threads; it holds no per-object state beyond its name.
 */
class RedisLock extends AbstractLock {
    private static final System.Logger LOG = System.getLogger(RedisLock.class.getName());
    /** An acquire script's answer when a non-reentrant lock's holder asks again (a PTTL is never below -2). */
    private static final long REACQUIRE_REFUSED = -3;
    /** A release script's answer when it handed the lock to a waiting owner of this client ({@link Handoff}). */
    static final long TRANSFERRED = 2;
    /** The answer of a release that ended a run of hand-offs and was heard by another client's waiter. */
    private static final long HEARD_ELSEWHERE = 3;
    // What each script's reply must be, for the error a malformed reply gets (constants: the lock
    // path builds no message unless a reply is wrong).
    private static final String ACQUIRE_REPLY = "nil (acquired), " + REACQUIRE_REFUSED
            + " (refused) or the holder's TTL in ms (-1 or more)";
    private static final String FENCED_REPLY = "{1, token} or {0, pttl}";
    private static final String RELEASE_REPLY =
            "an integer (1 released, 2 + k handed to candidate k, 0 still held, -1 free, -2 held by another owner)";
    private static final String STATE_REPLY = "{exists 0 or 1, hold count, pttl}";
    private static final String EXPIRE_REPLY = "1 (set) or 0 (not held)";

    final DefaultLockClient client;
    final String name;
    final LockProtocol protocol;
    private final LockWait wait;
    private final List<String> stateKeys;

    RedisLock(DefaultLockClient client, String name, LockProtocol protocol) {
        this.client = client;
        this.name = name;
        this.protocol = protocol;
        this.wait = new LockWait(this);
        this.stateKeys = List.of(name);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public String toString() {
        return protocol.kind() + "[" + name + "]";
    }

    // ---------------------------------------------------------------- primitives

    @Override
    boolean acquire(long waitMs, long ttlMs, long ownerId, boolean interruptible) throws InterruptedException {
        LockEvents events = client.events();
        if (!events.timing()) {
            return wait.acquire(waitMs, ttlMs, ownerId, interruptible);
        }
        long start = System.nanoTime();
        boolean acquired = wait.acquire(waitMs, ttlMs, ownerId, interruptible);
        events.acquired(name, System.nanoTime() - start, acquired);
        return acquired;
    }

    @Override
    <T> CompletableFuture<T> acquireAsync(long waitMs, long ttlMs, long ownerId, Function<Boolean, T> outcome) {
        LockEvents events = client.events();
        if (!events.timing()) {
            return wait.acquireAsync(waitMs, ttlMs, ownerId, outcome);
        }
        long start = System.nanoTime();
        return wait.acquireAsync(waitMs, ttlMs, ownerId, ok -> {
            events.acquired(name, System.nanoTime() - start, ok);
            return outcome.apply(ok);
        });
    }

    @Override
    void release(long ownerId) {
        client.ensureOpen();
        String field = field(ownerId);
        long ttl = client.holds().beginRelease(name, field);
        List<Handoff.Offer> to = claimNext(field);
        List<String> args = releaseArgs(ttl, field, to);
        to = to == Handoff.RUN_ENDED ? null : to;
        long sentAt = System.nanoTime();
        Object reply;
        try {
            reply = client.evalWrite("unlock of lock '" + name + "'", protocol.releaseScript(),
                    protocol.releaseKeys(field), args);
        } catch (ReplicaShortfall e) {
            afterRelease(field, ownerId, releaseAnswer(e.reply, field)); // done on the master: keep the registry in step
            throw e;
        } catch (RuntimeException e) {
            client.handoff().unclaim(to, null, true);
            client.holds().releaseFailed(name, field); // outcome unknown: stop renewing; it expires if it never ran
            throw e;
        }
        released(reply, field, ownerId, to, sentAt);
    }

    /**
     * Applies a release script's answer: the registry, the hand-off to a claimed waiter, and the
     * claims not granted, whose waiters are woken unless the lock stayed with this client (still
     * held, or handed to one of them); a fair waiter behind another client's head then polls,
     * keeping its place.
     */
    private void released(Object reply, String field, long ownerId, List<Handoff.Offer> to, long sentAt) {
        Handoff.Offer granted = null;
        boolean wake = true; // until the answer says the lock stayed with this client
        try {
            long answer = releaseAnswer(reply, field);
            granted = chosen(to, answer);
            wake = answer != 0 && granted == null;
            afterRelease(field, ownerId, answer);
            if (granted != null) {
                handOff(granted, sentAt);
            } else if (answer == HEARD_ELSEWHERE && to == null) {
                client.handoff().yieldAfterRun(name, System.nanoTime() - sentAt);
            }
        } finally {
            client.handoff().unclaim(to, granted, wake);
        }
    }

    /**
     * Claims this client's waiting owners to hand the lock to, if this release may be the last
     * hold's and the lock type hands off (see {@link Handoff}).
     *
     * @return the claimed offers, or null: an ordinary release
     */
    private List<Handoff.Offer> claimNext(String field) {
        Handoff handoff = client.handoff();
        if (!handoff.enabled() || !protocol.handsOff() || client.replicaSync() || !client.holds().lastHold(name, field)) {
            return null;
        }
        return handoff.claimOne(name, !protocol.handsOffToQueueHead());
    }

    /** @return the release's arguments: ordinary, ending a run of hand-offs, or handing off to {@code to} */
    private List<String> releaseArgs(long ttl, String field, List<Handoff.Offer> to) {
        if (to == null) {
            return protocol.releaseArgs(ttl, field);
        }
        return to == Handoff.RUN_ENDED ? protocol.endOfRunArgs(ttl, field) : transferArgs(ttl, field, to);
    }

    private List<String> transferArgs(long ttl, String field, List<Handoff.Offer> to) {
        List<String> candidates = new java.util.ArrayList<>(2 * to.size());
        for (Handoff.Offer o : to) {
            candidates.add(o.field);
            candidates.add(Long.toString(ttlArg(o.ttlMs)));
        }
        return protocol.transferArgs(ttl, field, candidates);
    }

    /** @return the candidate a release script's answer handed the lock to, or null */
    private Handoff.Offer chosen(List<Handoff.Offer> to, long answer) {
        if (to == null || answer < TRANSFERRED) {
            return null;
        }
        long k = answer - TRANSFERRED;
        if (k >= to.size()) {
            throw Replies.malformed(answer, protocol.releaseScript(), name, RELEASE_REPLY);
        }
        return to.get((int) k);
    }

    /**
     * The release script handed the lock to {@code to}'s owner (the script was sent at
     * {@code sentAt}): register its hold and wake it. If the client closed meanwhile, or the
     * waiter already left, the lock is given back.
     */
    private void handOff(Handoff.Offer to, long sentAt) {
        if (client.holds().register(name, to.field, to.ownerId, name, to.ttlMs, sentAt, HoldRegistry.NO_TOKEN,
                protocol.timeoutKeyPrefix()) == null) {
            client.handoff().unclaim(List.of(to), null, true); // closed: the waiter sees it; the lock goes back below
            giveBackHandedOff(to);
            return;
        }
        if (!client.handoff().grant(to)) {
            client.holds().released(name, to.field, 1); // the waiter left before the grant: not its hold
            giveBackHandedOff(to);
        }
    }

    private void giveBackHandedOff(Handoff.Offer to) {
        client.evalAsync(protocol.releaseScript(), protocol.releaseKeys(to.field),
                protocol.releaseArgs(ttlArg(to.ttlMs), to.field)).exceptionally(t -> {
                    LOG.log(System.Logger.Level.WARNING, "giving back lock ''" + name
                            + "'' handed to a waiter that had left failed; it expires on its own", t);
                    return null;
                });
    }

    @Override
    CompletableFuture<Void> releaseAsync(long ownerId) {
        try {
            client.ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        String field = field(ownerId);
        long ttl = client.holds().beginRelease(name, field);
        List<Handoff.Offer> claimed = claimNext(field);
        List<String> args = releaseArgs(ttl, field, claimed);
        List<Handoff.Offer> to = claimed == Handoff.RUN_ENDED ? null : claimed;
        long sentAt = System.nanoTime();
        CompletableFuture<Object> sent;
        try {
            sent = client.evalWriteAsync("unlock of lock '" + name + "'", protocol.releaseScript(),
                    protocol.releaseKeys(field), args);
        } catch (RuntimeException e) {
            client.handoff().unclaim(to, null, true);
            throw e;
        }
        return sent
                .handle((reply, error) -> {
                    if (error != null) {
                        client.handoff().unclaim(to, null, true);
                        Throwable cause = DefaultLockClient.unwrap(error);
                        if (cause instanceof ReplicaShortfall shortfall) {
                            afterRelease(field, ownerId, releaseAnswer(shortfall.reply, field)); // done on the master
                        } else if (DefaultLockClient.notSent(cause)) {
                            client.holds().releaseNotSent(name, field); // never ran: still held, still renewed
                        } else {
                            client.holds().releaseFailed(name, field); // outcome unknown: stop renewing
                        }
                        throw asRuntime(cause);
                    }
                    released(reply, field, ownerId, to, sentAt);
                    return null;
                });
    }

    @Override
    LockLease lease(long id) {
        Hold h = client.holds().get(name, field(id));
        return h != null ? new LeaseHandle(this, h)
                // lost between acquisition and here (client closed, key deleted): say so honestly
                : LeaseHandle.lost(this, field(id), id, client.isClosed()
                        ? LockLostEvent.Reason.CLIENT_CLOSED : LockLostEvent.Reason.NOT_HELD);
    }

    // ---------------------------------------------------------------- attempts, for LockWait

    String field(long ownerId) {
        return protocol.ownerField(client.clientId(), ownerId);
    }

    String waitChannel(long ownerId) {
        return protocol.waitChannel(field(ownerId));
    }

    private long ttlArg(long ttlMs) {
        return ttlMs == Args.TTL_WATCHDOG ? client.watchdogMs() : ttlMs;
    }

    /** One attempt on the calling thread; registers the hold on success. @return null if acquired, else the ms to wait */
    Long tryAcquireOnce(long ttlMs, long ownerId, boolean queue) {
        String field = field(ownerId);
        long sentAt = System.nanoTime();
        Object reply;
        try {
            reply = client.evalWrite("lock '" + name + "' acquired", protocol.acquireScript(),
                    protocol.acquireKeys(field), protocol.acquireArgs(ttlArg(ttlMs), field, queue));
        } catch (ReplicaShortfall e) {
            reply = undoShortAcquire(e, ttlMs, field);
        }
        return onAttempt(reply, ttlMs, ownerId, field, sentAt);
    }

    /**
     * Replica sync: an attempt too few replicas acknowledged. If it acquired, give the acquisition
     * back (best effort, without waiting for replicas) and throw; an attempt that did not acquire
     * changed no ownership, so its answer stands.
     */
    private Object undoShortAcquire(ReplicaShortfall e, long ttlMs, String field) {
        Object reply = e.reply;
        boolean acquired = reply == null
                || (reply instanceof List<?> fenced && Long.valueOf(1).equals(fenced.get(0)));
        if (!acquired) {
            return reply;
        }
        RedisUnavailableException failure = new RedisUnavailableException("lock '" + name + "' not acquired: only "
                + e.acknowledged + " of " + e.required + " replica(s) acknowledged the acquisition in time"
                + " (LockOptions.replicaSync); it was given back", e);
        try {
            client.eval(protocol.releaseScript(), protocol.releaseKeys(field), protocol.releaseArgs(ttlArg(ttlMs), field));
        } catch (RuntimeException undoFailed) {
            failure.addSuppressed(undoFailed); // not given back: it expires with its TTL
        }
        throw failure;
    }

    /** As {@link #tryAcquireOnce}, without blocking. */
    CompletableFuture<Long> tryAcquireOnceAsync(long ttlMs, long ownerId, boolean queue) {
        String field = field(ownerId);
        long sentAt = System.nanoTime();
        if (client.replicaSync()) { // on the sync threads: the undo may block too
            return client.evalWriteAsync("lock '" + name + "' acquired", protocol.acquireScript(),
                            protocol.acquireKeys(field), protocol.acquireArgs(ttlArg(ttlMs), field, queue))
                    .handle((reply, error) -> {
                        if (error == null) {
                            return reply;
                        }
                        Throwable cause = DefaultLockClient.unwrap(error);
                        if (cause instanceof ReplicaShortfall shortfall) {
                            return undoShortAcquire(shortfall, ttlMs, field);
                        }
                        throw asRuntime(cause);
                    })
                    .thenApply(reply -> onAttempt(reply, ttlMs, ownerId, field, sentAt));
        }
        return client.evalAsync(protocol.acquireScript(), protocol.acquireKeys(field),
                        protocol.acquireArgs(ttlArg(ttlMs), field, queue))
                .thenApply(reply -> onAttempt(reply, ttlMs, ownerId, field, sentAt));
    }

    private Long onAttempt(Object reply, long ttlMs, long ownerId, String field, long sentAt) {
        long token = HoldRegistry.NO_TOKEN;
        if (reply instanceof List<?>) { // the fenced acquire: {1, token} or {0, pttl}
            long[] fenced = Replies.integers(reply, 2, protocol.acquireScript(), name, FENCED_REPLY);
            if (fenced[0] != 0 && fenced[0] != 1) {
                throw Replies.malformed(reply, protocol.acquireScript(), name, FENCED_REPLY);
            }
            token = fenced[0] == 1 ? fenced[1] : token;
            reply = fenced[0] == 1 ? null : fenced[1];
        }
        if (reply == null) {
            if (client.holds().register(name, field, ownerId, name, ttlMs, sentAt, token, protocol.timeoutKeyPrefix()) == null) {
                // The client closed while the script ran: register nothing, give the lock back if we still can.
                client.evalAsync(protocol.releaseScript(), protocol.releaseKeys(field),
                        protocol.releaseArgs(ttlArg(ttlMs), field)).exceptionally(t -> null);
                throw new IllegalStateException("this LockClient (" + client.clientId()
                        + ") was closed while acquiring lock '" + name + "'");
            }
            return null;
        }
        long ttl = Replies.integer(reply, protocol.acquireScript(), name, ACQUIRE_REPLY);
        if (ttl == REACQUIRE_REFUSED) {
            throw new IllegalMonitorStateException(protocol.refusal(name, field));
        }
        if (ttl < -1) {
            throw Replies.malformed(reply, protocol.acquireScript(), name, ACQUIRE_REPLY);
        }
        return ttl;
    }

    /**
     * @return a release script's answer (1 released, 0 still held, -1 free, -2 held by another owner)
     * @throws io.github.relock.api.LockException if the driver answered something else; the hold
     *     is then treated as a release of unknown outcome: no longer renewed, it expires on its own
     */
    private long releaseAnswer(Object reply, String field) {
        try {
            return Replies.integer(reply, protocol.releaseScript(), name, RELEASE_REPLY);
        } catch (RuntimeException e) {
            client.holds().releaseFailed(name, field);
            throw e;
        }
    }

    private void afterRelease(String field, long ownerId, long answer) {
        if (answer >= TRANSFERRED) {
            answer = 1; // released, as far as this owner is concerned
        }
        Hold held = answer > 0 && client.events().timing() ? client.holds().get(name, field) : null;
        client.holds().released(name, field, answer);
        if (held != null) {
            client.events().released(name, System.nanoTime() - held.acquiredNanos());
        }
        if (answer < 0) {
            throw new IllegalMonitorStateException("attempt to unlock lock '" + name
                    + "', not locked by current thread by node id: " + client.clientId() + " thread-id: " + ownerId
                    + (answer == -1
                            ? ": the lock is free (its lease expired or it was force-unlocked)"
                            : ": it is held by another owner"));
        }
    }

    // ---------------------------------------------------------------- for composites (MultiRedisLock)

    /** Acquire for {@code ownerId} without blocking ({@code waitMs} {@link Args#TRY_ONCE} = one attempt). */
    CompletableFuture<Boolean> acquireFor(long waitMs, long ttlMs, long ownerId) {
        return acquireAsync(waitMs, ttlMs, ownerId, Boolean::valueOf);
    }

    /** Set the TTL of this owner's hold to {@code ttlMs}; answers whether the owner still held it. */
    CompletableFuture<Boolean> expireFor(long ttlMs, long ownerId) {
        String field = field(ownerId);
        long sentAt = System.nanoTime();
        return client.evalAsync(protocol.expireScript(), protocol.expireKeys(name, field), List.of(Long.toString(ttlMs), field))
                .thenApply(r -> {
                    boolean held = Long.valueOf(1).equals(r);
                    if (held) {
                        client.holds().ttlChanged(name, field, ttlMs, sentAt);
                    }
                    return held;
                });
    }

    /**
     * Sets the TTL of hold {@code h} to {@code ttlMs} from now (LockLease.expireIn), or, with
     * {@code ending}, keeps the key for {@code ttlMs} and forgets the hold (LockLease.releaseAfter):
     * never renewed again, never reported lost.
     *
     * @return whether the hold was still held (and, without {@code ending}, still is); a hold the
     *     script finds gone is reported lost (NOT_HELD) unless {@code ending}
     */
    boolean expireHold(Hold h, long ttlMs, boolean ending) {
        long sentAt = System.nanoTime();
        if (!client.holds().beginTtlChange(h, ttlMs, sentAt, ending)) {
            if (ending) {
                client.holds().forget(h); // lost or past its TTL: ended without a report, as a release would
            }
            return false;
        }
        boolean held;
        try {
            client.ensureOpen();
            Object reply = client.eval(protocol.expireScript(), protocol.expireKeys(name, h.field()),
                    List.of(Long.toString(ttlMs), h.field()));
            long answer = Replies.integer(reply, protocol.expireScript(), name, EXPIRE_REPLY);
            if (answer != 0 && answer != 1) {
                throw Replies.malformed(reply, protocol.expireScript(), name, EXPIRE_REPLY);
            }
            held = answer == 1;
        } finally {
            if (ending) {
                client.holds().forget(h); // whatever the outcome: the key expires on its own
            }
        }
        if (ending) {
            return held;
        }
        if (!held) {
            client.holds().notHeld(h);
            return false;
        }
        client.holds().ttlChanged(name, h.field(), ttlMs, sentAt);
        return h.valid();
    }

    /** @return the hold this client registered for {@code ownerId}, or null */
    Hold holdOf(long ownerId) {
        return client.holds().get(name, field(ownerId));
    }

    // ---------------------------------------------------------------- force and state reads

    @Override
    public boolean forceUnlock() {
        client.ensureOpen();
        Object r;
        try {
            r = client.evalWrite("forceUnlock of lock '" + name + "'", protocol.forceReleaseScript(),
                    protocol.forceReleaseKeys(), protocol.forceReleaseArgs());
        } catch (ReplicaShortfall e) {
            if (Long.valueOf(1).equals(e.reply)) {
                client.holds().forceReleased(name); // deleted on the master
            }
            throw e;
        }
        boolean deleted = Long.valueOf(1).equals(r);
        if (deleted) { // a read-write lock's half deletes only in its own mode: the other half's holds stay
            client.holds().forceReleased(name);
        }
        return deleted;
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        try {
            client.ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        return client.evalWriteAsync("forceUnlock of lock '" + name + "'", protocol.forceReleaseScript(),
                        protocol.forceReleaseKeys(), protocol.forceReleaseArgs())
                .handle((r, error) -> {
                    if (error != null) {
                        Throwable cause = DefaultLockClient.unwrap(error);
                        if (cause instanceof ReplicaShortfall shortfall && Long.valueOf(1).equals(shortfall.reply)) {
                            client.holds().forceReleased(name); // deleted on the master
                        }
                        throw asRuntime(cause);
                    }
                    boolean deleted = Long.valueOf(1).equals(r);
                    if (deleted) {
                        client.holds().forceReleased(name);
                    }
                    return deleted;
                });
    }

    @Override
    public boolean isLocked() {
        return state("").exists;
    }

    @Override
    public boolean isHeldByThread(long threadId) {
        return state(field(threadId)).count > 0;
    }

    @Override
    public int getHoldCount() {
        return state(field(currentThreadId())).count;
    }

    @Override
    public long remainTimeToLive() {
        return state("").pttl;
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return stateAsync("").thenApply(s -> s.exists);
    }

    @Override
    public CompletableFuture<Boolean> isHeldByThreadAsync(long threadId) {
        return stateAsync(field(threadId)).thenApply(s -> s.count > 0);
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return stateAsync(field(threadId)).thenApply(s -> s.count);
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return stateAsync("").thenApply(s -> s.pttl);
    }

    private record State(boolean exists, int count, long pttl) {
    }

    private State state(String field) {
        client.ensureOpen();
        return toState(client.eval(protocol.stateScript(), stateKeys, protocol.stateArgs(field)));
    }

    private CompletableFuture<State> stateAsync(String field) {
        try {
            client.ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        return client.evalAsync(protocol.stateScript(), stateKeys, protocol.stateArgs(field)).thenApply(this::toState);
    }

    private State toState(Object reply) {
        long[] r = Replies.integers(reply, 3, protocol.stateScript(), name, STATE_REPLY);
        return new State(r[0] == 1L, (int) r[1], r[2]);
    }

    static RuntimeException asRuntime(Throwable t) {
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new RedisUnavailableException("lock operation failed: " + t, t);
    }
}
