package io.github.relock.core.internal.lock;

import io.github.relock.core.internal.hold.Hold;
import java.util.concurrent.CompletableFuture;

/**
 * Changing the TTL of a hold this client has: a multi-lock applying its caller's lease to every
 * member once all are taken, and a lease's {@code expireIn} / {@code releaseAfter}. The expire
 * script sets the TTL only while the owner still holds the lock; the registry follows.
 *
 * <p>Thread-safety: stateless.
 */
final class HoldTtl {
    private HoldTtl() {
    }

    /** Set the TTL of this owner's hold to {@code ttlMs}; answers whether the owner still held it. */
    static CompletableFuture<Boolean> expireFor(RedisLock lock, long ttlMs, long ownerId) {
        String field = lock.field(ownerId);
        long sentAt = System.nanoTime();
        return lock.services.runner().runAsync(lock.protocol.expire(lock.services.holds().redisField(lock.name, field), ttlMs)).thenApply(held -> {
            if (held) {
                lock.services.holds().ttlChanged(lock.name, field, ttlMs, sentAt);
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
    static boolean expireHold(RedisLock lock, Hold h, long ttlMs, boolean ending) {
        long sentAt = System.nanoTime();
        if (!lock.services.holds().beginTtlChange(h, ttlMs, sentAt, ending)) {
            if (ending) {
                lock.services.holds().forget(h); // lost or past its TTL: ended without a report, as a release would
            }
            return false;
        }
        boolean held;
        try {
            lock.services.ensureOpen();
            held = lock.services.runner().run(lock.protocol.expire(h.redisField(), ttlMs));
        } finally {
            if (ending) {
                lock.services.holds().forget(h); // whatever the outcome: the key expires on its own
            }
        }
        if (ending) {
            return held;
        }
        if (!held) {
            lock.services.holds().notHeld(h);
            return false;
        }
        lock.services.holds().ttlChanged(lock.name, h.field(), ttlMs, sentAt);
        return h.valid();
    }
}
