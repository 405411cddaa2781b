package io.github.relock.core.internal.multi;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.lock.RedisLock;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.util.Args;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition attempt over all locks. It completes {@code out} (true: all held by
 * {@code owner}) and watches {@code caller}, the future its caller holds: once that is done
 * (cancelled, timed out, interrupted), the attempt stops, cancels the member acquisition in
 * flight (which gives back whatever lands later) and releases what it took. Members run one
 * after another through a trampoline, so members that answer synchronously never recurse.
 * A MultiLock member that fails with an error (not merely held by someone else) fails the
 * attempt with that error. A RedLock counts an erroring member as not granting (that is what
 * it is for) and starts over while time is left, pausing {@link #ERROR_RETRY_MS} after a round
 * with errors so dead servers are not polled in a busy loop.
 *
 * <p>Thread-safety: one instance per acquisition; its steps run one at a time (a trampoline).
 */
final class MultiAttempt {
    /** How long a RedLock pauses before starting over after a round in which members failed with errors. */
    static final long ERROR_RETRY_MS = 25;

    private final MultiRedisLock multi;
    private final List<RedisLock> locks;
    private final boolean red;
    final long waitMs;
    final long ttlMs;
    final long owner;
    final long heldTtl;
    final long perLockWait;
    final long deadline;
    final CompletableFuture<?> caller;
    final CompletableFuture<Boolean> out;
    final List<RedisLock> acquired = new ArrayList<>();
    volatile CompletableFuture<Boolean> current;
    Throwable firstError;
    boolean errorThisRound;
    int failLimit;
    int index;

    MultiAttempt(MultiRedisLock multi, long waitMs, long ttlMs, long owner, CompletableFuture<?> caller,
                 CompletableFuture<Boolean> out) {
        this.multi = multi;
        this.locks = multi.locks;
        this.red = multi.red;
        this.failLimit = multi.failedLocksLimit();
        this.waitMs = waitMs;
        this.ttlMs = ttlMs;
        this.owner = owner;
        long doubledWait = waitMs > Args.MAX_LEASE_MS / 2 ? Args.MAX_LEASE_MS : 2 * waitMs;
        this.heldTtl = ttlMs == Args.TTL_WATCHDOG ? Args.TTL_WATCHDOG : (waitMs > 0 ? Math.max(doubledWait, ttlMs) : ttlMs);
        this.perLockWait = waitMs > 0 ? multi.perLockWait(waitMs) : 0;
        this.deadline = waitMs > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs) : 0;
        this.caller = caller;
        this.out = out;
    }

    void start() {
        caller.whenComplete((v, t) -> {
            CompletableFuture<Boolean> c = current;
            if (c != null) {
                c.cancel(false); // the member stops waiting and gives back a late acquisition
            }
        });
        run();
    }

    private long remainingMs() {
        return TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    }

    /** Steps through the members until one answers asynchronously (then its callback resumes here). */
    private void run() {
        while (true) {
            if (caller.isDone() && caller != out) {
                releaseThen(acquired, () -> out.complete(false));
                return;
            }
            if (out.isDone()) { // caller == out and it was cancelled: give everything back
                releaseThen(acquired, () -> { });
                return;
            }
            if (index == locks.size()) {
                succeed();
                return;
            }
            RedisLock lock = locks.get(index);
            long wait = waitMs > 0 ? Math.max(0, Math.min(perLockWait, remainingMs())) : 0;
            CompletableFuture<Boolean> f;
            try {
                f = lock.acquireFor(wait, heldTtl, owner);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            current = f;
            if (caller.isDone()) {
                f.cancel(false);
            }
            if (!f.isDone()) {
                f.whenComplete((ok, error) -> {
                    if (onMember(lock, ok, error)) {
                        run();
                    }
                });
                return;
            }
            Boolean ok = null;
            Throwable error = null;
            try {
                ok = f.join();
            } catch (CompletionException | CancellationException e) {
                error = e;
            }
            if (!onMember(lock, ok, error)) {
                return;
            }
        }
    }

    /** @return true to go on with the next member, false if this call handed control elsewhere */
    private boolean onMember(RedisLock lock, Boolean ok, Throwable error) {
        current = null;
        boolean granted = error == null && Boolean.TRUE.equals(ok);
        if (caller.isDone()) {
            // The member was granted (or may have been) just as the caller left: its future was
            // already complete, so cancelling it gave nothing back. run() releases it with the rest.
            if (granted) {
                acquired.add(lock);
            } else if (error != null && ScriptRunner.unwrap(error)
                    instanceof RedisUnavailableException) {
                lock.unlockAsync(owner).exceptionally(t -> null);
            }
            return true;
        }
        if (granted) {
            acquired.add(lock);
        } else {
            if (error != null) {
                Throwable cause = ScriptRunner.unwrap(error);
                if (firstError == null) {
                    firstError = cause;
                }
                errorThisRound = true;
                if (cause instanceof RedisUnavailableException) {
                    lock.unlockAsync(owner).exceptionally(t -> null); // it may have run before the failure
                }
            }
            if (red && locks.size() - acquired.size() == multi.failedLocksLimit()) {
                succeed();
                return false;
            }
            if (failLimit == 0) {
                List<RedisLock> undo = new ArrayList<>(acquired);
                acquired.clear();
                if (firstError != null && !red) {
                    Throwable e = firstError;
                    releaseThen(undo, () -> out.completeExceptionally(e));
                    return false;
                }
                if (waitMs <= 0 || remainingMs() <= 0) {
                    releaseThen(undo, () -> out.complete(false));
                    return false;
                }
                failLimit = multi.failedLocksLimit();
                index = 0;
                if (errorThisRound) { // errors answer at once: pause before asking again
                    errorThisRound = false;
                    releaseThen(undo, () -> locks.get(0).services().schedule(this::run,
                            TimeUnit.MILLISECONDS.toNanos(Math.min(ERROR_RETRY_MS, Math.max(1, remainingMs()))),
                            () -> out.completeExceptionally(new IllegalStateException(
                                    "the LockClient of " + locks.get(0).getName() + " was closed"))));
                } else {
                    releaseThen(undo, this::run); // the failed member waited its share: no busy loop
                }
                return false;
            }
            failLimit--;
        }
        if (waitMs > 0 && remainingMs() <= 0 && index + 1 < locks.size()) {
            List<RedisLock> undo = new ArrayList<>(acquired);
            acquired.clear();
            releaseThen(undo, () -> out.complete(false));
            return false;
        }
        index++;
        return true;
    }

    private void succeed() {
        CompletableFuture<Boolean> applied = CompletableFuture.completedFuture(true);
        if (ttlMs != Args.TTL_WATCHDOG && heldTtl != ttlMs) {
            List<CompletableFuture<Boolean>> expires = acquired.stream()
                    .map(l -> l.expireFor(ttlMs, owner).exceptionally(t -> false)).toList();
            applied = CompletableFuture.allOf(expires.toArray(CompletableFuture[]::new)).thenApply(v -> {
                long notHeld = expires.stream().filter(e -> !e.join()).count();
                return locks.size() - (acquired.size() - notHeld) <= multi.failedLocksLimit();
            });
        }
        applied.whenComplete((held, t) -> {
            if (caller.isDone() && caller != out || !Boolean.TRUE.equals(held)) {
                List<RedisLock> undo = new ArrayList<>(acquired);
                acquired.clear();
                releaseThen(undo, () -> out.complete(false));
            } else if (!out.complete(true)) { // the caller left at the last moment
                releaseThen(acquired, () -> { });
            }
        });
    }

    private void releaseThen(List<RedisLock> which, Runnable then) {
        MultiRedisLock.release(which, owner, true).whenComplete((v, t) -> then.run());
    }
}
