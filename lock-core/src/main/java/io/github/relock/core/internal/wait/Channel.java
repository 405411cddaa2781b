package io.github.relock.core.internal.wait;

import io.github.relock.core.internal.protocol.MessageWakes;
import io.github.relock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
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
    }

    final String channel;
    final CompletableFuture<Subscription> subscribed;
    int refs; // guarded by the channel's stripe lock
    private final ReentrantLock handshake = new ReentrantLock();
    private final ArrayDeque<Parked> parked = new ArrayDeque<>(); // guarded by handshake
    private int banked; // guarded by handshake
    private volatile long epoch; // advanced (under handshake) by every wake-all
    /** Lock listeners on this channel (not waiters): told of every message. */
    final List<Observer> observers = new CopyOnWriteArrayList<>();

    /** How a message on this channel wakes waiters. */
    final MessageWakes wakes;

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
            p = parked.pollFirst();
            if (p == null) {
                banked++;
            }
        } finally {
            handshake.unlock();
        }
        if (p != null) {
            p.message();
        }
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
