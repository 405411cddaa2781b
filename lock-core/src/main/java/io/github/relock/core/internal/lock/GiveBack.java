package io.github.relock.core.internal.lock;

import io.github.relock.core.internal.run.ScriptRunner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one place an acquisition nobody wants is returned: one an async caller left before it
 * landed, one handed to a waiter that had already left, one that landed while the client closed.
 * One policy: a release the driver refused before sending it (its queue of async calls was full,
 * as when thousands of cancelled attempts land at once) is sent again after a back-off (10 ms,
 * doubling to 1 s) for up to one watchdog timeout, while a registered hold is still renewed; then
 * the hold is dropped and the key expires on its own. Any other failure has an unknown outcome and
 * is not retried (a second release could take a hold count the owner still uses); it is logged.
 *
 * <p>Thread-safety: stateless; safe for use by several threads.
 */
final class GiveBack {
    private static final System.Logger LOG = System.getLogger(GiveBack.class.getName());
    private static final long FIRST_RETRY_MS = 10;
    private static final long MAX_RETRY_MS = 1_000;

    private GiveBack() {
    }

    /**
     * Gives back a hold the registry knows (registered when its acquisition landed).
     *
     * @return completes when the give-back is over (its release answered, failed, or was given up)
     */
    static CompletableFuture<Void> registered(RedisLock lock, long ownerId) {
        lock.services.holds().givingBack(lock.name, lock.field(ownerId)); // close() meanwhile tells nobody
        CompletableFuture<Void> over = new CompletableFuture<>();
        send(lock, ownerId, null, 0, System.nanoTime(), FIRST_RETRY_MS, over);
        return over;
    }

    /**
     * Gives back an acquisition the registry never took ({@code field} holds it in Redis with {@code ttlMs}).
     *
     * @return completes when the give-back is over (its release answered, failed, or was given up)
     */
    static CompletableFuture<Void> unregistered(RedisLock lock, String field, long ttlMs) {
        CompletableFuture<Void> over = new CompletableFuture<>();
        send(lock, 0, field, ttlMs, System.nanoTime(), FIRST_RETRY_MS, over);
        return over;
    }

    private static void send(RedisLock lock, long ownerId, String field, long ttlMs, long since, long retryMs,
            CompletableFuture<Void> over) {
        ClientServices services = lock.services;
        if (field == null && services.isClosed()) {
            over.complete(null);
            return; // close() released or reported every registered hold
        }
        CompletableFuture<Void> sent;
        try {
            sent = field == null ? lock.releaseAsync(ownerId)
                    : services.runner().runAsync(lock.protocol.release(field, ttlMs, null)).thenApply(r -> (Void) null);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((v, t) -> {
            if (t == null) {
                over.complete(null);
                return;
            }
            boolean notSent = ScriptRunner.notSent(t);
            if (notSent && System.nanoTime() - since < TimeUnit.MILLISECONDS.toNanos(services.watchdogMs())) {
                long next = Math.min(retryMs * 2, MAX_RETRY_MS);
                services.schedule(() -> send(lock, ownerId, field, ttlMs, since, next, over),
                        TimeUnit.MILLISECONDS.toNanos(retryMs), () -> over.complete(null));
                return;
            }
            if (notSent && field == null) {
                services.holds().releaseFailed(lock.name, lock.field(ownerId)); // stop renewing it
            }
            LOG.log(System.Logger.Level.WARNING, "giving back lock ''" + lock.name
                    + "'' that nobody will use failed; it expires on its own", t);
            over.complete(null);
        });
    }
}
