package io.github.relock.core.internal.hold;

import io.github.relock.api.LockLostEvent;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.util.Args;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What this client believes it holds: one per (lock key, owner field). Read by anyone through
 * its accessors; its fields change only in {@link HoldRegistry} (this package), inside the
 * registry's map operations for its key.
 *
 * <p>Thread-safety: safe for use by several threads (volatile fields; the count is changed under
 * the registry's map lock for its key).
 */
public final class Hold {
    final Key id;
    final long ownerId;
    final String lockName;
    int count; // changed only inside the registry's map operations for this id
    volatile long ttlMs; // last acquisition's TTL; Args.TTL_WATCHDOG for renewed holds
    volatile long expiresAtNanos; // explicit TTL only
    volatile long acquiredNanos; // send time of the first acquisition (hold time for events)
    volatile long lastConfirmedNanos; // send time of the acquisition or last successful renewal
    volatile int releases; // unlocks in flight (changed like count): while any is, a renewal miss is not a loss
    volatile byte shortRenewals; // replica sync: renewals in a row too few replicas acknowledged
    volatile LockLostEvent.Reason lostReason; // non-null once lost
    volatile long token = Acquire.NO_TOKEN; // the fenced lock's token of the last acquisition
    volatile String timeoutKeyPrefix; // read lock: its per-acquisition timeout keys are renewed too
    volatile List<Consumer<LockLostEvent>> lostCallbacks; // null until the first callback
    /** A cohort hold: the field Redis holds the lock under (the run's anchor); null: its own field. */
    volatile String redisField;
    /** The hold a cohort pass moved this one to: a loss or renewal answered for this one is that one's. */
    volatile Hold passedTo;
    /** A loss found for this hold after a cohort pass removed it and before its successor was registered. */
    volatile LockLostEvent.Reason lostWhilePassing;
    /** Its last acquisition is on its way back (its caller had left): nobody holds it, so a loss tells nobody. */
    volatile boolean givingBack;

    /**
     * How a grouped multi-lock's {@link #timeoutKeyPrefix} starts: {@code G|<field names>|<group hash>}
     * (spec 2.8). Its renewal needs the client's clock, which {@link #renewalArg} adds.
     */
    public static final String GROUPED = io.github.relock.core.internal.protocol.GroupedProtocol.RENEWAL_MARK;

    Hold(Key id, long ownerId, String lockName) {
        this.id = id;
        this.ownerId = ownerId;
        this.lockName = lockName;
    }

    public String key() {
        return id.key;
    }

    public String field() {
        return id.field;
    }

    /**
     * @return the field Redis holds this hold under: its own, or for a hold passed within a cohort
     *     (no Redis call) the field of the owner that took the lock from Redis
     */
    public String redisField() {
        String r = redisField;
        return r == null ? id.field : r;
    }

    /** @return whether this hold was passed within a cohort: Redis shows another field of this client */
    public boolean cohort() {
        return redisField != null;
    }

    public long ownerId() {
        return ownerId;
    }

    public String lockName() {
        return lockName;
    }

    /** @return whether an unlock of this hold is in flight (a renewal miss meanwhile is not a loss) */
    boolean releasing() {
        return releases > 0;
    }

    public boolean watchdog() {
        return ttlMs == Args.TTL_WATCHDOG;
    }

    /** @return the prefix of this hold's per-acquisition timeout keys (read lock), or null */
    public String timeoutKeyPrefix() {
        return timeoutKeyPrefix;
    }

    /**
     * @return what renew-hold.lua takes for this hold: '' (exclusive), the read timeout-key prefix,
     *     or, for a grouped multi-lock, {@code G|<now>|<field names>|<group hash>} with the client's
     *     wall clock now (its values' expiries are on the clients' clocks)
     */
    String renewalArg() {
        String prefix = timeoutKeyPrefix;
        if (prefix == null) {
            return "";
        }
        return prefix.startsWith(GROUPED) ? GROUPED + System.currentTimeMillis() + "|" + prefix.substring(GROUPED.length())
                : prefix;
    }

    /** @return the fencing token of this owner's last acquisition, or {@code Acquire.NO_TOKEN} */
    public long token() {
        return token;
    }

    public boolean lost() {
        return lostReason != null;
    }

    /** @return the send time of the first acquisition of this hold (System.nanoTime) */
    public long acquiredNanos() {
        return acquiredNanos;
    }

    public LockLostEvent.Reason lostReason() {
        return lostReason;
    }

    /** @return whether still believed held: not lost, and within its TTL if it has one */
    public boolean valid() {
        return lostReason == null && (watchdog() || System.nanoTime() - expiresAtNanos < 0);
    }

    /** @return the event this hold was lost with, or null while it is not lost */
    public LockLostEvent lostEvent() {
        LockLostEvent.Reason r = lostReason;
        return r == null ? null : new LockLostEvent(lockName, id.field, ownerId, r);
    }

    public void addLostCallback(Consumer<LockLostEvent> callback) {
        List<Consumer<LockLostEvent>> callbacks = lostCallbacks;
        if (callbacks == null) {
            CALLBACKS.compareAndSet(this, null, new CopyOnWriteArrayList<Consumer<LockLostEvent>>());
            callbacks = lostCallbacks;
        }
        callbacks.add(callback);
    }

    public void clearLostCallbacks() {
        List<Consumer<LockLostEvent>> callbacks = lostCallbacks;
        if (callbacks != null) {
            callbacks.clear();
        }
    }

    private static final VarHandle CALLBACKS;

    static {
        try {
            CALLBACKS = MethodHandles.lookup().findVarHandle(Hold.class, "lostCallbacks", List.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A hold's map key: the lock key and the owner field, compared by value. The Hold keeps the
     * one it was registered with; lookups build a throwaway one from the caller's strings.
     */
    public static final class Key {
        final String key;
        final String field;
        private final int hash;

        Key(String key, String field) {
            this.key = key;
            this.field = field;
            this.hash = 31 * key.hashCode() + field.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && hash == k.hash && key.equals(k.key) && field.equals(k.field);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            return key + " (" + field + ")";
        }
    }
}
