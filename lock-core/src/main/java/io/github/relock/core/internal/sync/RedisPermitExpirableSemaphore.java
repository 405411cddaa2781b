package io.github.relock.core.internal.sync;

import io.github.relock.api.LockTimeoutException;
import io.github.relock.api.PermitExpirableSemaphore;
import io.github.relock.api.PermitLease;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.util.Args;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Redisson's {@code RPermitExpirableSemaphore} on relock (sync spec 3): available permits in key N
 * (shared with {@link RedisSemaphore}), held permits in the zset <code>&#123;N&#125;:timeout</code>
 * (id bytes to epoch-ms deadline), messages on {@code redisson_sc:{N}}. A waiting acquire is a wait
 * of the one wait machine over {@link PermitIds}: it parks at most until the earliest lease ends,
 * and resolves a lost reply by its ids. Permit leases ({@link PermitHandle}) report their loss.
 *
 * <p>Thread-safety: safe for use by several threads; it holds no state beyond its name.
 */
public final class RedisPermitExpirableSemaphore extends ExpirableSync implements PermitExpirableSemaphore {
    private final Sync sync;
    private final SyncCalls calls;
    private final SyncPolicy policy;

    /**
     * @param sync the client's synchronizer services
     * @param name the semaphore's name (already checked and mapped)
     */
    public RedisPermitExpirableSemaphore(Sync sync, String name) {
        this(sync, sync.calls(name));
    }

    private RedisPermitExpirableSemaphore(Sync sync, SyncCalls calls) {
        super(sync, calls, true);
        this.sync = sync;
        this.calls = calls;
        this.policy = new SyncPolicy("RedisPermitExpirableSemaphore", calls.name, SyncCalls.semaphoreChannel(calls.name),
                SyncPolicy.PERMITS, true);
    }

    @Override
    public String getName() {
        return calls.name;
    }

    @Override
    public String toString() {
        return "RedisPermitExpirableSemaphore[" + calls.name + "]";
    }

    // ---------------------------------------------------------------- acquiring

    private PermitIds ids(int permits, long leaseMs, String method) {
        return new PermitIds(sync, policy, calls, SyncArgs.permits(permits, 1, method), leaseMs);
    }

    /** @return the ids taken, or null if none came within the wait */
    private List<String> take(PermitIds t, long waitMs) throws InterruptedException {
        return sync.await(t, waitMs) ? t.ids : null;
    }

    @Override
    public String acquire() throws InterruptedException {
        return take(ids(1, SyncArgs.NO_LEASE, "acquire"), Args.WAIT_FOREVER).get(0);
    }

    @Override
    public String acquire(long leaseTime, TimeUnit unit) throws InterruptedException {
        return take(ids(1, SyncArgs.leaseMs(leaseTime, unit), "acquire"), Args.WAIT_FOREVER).get(0);
    }

    @Override
    public List<String> acquire(int permits) throws InterruptedException {
        return take(ids(permits, SyncArgs.NO_LEASE, "acquire"), Args.WAIT_FOREVER);
    }

    @Override
    public List<String> acquire(int permits, long leaseTime, TimeUnit unit) throws InterruptedException {
        return take(ids(permits, SyncArgs.leaseMs(leaseTime, unit), "acquire"), Args.WAIT_FOREVER);
    }

    @Override
    public String tryAcquire() {
        return first(tryAcquire(1));
    }

    @Override
    public List<String> tryAcquire(int permits) {
        PermitIds t = ids(permits, SyncArgs.NO_LEASE, "tryAcquire");
        sync.services.ensureOpen();
        return t.attempt(0, 0, AttemptMode.TRY) instanceof Acquire.Acquired ? t.ids : List.of();
    }

    @Override
    public String tryAcquire(long waitTime, TimeUnit unit) throws InterruptedException {
        return tryAcquire(waitTime, -1, unit);
    }

    @Override
    public String tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return first(tryAcquire(1, waitTime, leaseTime, unit));
    }

    @Override
    public List<String> tryAcquire(int permits, long waitTime, long leaseTime, TimeUnit unit)
            throws InterruptedException {
        PermitIds t = ids(permits, SyncArgs.leaseMs(leaseTime, unit), "tryAcquire");
        return orEmpty(take(t, Args.waitMs(waitTime, unit)));
    }

    @Override
    public PermitLease acquireLease(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long leaseMs = SyncArgs.leaseMs(leaseTime);
        PermitIds t = ids(1, leaseMs, "acquireLease");
        if (!sync.await(t, Args.waitMs(waitTime))) {
            throw timedOut(waitTime);
        }
        return lease(t, leaseMs);
    }

    private PermitLease lease(PermitIds t, long leaseMs) {
        PermitHandle h = new PermitHandle(this, sync.leases, t.ids.get(0), t.sentAtNanos, leaseMs);
        sync.leases.opened(h);
        return h;
    }

    private LockTimeoutException timedOut(Duration waitTime) {
        return new LockTimeoutException("no permit of semaphore '" + Args.shown(calls.name) + "' became available within "
                + waitTime);
    }

    private static String first(List<String> ids) {
        return ids.isEmpty() ? null : ids.get(0);
    }

    private static List<String> orEmpty(List<String> ids) {
        return ids == null ? List.of() : ids;
    }

    // ---------------------------------------------------------------- releasing and reading

    @Override
    public boolean tryRelease(String permitId) {
        return sync.run(calls.expirableRelease(SyncArgs.permitId(permitId), System.currentTimeMillis())) == 1;
    }

    @Override
    public int tryRelease(List<String> permitIds) {
        return (int) (long) sync.run(calls.expirableReleaseMany(System.currentTimeMillis(), SyncArgs.permitIds(permitIds)));
    }

    @Override
    public void release(String permitId) {
        if (!tryRelease(permitId)) {
            throw notHeld(permitId);
        }
    }

    @Override
    public void release(List<String> permitIds) {
        List<String> ids = SyncArgs.permitIds(permitIds);
        if (tryRelease(ids) != ids.size()) {
            throw notHeld(String.join(", ", ids));
        }
    }

    private IllegalArgumentException notHeld(String ids) {
        return new IllegalArgumentException("permit(s) " + ids + " of semaphore '" + Args.shown(calls.name)
                + "' not released: already released, lease ended, or never taken (a list is released all or none)");
    }

    @Override
    public int availablePermits() {
        return (int) state()[1];
    }

    @Override
    public int getPermits() {
        return permits(state());
    }

    @Override
    public int acquiredPermits() {
        return (int) state()[2];
    }

    private long[] state() {
        return sync.run(calls.expirableState(System.currentTimeMillis()));
    }

    private static int permits(long[] s) {
        return s[0] == 1 ? (int) (s[1] + s[2]) : 0;
    }

    @Override
    public boolean trySetPermits(int permits) {
        return sync.run(calls.trySetPermits(permits, 0));
    }

    @Override
    public void setPermits(int permits) {
        sync.run(calls.setPermits(permits));
    }

    @Override
    public void addPermits(int permits) {
        sync.run(calls.addPermits(permits, true));
    }

    @Override
    public boolean updateLeaseTime(String permitId, long leaseTime, TimeUnit unit) {
        return updateLease(SyncArgs.permitId(permitId), SyncArgs.leaseMs(leaseTime, unit));
    }

    /** @return whether the permit was still held; its lease now ends {@code leaseMs} from now */
    boolean updateLease(String id, long leaseMs) {
        long now = System.currentTimeMillis();
        return sync.run(calls.updateLease(id, SyncArgs.deadline(now, leaseMs), now));
    }

    @Override
    public long getLeaseTime(String permitId) {
        long left = sync.run(calls.leaseTime(SyncArgs.permitId(permitId), System.currentTimeMillis()));
        if (left < -1) {
            throw notHeld(permitId);
        }
        return left;
    }

    @Override
    public boolean delete() {
        return sync.run(calls.delete(true));
    }

    // ---------------------------------------------------------------- async

    private <T> CompletableFuture<T> checked(Supplier<CompletableFuture<T>> body) {
        try {
            return body.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The future returned is the wait's own: cancelling it ends the wait (permits that land later go back). */
    private <T> CompletableFuture<T> takeAsync(int permits, long leaseMs, long waitMs, String method,
                                               java.util.function.Function<List<String>, T> outcome) {
        PermitIds t = ids(permits, leaseMs, method);
        return sync.awaitAsync(t, waitMs, ok -> outcome.apply(ok ? t.ids : List.of()));
    }

    @Override
    public CompletableFuture<String> acquireAsync() {
        return acquireAsync(-1, TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<String> acquireAsync(long leaseTime, TimeUnit unit) {
        return checked(() -> takeAsync(1, SyncArgs.leaseMs(leaseTime, unit), Args.WAIT_FOREVER, "acquireAsync",
                RedisPermitExpirableSemaphore::first));
    }

    @Override
    public CompletableFuture<List<String>> acquireAsync(int permits) {
        return checked(() -> takeAsync(permits, SyncArgs.NO_LEASE, Args.WAIT_FOREVER, "acquireAsync", ids -> ids));
    }

    @Override
    public CompletableFuture<List<String>> acquireAsync(int permits, long leaseTime, TimeUnit unit) {
        return checked(() -> takeAsync(permits, SyncArgs.leaseMs(leaseTime, unit), Args.WAIT_FOREVER, "acquireAsync",
                ids -> ids));
    }

    @Override
    public CompletableFuture<String> tryAcquireAsync() {
        return tryAcquireAsync(-1, -1, TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<List<String>> tryAcquireAsync(int permits) {
        return checked(() -> takeAsync(permits, SyncArgs.NO_LEASE, Args.TRY_ONCE, "tryAcquireAsync", ids -> ids));
    }

    @Override
    public CompletableFuture<String> tryAcquireAsync(long waitTime, TimeUnit unit) {
        return tryAcquireAsync(waitTime, -1, unit);
    }

    @Override
    public CompletableFuture<String> tryAcquireAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return checked(() -> takeAsync(1, SyncArgs.leaseMs(leaseTime, unit), Args.waitMs(waitTime, unit),
                "tryAcquireAsync", RedisPermitExpirableSemaphore::first));
    }

    @Override
    public CompletableFuture<List<String>> tryAcquireAsync(int permits, long waitTime, long leaseTime, TimeUnit unit) {
        return checked(() -> takeAsync(permits, SyncArgs.leaseMs(leaseTime, unit), Args.waitMs(waitTime, unit),
                "tryAcquireAsync", ids -> ids));
    }

    @Override
    public CompletableFuture<PermitLease> acquireLeaseAsync(Duration waitTime, Duration leaseTime) {
        return checked(() -> {
            long leaseMs = SyncArgs.leaseMs(leaseTime);
            PermitIds t = ids(1, leaseMs, "acquireLeaseAsync");
            long waitMs = Args.waitMs(waitTime);
            return sync.awaitAsync(t, waitMs, ok -> {
                if (!ok) {
                    throw timedOut(waitTime);
                }
                return lease(t, leaseMs);
            });
        });
    }

    @Override
    public CompletableFuture<Boolean> tryReleaseAsync(String permitId) {
        return checked(() -> sync.runAsync(calls.expirableRelease(SyncArgs.permitId(permitId),
                System.currentTimeMillis())).thenApply(r -> r == 1));
    }

    @Override
    public CompletableFuture<Integer> tryReleaseAsync(List<String> permitIds) {
        return checked(() -> sync.runAsync(calls.expirableReleaseMany(System.currentTimeMillis(),
                SyncArgs.permitIds(permitIds))).thenApply(Long::intValue));
    }

    @Override
    public CompletableFuture<Void> releaseAsync(String permitId) {
        return tryReleaseAsync(permitId).thenApply(ok -> {
            if (!ok) {
                throw notHeld(permitId);
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> releaseAsync(List<String> permitIds) {
        return checked(() -> {
            List<String> ids = SyncArgs.permitIds(permitIds);
            return tryReleaseAsync(ids).thenApply(n -> {
                if (n != ids.size()) {
                    throw notHeld(String.join(", ", ids));
                }
                return null;
            });
        });
    }

    @Override
    public CompletableFuture<Integer> availablePermitsAsync() {
        return stateAsync().thenApply(s -> (int) s[1]);
    }

    @Override
    public CompletableFuture<Integer> getPermitsAsync() {
        return stateAsync().thenApply(RedisPermitExpirableSemaphore::permits);
    }

    @Override
    public CompletableFuture<Integer> acquiredPermitsAsync() {
        return stateAsync().thenApply(s -> (int) s[2]);
    }

    private CompletableFuture<long[]> stateAsync() {
        return sync.runAsync(calls.expirableState(System.currentTimeMillis()));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits) {
        return sync.runAsync(calls.trySetPermits(permits, 0));
    }

    @Override
    public CompletableFuture<Void> setPermitsAsync(int permits) {
        return sync.runAsync(calls.setPermits(permits)).thenApply(b -> null);
    }

    @Override
    public CompletableFuture<Void> addPermitsAsync(int permits) {
        return sync.runAsync(calls.addPermits(permits, true)).thenApply(n -> null);
    }

    @Override
    public CompletableFuture<Boolean> updateLeaseTimeAsync(String permitId, long leaseTime, TimeUnit unit) {
        return checked(() -> {
            String id = SyncArgs.permitId(permitId);
            long leaseMs = SyncArgs.leaseMs(leaseTime, unit);
            long now = System.currentTimeMillis();
            return sync.runAsync(calls.updateLease(id, SyncArgs.deadline(now, leaseMs), now));
        });
    }

    @Override
    public CompletableFuture<Long> getLeaseTimeAsync(String permitId) {
        return checked(() -> sync.runAsync(calls.leaseTime(SyncArgs.permitId(permitId), System.currentTimeMillis()))
                .thenApply(left -> {
                    if (left < -1) {
                        throw notHeld(permitId);
                    }
                    return left;
                }));
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync() {
        return sync.runAsync(calls.delete(true));
    }
}
