package io.github.relock.core.internal;

import io.github.relock.api.LockLostEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What this client believes it holds: one per (lock key, owner field). Counts follow the
 * scripts' answers, not local arithmetic alone. Mutable fields are volatile; the count is only
 * changed inside the registry's map operations.
 */
final class Hold {
    final String id;
    final String key;
    final String field;
    final long ownerId;
    final String lockName;
    int count; // changed only inside Renewal's ConcurrentHashMap.compute for this hold's id
    volatile long leaseMs; // last acquisition's lease; Args.WATCHDOG for renewed holds
    volatile long expiresAtNanos; // explicit lease only
    volatile long lastConfirmedNanos; // acquisition or last successful renewal
    volatile boolean releasing; // an unlock is in flight: a renewal miss is not a loss
    volatile boolean lost;
    volatile LockLostEvent.Reason lostReason; // set before lost
    final List<Consumer<LockLostEvent>> lostCallbacks = new CopyOnWriteArrayList<>();

    Hold(String key, String field, long ownerId, String lockName) {
        this.id = id(key, field);
        this.key = key;
        this.field = field;
        this.ownerId = ownerId;
        this.lockName = lockName;
    }

    boolean watchdog() {
        return leaseMs == Args.WATCHDOG;
    }

    static String id(String key, String field) {
        return key + '\u0000' + field;
    }
}
