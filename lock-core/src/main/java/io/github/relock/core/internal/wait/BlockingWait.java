package io.github.relock.core.internal.wait;

import io.github.relock.api.WaitingForLock;
import io.github.relock.core.internal.protocol.Acquire;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The blocking runner of the wait machine ({@link Wait}): attempts are sent on the caller's thread
 * (on Jedis an uncontended lock is two round trips and no thread hand-off), and a park parks that
 * thread until {@link #wake()} or its time runs out. A thread parked between attempts has a
 * {@link WaitingForLock} as its park blocker, saying whether its hand-off offer is armed: what
 * thread dumps show, and how kit rules recognise a parked waiter.
 *
 * <p>Thread-safety: one instance per call, run by the calling thread; {@link #wake()} from any thread.
 */
public final class BlockingWait extends Wait {
    private final Thread thread = Thread.currentThread();
    private final boolean interruptible;
    private volatile boolean fired;
    private boolean interrupted;

    /**
     * @param waitMs {@code Args.WAIT_FOREVER}, {@code Args.TRY_ONCE} or the longest wait in ms
     * @param ttlMs the TTL, or {@code Args.TTL_WATCHDOG}
     * @param interruptible whether an interrupt ends the wait (if not, the status is restored after)
     */
    public BlockingWait(WaitTarget target, WaitContext ctx, long waitMs, long ttlMs, long ownerId,
                        boolean interruptible) {
        super(target, ctx, waitMs, ttlMs, ownerId);
        this.interruptible = interruptible;
    }

    @Override
    void wake() {
        fired = true;
        LockSupport.unpark(thread);
    }

    /**
     * Runs the wait to its end on the calling thread.
     *
     * @return whether the lock was acquired
     * @throws InterruptedException if interrupted while {@code interruptible}
     */
    public boolean run() throws InterruptedException {
        awaitPredecessor();
        try {
            Next next = start();
            while (next != Next.FINISH) {
                next = switch (next) {
                    case ATTEMPT -> attemptNow();
                    case SUBSCRIBE -> awaitSubscription();
                    case PARK -> park();
                    default -> throw new IllegalStateException(String.valueOf(next));
                };
            }
            while (finishing() == Finish.SETTLE) {
                awaitSettle(); // one script at most: not interruptible
            }
            if (unwanted) {
                try {
                    target.releaseNow(ownerId); // handed to us while we left with an error: give it back first
                } catch (RuntimeException giveBack) {
                    error.addSuppressed(giveBack);
                }
            }
            if (needsGiveUp()) {
                awaitGiveUp();
            }
        } finally {
            done(); // on every path, so close() never waits for a wait that is over
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (error instanceof InterruptedException e) {
            throw e;
        }
        if (error instanceof RuntimeException e) {
            throw e;
        }
        if (error instanceof Error e) {
            throw e;
        }
        if (error != null) {
            throw new IllegalStateException(error);
        }
        return acquired;
    }

    /**
     * Waits for this owner's previous wait on the lock, whose asynchronous caller left, to be over
     * (see Wait: one owner's calls one after another); bounded by one watchdog timeout, as its
     * give-backs are.
     */
    private void awaitPredecessor() throws InterruptedException {
        CompletableFuture<Void> before = predecessor();
        if (before == null) {
            return;
        }
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ctx.watchdogMs());
        while (true) {
            try {
                before.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                return;
            } catch (InterruptedException e) {
                if (interruptible) {
                    throw e;
                }
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                return;
            }
        }
    }

    private Next attemptNow() {
        sending();
        Acquire outcome;
        try {
            outcome = target.attempt(ttlMs, ownerId, mode);
        } catch (RuntimeException e) {
            return attempted(null, e);
        }
        return attempted(outcome, null);
    }

    private Next awaitSubscription() {
        long end = System.nanoTime() + subscribeBudgetNanos();
        while (true) {
            try {
                entry.subscribed().get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                return subscribed(null, false);
            } catch (InterruptedException e) {
                if (interruptible) {
                    return interruptedNow(e);
                }
                interrupted = true;
            } catch (ExecutionException e) {
                return subscribed(e.getCause(), false);
            } catch (TimeoutException e) {
                return subscribed(null, true);
            }
        }
    }

    private Next park() {
        if (parkOnEntry && entry.parkOrTake(this, epochAtAttempt)) {
            messageWake = true; // a wake-up banked before we got here: ours to use, or to pass on
            return parked();
        }
        boolean ok;
        try {
            ok = awaitWake(parkNanos, new WaitingForLock(target.name(), offerStanding()));
        } finally {
            if (parkOnEntry) {
                entry.unpark(this);
            }
        }
        return ok ? parked() : interruptedNow(new InterruptedException("interrupted while waiting for lock '"
                + target.name() + "'"));
    }

    /**
     * @param blocker what the thread is parked for (published through {@code LockSupport.getBlocker})
     * @return false if interrupted and interruptible; true when woken or the time ran out
     */
    private boolean awaitWake(long nanos, WaitingForLock blocker) {
        long end = System.nanoTime() + nanos;
        while (!fired) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            LockSupport.parkNanos(blocker, left);
            if (Thread.interrupted()) {
                if (interruptible) {
                    return false;
                }
                interrupted = true;
            }
        }
        fired = false;
        return true;
    }

    private void awaitSettle() {
        long end = System.nanoTime() + parkNanos;
        while (!fired && end - System.nanoTime() > 0) {
            LockSupport.parkNanos(this, end - System.nanoTime());
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        fired = false;
    }

    private Next interruptedNow(InterruptedException e) {
        error = e;
        return Next.FINISH;
    }

    /** Leaves the wait queue before returning (bounded by the command timeout), so a next attempt cannot race it. */
    private void awaitGiveUp() {
        CompletableFuture<Void> left = target.giveUp(ownerId);
        long end = System.nanoTime() + ctx.commandTimeoutNanos();
        while (true) {
            try {
                left.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                return;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                return; // logged by the target, or still running: the entry expires on its own
            }
        }
    }
}
