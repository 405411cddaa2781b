package io.github.relock.core.internal.wait;

import io.github.relock.core.internal.protocol.MessageWakes;
import io.github.relock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shared wait state of one channel of one client: its subscription, the waiters parked on it,
 * wake-ups banked for a waiter about to park, the wake-all epoch, and lock listeners observing it.
 * See {@link Waiters} for the wake-up handshake.
 *
 * <p>Thread-safety: safe for use by several threads; {@code refs} is guarded by the client's
 * stripe lock for the channel, the rest by the channel's own handshake lock.
 */
public final class Channel {
    /** A lock listener's ear on a channel: told of every message, and which way it came. */
    public interface Observer {
        /**
         * @param payload the message
         * @param sharded whether it came by sharded pub/sub (SPUBLISH) rather than classic
         */
        void message(String payload, boolean sharded);
    }

    /** A waiter that parks on an entry: told when a message picks it. */
    public interface Parked {
        /** A message picked this waiter: it must attempt (or, if it leaves instead, pass the message on). */
        void message();

        /**
         * @return whether a message picked this waiter (or it took a banked one) and it has sent no
         *     attempt since: its next attempt, or the message it passes on when it leaves, comes after
         *     anything heard now
         */
        default boolean messagePending() {
            return false;
        }
    }

    /**
     * How long a message heard one way waits for its twin heard the other way: on a channel
     * subscribed classic and sharded (a cluster), each relock release arrives twice, the classic
     * copy often relayed by another node over the cluster bus. Generous, because pairing a copy
     * with another release's costs nothing (see {@link #heardOne}): it only bounds how long a lone
     * copy is remembered.
     */
    static final long PAIR_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The most first copies kept waiting for a twin; beyond it the oldest is forgotten (its twin then wakes as any message). */
    static final int MAX_UNPAIRED = 32;

    /** A message heard one way, not yet paired with its twin heard the other way. */
    private static final class Heard {
        final String payload;
        final boolean sharded;
        final long at;
        /** The waiter it woke, or null if it was banked. */
        final Parked picked;
        /** The waiter it woke has left the entry. */
        boolean left;

        Heard(String payload, boolean sharded, long at, Parked picked) {
            this.payload = payload;
            this.sharded = sharded;
            this.at = at;
            this.picked = picked;
        }
    }

    final String channel;
    final CompletableFuture<Subscription> subscribed;
    int refs; // guarded by the channel's stripe lock
    private final ReentrantLock handshake = new ReentrantLock();
    private final ArrayDeque<Parked> parked = new ArrayDeque<>(); // guarded by handshake
    private int banked; // guarded by handshake
    /** Retired by a linger's expiry (or close): a directed wake-up heard after it is passed on. */
    private boolean retiredPassingOn; // guarded by handshake
    private final ArrayDeque<Heard> unpaired = new ArrayDeque<>(); // guarded by handshake, oldest first
    /** Waiters a paired copy is owed to: each attempts at its next park instead of parking, or passes it on. */
    private final List<Parked> owed = new ArrayList<>(); // guarded by handshake
    private volatile long epoch; // advanced (under handshake) by every wake-all
    /** Lock listeners on this channel (not waiters): told of every message. */
    final List<Observer> observers = new CopyOnWriteArrayList<>();

    /** How a message on this channel wakes waiters. */
    final MessageWakes wakes;
    /** Directed wake-ups: the lock's wake channel, the payload naming this client, the call sent when the last waiter leaves without the lock; else null. */
    String wakeChannel;
    String wakeId;
    io.github.relock.core.internal.protocol.Call<?> leaveCall;
    /** Directed wake-ups: how many times the entry began to linger (see Waiters); guarded by the stripe lock. */
    long lingers;

    Channel(String channel, CompletableFuture<Subscription> subscribed, MessageWakes wakes) {
        this.channel = channel;
        this.subscribed = subscribed;
        this.wakes = wakes;
    }

    /** @return the channel */
    public String channel() {
        return channel;
    }

    /** @return the subscription, completed once the server confirmed it */
    public CompletableFuture<Subscription> subscribed() {
        return subscribed;
    }

    /** @return the wake-all epoch: read before an attempt is sent, passed to {@link #parkOrTake} */
    public long epoch() {
        return epoch;
    }

    /** A "0": wakes the longest-parked waiter, or banks the wake-up for the next one about to park. */
    public void wakeOne() {
        Parked p;
        handshake.lock();
        try {
            p = pickOne();
        } finally {
            handshake.unlock();
        }
        if (p != null) {
            p.message();
        }
    }

    /** @return the longest-parked waiter, taken off the queue, or null with the wake-up banked */
    private Parked pickOne() {
        Parked p = parked.pollFirst();
        if (p == null) {
            banked++;
        }
        return p;
    }

    /**
     * A message that wakes one waiter, heard one way on a channel subscribed both ways (see
     * {@link Waiters}: each relock release arrives twice). The first copy wakes one waiter as
     * {@link #wakeOne} does. A copy heard the other way within {@link #PAIR_NANOS} with the same
     * payload is its twin, and wakes nobody else: it is left to the waiter the first copy woke if
     * that waiter's next attempt (or the message it passes on) is still to come, or handed to that
     * waiter (woken again if it parked meanwhile, else owed its next park) if it has attempted
     * since, or to the next waiter if it has left the entry (with the lock or without). Either way
     * the copy is not lost even if it is no twin but another release.
     *
     * @param payload the message
     * @param sharded whether it was heard by sharded pub/sub
     */
    void heardOne(String payload, boolean sharded) {
        heardOne(payload, sharded, System.nanoTime());
    }

    /** {@link #heardOne(String, boolean)} heard at {@code now} ({@link System#nanoTime()}; tests pass their own). */
    void heardOne(String payload, boolean sharded, long now) {
        Parked p;
        handshake.lock();
        try {
            p = heardOneLocked(payload, sharded, now);
        } finally {
            handshake.unlock();
        }
        if (p != null) {
            p.message();
        }
    }

    private Parked heardOneLocked(String payload, boolean sharded, long now) {
        while (!unpaired.isEmpty() && now - unpaired.peekFirst().at > PAIR_NANOS) {
            unpaired.pollFirst();
        }
        for (Iterator<Heard> it = unpaired.iterator(); it.hasNext(); ) {
            Heard h = it.next();
            if (h.sharded != sharded && h.payload.equals(payload)) {
                it.remove();
                return twinOf(h);
            }
        }
        Parked p = pickOne();
        if (unpaired.size() == MAX_UNPAIRED) {
            unpaired.pollFirst();
        }
        unpaired.addLast(new Heard(payload, sharded, now, p));
        return p;
    }

    /** @return whom the twin of {@code first} wakes now (null: nobody) */
    private Parked twinOf(Heard first) {
        Parked p = first.picked;
        if (p == null) {
            return banked > 0 ? null : pickOne(); // the banked wake-up, still untaken, comes after this
        }
        if (first.left) {
            // This one is the next waiter's, whether the waiter left with the lock or without it:
            // one that took it may have lost or released it since, and this copy be another
            // client's release (a Redisson 4 unlock, sharded only) that nobody else will hear.
            // Dropped, the waiters slept until their TTL (kit rule 10.25); a true twin costs one
            // attempt that finds the lock held.
            return pickOne();
        }
        if (p.messagePending()) {
            return null; // its attempt, or the message it passes on, is still to come
        }
        if (parked.remove(p)) {
            return p; // it attempted and parked again: once more
        }
        if (!owed.contains(p)) {
            owed.add(p); // its attempt is in flight: it attempts again instead of parking, or passes this on
        }
        return null;
    }

    /** A "1" or a reconnect: wakes every parked waiter; one about to park sees the new epoch. */
    public void wakeAll() {
        List<Parked> all;
        handshake.lock();
        try {
            epoch++;
            all = new ArrayList<>(parked);
            parked.clear();
        } finally {
            handshake.unlock();
        }
        all.forEach(Parked::message);
    }

    /**
     * A waiter about to park, in one step against {@link #wakeOne} and {@link #wakeAll}.
     *
     * @param p the waiter
     * @param epochAtAttempt {@link #epoch()} read before its last attempt was sent
     * @return true if it must not park but attempt now (a banked wake-up was taken, or a
     *     wake-all came after its attempt); false if it is queued: the next message picks it
     */
    public boolean parkOrTake(Parked p, long epochAtAttempt) {
        handshake.lock();
        try {
            if (owed.remove(p)) {
                return true;
            }
            if (banked > 0) {
                banked--;
                return true;
            }
            if (epoch != epochAtAttempt) {
                return true;
            }
            parked.addLast(p);
            return false;
        } finally {
            handshake.unlock();
        }
    }

    /**
     * The waiter stops parking (woken otherwise, timed out, leaving).
     *
     * @return true if it was still queued (no message picked it)
     */
    public boolean unpark(Parked p) {
        handshake.lock();
        try {
            return parked.remove(p);
        } finally {
            handshake.unlock();
        }
    }

    /**
     * The waiter leaves the entry: it stops parking, and passes on a message it did not use (one
     * that picked it, or a twin owed to it, unless it leaves holding the lock, which that message
     * was about).
     *
     * @param p the waiter
     * @param messageUnused a message picked it and it sent no attempt since
     * @param holds it leaves holding the lock
     */
    void left(Parked p, boolean messageUnused, boolean holds) {
        Parked next = null;
        handshake.lock();
        try {
            parked.remove(p);
            boolean wasOwed = owed.remove(p);
            for (Heard h : unpaired) {
                if (h.picked == p) {
                    h.left = true;
                }
            }
            if (messageUnused || (wasOwed && !holds)) {
                next = pickOne();
            }
        } finally {
            handshake.unlock();
        }
        if (next != null) {
            next.message();
        }
    }

    /**
     * The entry is gone (Waiters.drop). With {@code passOnLate}, a wake-up naming the client that
     * comes from now on is refused by {@link #wakeOneUnlessRetired} (the caller passes it on).
     *
     * @return whether a wake-up was banked on it that nobody took (now forgotten)
     */
    boolean retire(boolean passOnLate) {
        handshake.lock();
        try {
            retiredPassingOn = passOnLate;
            boolean any = banked > 0;
            banked = 0;
            return any;
        } finally {
            handshake.unlock();
        }
    }

    /**
     * A directed wake-up naming this client: as {@link #wakeOne}, in one step against {@link #retire}.
     *
     * @return false if the entry was retired passing late wake-ups on: nobody here will take it
     */
    boolean wakeOneUnlessRetired() {
        Parked p;
        handshake.lock();
        try {
            if (retiredPassingOn) {
                return false;
            }
            p = pickOne();
        } finally {
            handshake.unlock();
        }
        if (p != null) {
            p.message();
        }
        return true;
    }

    /**
     * A "0" heard while the entry lingers (no waiter joined, see Waiters): banked for the waiter
     * about to join it (one at most), unless the entry retired. That waiter's attempt was sent on
     * this entry and found the lock busy, so it parks without another: a "0" dropped here would
     * leave it asleep while the lock is free. (A waiter that joined meanwhile, parked or not, gets
     * it as from {@link #wakeOne}.) One nobody takes is passed on at the expiry, as a directed one.
     */
    void wakeWhileLingering() {
        Parked p = null;
        handshake.lock();
        try {
            if (!retiredPassingOn && (banked == 0 || !parked.isEmpty())) {
                p = pickOne();
            }
        } finally {
            handshake.unlock();
        }
        if (p != null) {
            p.message();
        }
    }

    /** @return how many wake-ups are banked now (tests) */
    int bankedCount() {
        handshake.lock();
        try {
            return banked;
        } finally {
            handshake.unlock();
        }
    }

    /** @return how many copies wait for a twin now (tests) */
    int unpairedCount() {
        handshake.lock();
        try {
            return unpaired.size();
        } finally {
            handshake.unlock();
        }
    }

    /** @return how many waiters are parked on it now (tests) */
    int parkedCount() {
        handshake.lock();
        try {
            return parked.size();
        } finally {
            handshake.unlock();
        }
    }
}
