package io.github.relock.core.internal.hold;

import io.github.relock.api.LockLostEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.util.Args;

/*
 * Design: the registry of holds, the single owner of hold state.
 *
 * State. One Hold per (lock key, owner field) this client holds, in one map keyed by a small
 * Hold.Key (the two strings the caller already has, no concatenated id); a Hold's fields
 * change only through this class's methods. A Hold is kept lean, since a client
 * may hold tens of thousands of locks: primitive fields, the lock's own key and field strings
 * (shared, never copied), and no lost-callback list until someone registers a callback. Owner
 * fields repeat across holds (one thread holding many locks has one field), so a new hold reuses
 * the field string of the previous registration when it is equal, instead of keeping its own copy. An acquisition (the acquire script
 * answered nil) creates the Hold or bumps its count; a release follows the release script's
 * answer; holds taken with an explicit TTL are kept too, so leases can say whether they are valid,
 * and dropped once that TTL has run out. The Watchdog only asks: which holds to renew, and tells
 * it the answers.
 *
 * Release. A hold leaves the map when the application has released every acquisition it knows
 * of: the release script answered released (gone), or still held for the last local count, or the
 * release failed with an unknown outcome. Local and Redis counts agree: a waiter whose acquisition
 * or hand-off may have landed with its reply lost asks again in resolve mode, which takes a grant
 * it finds for the one it lost instead of counting it twice (AttemptMode.RESOLVE); should they
 * still differ (a first attempt whose reply was lost, thrown to its caller), the stray count is
 * simply no longer renewed and expires within one TTL; it is never renewed forever. An unlock
 * counts itself on its hold (`releases`) before the script is sent, and off when it is answered,
 * so a renewal miss while any unlock of the hold is in flight (an owner may send several, async,
 * back to back) is no loss.
 * A lease's releaseAfter ends its hold with no release script: the hold is forgotten, never
 * reported; its expireIn makes a watchdog hold an explicit-TTL one (beginTtlChange).
 *
 * Loss. Holds found gone (NOT_HELD), not confirmed by a renewal by their deadline (RENEWAL_FAILED:
 * nine tenths of a watchdog timeout after the last confirmed send, before the key can expire),
 * past their TTL (LEASE_EXPIRED) or still registered at close (CLIENT_CLOSED) leave the map and
 * are reported once, through the client's callback runner (never a driver I/O thread); close()
 * reports on the closing thread before it returns. A loss is logged as a WARNING unless an onLost
 * callback of the hold takes it (then at DEBUG: the application was told). Times are taken when a command was sent, never
 * when its reply came, so a hold never looks valid after Redis expired it.
 *
 * Closing. After close() nothing is registered: an acquisition that lands later gets null and its
 * caller gives the lock back.
 *
 * Thread-safety: safe for use by several threads.
 */
public final class HoldRegistry {
    private static final System.Logger LOG = System.getLogger(HoldRegistry.class.getName());

    private final Map<Hold.Key, Hold> holds = new ConcurrentHashMap<>();
    /** The owner field of the last registration: a new hold of the same owner shares it (a racy cache, harmless). */
    private volatile String lastField = "";
    private final long watchdogMs;
    private final Consumer<LockLostEvent> lostSink;
    private final Consumer<Runnable> callbackRunner;
    private volatile boolean closed;

    /**
     * @param watchdogMs the TTL of watchdog holds
     * @param lostSink the client's lock-lost listeners
     * @param callbackRunner runs loss callbacks off the driver's threads
     */
    public HoldRegistry(long watchdogMs, Consumer<LockLostEvent> lostSink, Consumer<Runnable> callbackRunner) {
        this.watchdogMs = watchdogMs;
        this.lostSink = lostSink;
        this.callbackRunner = callbackRunner;
    }

    static Hold.Key id(String key, String field) {
        return new Hold.Key(key, field);
    }

    /**
     * Registers an acquisition the script confirmed.
     *
     * @param ttlMs the TTL it was taken with, or {@link Args#TTL_WATCHDOG}
     * @param sentAtNanos when the acquire script was sent: the TTL runs from then
     * @param token the fencing token this acquisition was granted, or {@code Acquire.NO_TOKEN}
     * @param timeoutKeyPrefix the prefix of the hold's per-acquisition timeout keys (read lock), or null
     * @return the hold, or null if the client is closed (nothing is registered; the caller gives the lock back)
     */
    public Hold register(String key, String field, long ownerId, String lockName, long ttlMs, long sentAtNanos, long token,
            String timeoutKeyPrefix) {
        if (closed) {
            return null;
        }
        String last = lastField;
        if (last.equals(field)) {
            field = last;
        } else {
            lastField = field;
        }
        Hold hold = holds.compute(id(key, field), (id, h) -> {
            if (h == null || h.lost()) {
                h = new Hold(id, ownerId, lockName);
                h.acquiredNanos = sentAtNanos;
            }
            h.count++;
            h.givingBack = false; // an owner holds it again
            h.ttlMs = ttlMs;
            h.expiresAtNanos = ttlMs == Args.TTL_WATCHDOG ? Long.MAX_VALUE
                    : sentAtNanos + TimeUnit.MILLISECONDS.toNanos(ttlMs);
            h.lastConfirmedNanos = sentAtNanos;
            h.token = token;
            h.timeoutKeyPrefix = timeoutKeyPrefix;
            return h;
        });
        if (closed) { // close() ran meanwhile: whether or not it saw this hold, it must not stay registered
            holds.remove(hold.id, hold);
            return null;
        }
        return hold;
    }

    /**
     * A cohort pass: the last hold of {@code from} becomes {@code to}'s, with no Redis call. Redis
     * keeps the lock under the field it holds it by (from's own, or the anchor from was passed);
     * the new hold is renewed there, keeps from's last confirmation and is reported lost to
     * {@code to}. Only a valid watchdog hold held once, with no unlock in flight, is passed.
     *
     * @return the new hold; or from's old hold, removed, when the new one could not be registered
     *     (the client closed meanwhile: the caller gives the lock back in Redis); or null: nothing
     *     changed (from's hold is not passable, or the client is closed)
     */
    public Hold pass(String key, String from, String to, long toOwnerId, long nowNanos) {
        if (closed) {
            return null;
        }
        Hold[] gone = new Hold[1];
        holds.computeIfPresent(id(key, from), (id, h) -> {
            if (h.count != 1 || h.releases != 0 || !h.watchdog() || h.lost()) {
                return h;
            }
            gone[0] = h;
            return null;
        });
        Hold old = gone[0];
        if (old == null) {
            return null;
        }
        Hold next = new Hold(id(key, to), toOwnerId, old.lockName);
        next.count = 1;
        next.ttlMs = Args.TTL_WATCHDOG;
        next.expiresAtNanos = Long.MAX_VALUE;
        next.acquiredNanos = nowNanos;
        next.lastConfirmedNanos = old.lastConfirmedNanos;
        next.redisField = old.redisField();
        next.timeoutKeyPrefix = old.timeoutKeyPrefix;
        // Dekker-style with lose(): it marks old lostWhilePassing, then follows passedTo; this sets
        // passedTo, registers next, then reads the mark: a loss racing the pass reaches next either way.
        old.passedTo = next;
        if (holds.putIfAbsent(next.id, next) != null || closed) {
            holds.remove(next.id, next);
            return old; // to holds it already (not a waiter), or close() ran: the caller gives the lock back
        }
        LockLostEvent.Reason lost = old.lostWhilePassing;
        if (lost != null) {
            lose(next, lost);
        }
        return next;
    }

    /** @return the field Redis holds {@code key} under for {@code field}'s hold: the anchor of a cohort hold, else {@code field} */
    public String redisField(String key, String field) {
        Hold h = holds.get(id(key, field));
        return h == null ? field : h.redisField();
    }

    /** A composite shortened a hold's TTL (sent at {@code sentAtNanos}) after acquiring it with a longer one. */
    public void ttlChanged(String key, String field, long ttlMs, long sentAtNanos) {
        Hold h = holds.get(id(key, field));
        if (h != null && !h.watchdog()) {
            h.ttlMs = ttlMs;
            h.expiresAtNanos = sentAtNanos + TimeUnit.MILLISECONDS.toNanos(ttlMs);
        }
    }

    /**
     * A lease is about to set its hold's TTL (LockLease.expireIn, releaseAfter), with a script sent
     * at {@code sentAtNanos}. From now on the hold is not renewed (a watchdog hold becomes an
     * explicit-TTL one) and is believed held until the earlier of its current end and the new
     * one, since the script may not run; {@link #ttlChanged} moves the end once it has.
     *
     * @param ending releaseAfter: a loss found meanwhile is no loss, the caller then {@link #forget}s it
     * @return false if the hold is no longer registered, lost or past its TTL (nothing changed)
     */
    public boolean beginTtlChange(Hold h, long ttlMs, long sentAtNanos, boolean ending) {
        return holds.computeIfPresent(h.id, (id, x) -> {
            if (x == h && x.valid()) {
                long end = x.watchdog() ? confirmDeadline(x) : x.expiresAtNanos;
                long next = sentAtNanos + TimeUnit.MILLISECONDS.toNanos(ttlMs);
                x.expiresAtNanos = next - end < 0 ? next : end;
                x.ttlMs = ttlMs;
                x.releases += ending ? 1 : 0; // never answered: the hold is forgotten
            }
            return x;
        }) == h && h.valid();
    }

    /** LockLease.releaseAfter: the hold ends without a release script: forgotten, neither renewed nor reported. */
    public void forget(Hold h) {
        holds.remove(h.id, h);
    }

    /**
     * @return how long the hold of {@code key} by {@code field} is believed to last, in ms (the
     *     watchdog timeout for a renewed hold), or -1 if there is no valid hold
     */
    public long remainingMs(String key, String field) {
        Hold h = holds.get(id(key, field));
        if (h == null || !h.valid()) {
            return -1;
        }
        return h.watchdog() ? watchdogMs : Math.max(0, TimeUnit.NANOSECONDS.toMillis(h.expiresAtNanos - System.nanoTime()));
    }

    /**
     * @return until when (System.nanoTime) {@code h} is known to be held: the send time of the
     *     command that last confirmed it plus the TTL that command set (LockLease.deadline()); a
     *     hold whose TTL is being changed is believed held only until the earlier of the two ends
     */
    public long heldUntilNanos(Hold h) {
        return h.watchdog() ? h.lastConfirmedNanos + TimeUnit.MILLISECONDS.toNanos(watchdogMs) : h.expiresAtNanos;
    }

    /** @return whether this client holds {@code key} as {@code field} exactly once (a release would end the hold) */
    public boolean lastHold(String key, String field) {
        Hold h = holds.get(id(key, field));
        return h != null && h.count == 1;
    }

    public Hold get(String key, String field) {
        return holds.get(id(key, field));
    }

    /**
     * A give-back starts for an acquisition nobody wants (its caller left before it landed). When
     * it is the hold's only acquisition, nobody holds the lock here any more: a loss found, or
     * {@link #close()} running, before the give-back's release answers tells nobody. Another
     * acquisition registered meanwhile makes it an owner's hold again.
     */
    public void givingBack(String key, String field) {
        holds.computeIfPresent(id(key, field), (id, h) -> {
            if (h.count == 1) {
                h.givingBack = true;
            }
            return h;
        });
    }

    /**
     * Marks the hold as being released, before the release script is sent.
     *
     * @return the TTL the key keeps if holds remain: the hold's own, or the watchdog's
     */
    public long beginRelease(String key, String field) {
        Hold h = holds.computeIfPresent(id(key, field), (id, x) -> {
            x.releases++;
            return x;
        });
        if (h == null) {
            return watchdogMs;
        }
        return h.watchdog() ? watchdogMs : h.ttlMs;
    }

    /**
     * Applies a release script's answer for the owner's hold.
     *
     * @param stillHeld true if Redis still holds the owner's field (a reentrant count above one),
     *     false if its last hold went (released, or handed on)
     */
    public void released(String key, String field, boolean stillHeld) {
        holds.computeIfPresent(id(key, field), (id, h) -> {
            if (stillHeld && h.count > 1) {
                h.count--;
                h.releases = Math.max(0, h.releases - 1);
                return h;
            }
            if (stillHeld) {
                LOG.log(System.Logger.Level.WARNING, "lock ''{0}'' ({1}) is still held in Redis after its last known "
                        + "release (an acquisition whose reply was lost counted twice); no longer renewed, it "
                        + "expires within {2} ms", h.lockName, h.id.field, h.watchdog() ? watchdogMs : h.ttlMs);
            }
            return null;
        });
    }

    /**
     * Undoes one {@link #register} of a hold this client made on another owner's behalf (a local
     * hand-off whose waiter refused the grant): one acquisition fewer, the hold removed when none
     * is left. Acquisitions the owner registered itself keep their count.
     */
    public void unregister(String key, String field) {
        holds.computeIfPresent(id(key, field), (id, h) -> --h.count > 0 ? h : null);
    }

    /**
     * The release found the owner not holding the lock: its hold leaves the registry.
     *
     * @param report whether a hold still believed valid is reported lost now (a fair unlock that
     *     returns normally, so its caller learns of the loss only this way): LEASE_EXPIRED if its
     *     explicit lease ran out, else NOT_HELD; otherwise (the unlock throws) it leaves quietly
     */
    public void notHeld(String key, String field, boolean report) {
        Hold h = holds.get(id(key, field));
        if (h == null) {
            return;
        }
        if (!report) {
            holds.remove(h.id, h);
            return;
        }
        lose(h, !h.watchdog() && System.nanoTime() - h.expiresAtNanos >= 0
                ? LockLostEvent.Reason.LEASE_EXPIRED : LockLostEvent.Reason.NOT_HELD);
    }

    /**
     * A release failed with an unknown outcome: one acquisition fewer is the application's, and the
     * last one out stops renewal, so the key expires on its own if the release never ran.
     */
    public void releaseFailed(String key, String field) {
        holds.computeIfPresent(id(key, field), (id, h) -> {
            h.releases = Math.max(0, h.releases - 1);
            if (h.count > 1) {
                h.count--;
                return h;
            }
            return null;
        });
    }

    /** A release the driver refused before sending it: the hold is unchanged and may be released again. */
    public void releaseNotSent(String key, String field) {
        holds.computeIfPresent(id(key, field), (id, h) -> {
            h.releases = Math.max(0, h.releases - 1);
            return h;
        });
    }

    /** This client force-unlocked {@code key}: its own holds of it are lost now, not at the next renewal. */
    public void forceReleased(String key) {
        for (Hold h : holds.values()) {
            if (h.id.key.equals(key)) {
                lose(h, LockLostEvent.Reason.NOT_HELD);
            }
        }
    }

    public int size() {
        return holds.size();
    }

    /** @return every registered hold as a {@link io.github.relock.api.HeldLock}, read now */
    public List<io.github.relock.api.HeldLock> snapshot() {
        long now = System.nanoTime();
        List<io.github.relock.api.HeldLock> out = new ArrayList<>(holds.size());
        for (Hold h : holds.values()) {
            int count = h.count;
            if (count < 1) {
                continue; // being unregistered right now
            }
            boolean renewed = h.watchdog();
            long end = renewed ? h.lastConfirmedNanos + TimeUnit.MILLISECONDS.toNanos(watchdogMs) : h.expiresAtNanos;
            out.add(new io.github.relock.api.HeldLock(h.lockName, h.id.field, h.ownerId, count, renewed,
                    millisSince(h.acquiredNanos, now), millisSince(h.lastConfirmedNanos, now),
                    Math.max(0, TimeUnit.NANOSECONDS.toMillis(end - now))));
        }
        return List.copyOf(out);
    }

    private static long millisSince(long nanos, long now) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(now - nanos));
    }

    /**
     * For the watchdog: reports explicit-TTL holds that ran out (LEASE_EXPIRED) and returns the
     * watchdog holds to renew now.
     */
    List<Hold> dueForRenewal() {
        long now = System.nanoTime();
        List<Hold> due = new ArrayList<>();
        for (Hold h : holds.values()) {
            if (h.watchdog()) {
                due.add(h);
            } else if (now - h.expiresAtNanos >= 0 && !h.releasing()) {
                lose(h, LockLostEvent.Reason.LEASE_EXPIRED);
            }
        }
        return due;
    }

    /** The watchdog confirmed the hold with a renewal sent at {@code sentAtNanos}. */
    void renewed(Hold h, long sentAtNanos) {
        for (Hold x = h; x != null; x = x.passedTo) { // a renewal sent before a cohort pass confirms the new holder too
            if (sentAtNanos - x.lastConfirmedNanos > 0) {
                x.lastConfirmedNanos = sentAtNanos;
            }
            x.shortRenewals = 0;
        }
    }

    /**
     * Replica sync: the renewal extended the key on the master but too few replicas acknowledged.
     * The first time, it is retried next period; twice in a row, the hold is lost (RENEWAL_FAILED):
     * a failover could then resurrect an expired copy or lose the hold.
     */
    void renewedShort(Hold h) {
        if (h.shortRenewals < 2) {
            h.shortRenewals++;
        }
        if (h.shortRenewals >= 2 && !h.releasing()) {
            lose(h, LockLostEvent.Reason.RENEWAL_FAILED);
        }
    }

    /** The renewal answered that the owner no longer holds the key: lost, unless an unlock is in flight. */
    public void notHeld(Hold h) {
        if (!h.releasing()) {
            lose(h, LockLostEvent.Reason.NOT_HELD);
        }
    }

    /** A renewal failed or never answered: lost once its confirmation deadline has passed. */
    void renewalFailed(Hold h, long nowNanos) {
        if (nowNanos - confirmDeadline(h) >= 0 && !h.releasing()) {
            lose(h, LockLostEvent.Reason.RENEWAL_FAILED);
        }
    }

    /**
     * The moment a watchdog hold stops being certain: the send time of its last confirmed command
     * plus the watchdog timeout, less a tenth of it. Redis ran that command no earlier than it was
     * sent, so its key expires no earlier than send time + timeout; reporting the loss a tenth
     * before leaves room for timers and callbacks running late, so the holder hears it before
     * anyone else can be granted the lock.
     */
    long confirmDeadline(Hold h) {
        long timeout = TimeUnit.MILLISECONDS.toNanos(watchdogMs);
        return h.lastConfirmedNanos + timeout - timeout / 10;
    }

    /**
     * Reports RENEWAL_FAILED for every watchdog hold whose confirmation deadline has passed (its
     * renewals failed or have not answered), however long its renewal call still has to run.
     *
     * @param nowNanos the time to judge by
     * @return the earliest deadline of the holds still registered, or {@link Long#MAX_VALUE} if none
     */
    long sweepUnconfirmed(long nowNanos) {
        long earliest = Long.MAX_VALUE;
        for (Hold h : holds.values()) {
            if (!h.watchdog() || h.releasing()) {
                continue;
            }
            long deadline = confirmDeadline(h);
            if (nowNanos - deadline >= 0) {
                lose(h, LockLostEvent.Reason.RENEWAL_FAILED);
            } else if (earliest == Long.MAX_VALUE || deadline - earliest < 0) {
                earliest = deadline;
            }
        }
        return earliest;
    }

    /** Registers nothing more and reports every hold still registered CLIENT_CLOSED, on this thread. */
    public void close() {
        closed = true;
        for (Hold h : new ArrayList<>(holds.values())) {
            if (holds.remove(h.id, h) && (h.watchdog() || System.nanoTime() - h.expiresAtNanos < 0)) {
                report(h, LockLostEvent.Reason.CLIENT_CLOSED, Runnable::run);
            }
        }
    }

    private void lose(Hold h, LockLostEvent.Reason reason) {
        for (Hold x = h; x != null; x = x.passedTo) {
            if (x != h && x.releasing()) {
                return; // its unlock is in flight: a miss meanwhile is no loss
            }
            if (holds.remove(x.id, x)) {
                report(x, reason, callbackRunner);
                return;
            }
            x.lostWhilePassing = reason; // read by a pass of x under way (see pass)
            // passed on within a cohort (the answer was about the lock Redis still holds under the
            // same field): the loss is the owner's that holds it now
        }
    }

    private void report(Hold h, LockLostEvent.Reason reason, Consumer<Runnable> runner) {
        h.lostReason = reason;
        if (h.givingBack) {
            LOG.log(System.Logger.Level.DEBUG, "lock ''{0}'' ({1}), on its way back, left the registry: {2}",
                    h.lockName, h.id.field, reason);
            return; // nobody held it: its caller had left before it landed
        }
        LockLostEvent event = new LockLostEvent(h.lockName, h.id.field, h.ownerId, reason);
        runner.accept(() -> {
            List<Consumer<LockLostEvent>> callbacks = h.lostCallbacks;
            List<Consumer<LockLostEvent>> taken = callbacks == null ? List.of() : List.copyOf(callbacks);
            // an onLost handler took the loss: the application knows, so it is no WARNING
            LOG.log(taken.isEmpty() ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
                    "lock ''{0}'' held by {1} lost: {2}", h.lockName, h.id.field, reason);
            for (Consumer<LockLostEvent> c : taken) {
                deliver(c, event);
            }
            deliver(lostSink, event);
        });
    }

    /** Runs one callback, logging and ignoring what it throws. */
    public static void deliver(Consumer<LockLostEvent> c, LockLostEvent event) {
        try {
            c.accept(event);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "lock-lost callback threw; ignored", e);
        }
    }
}
