package io.github.relock.api;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/*
 * Design: DistributedLock.withLock, the blocking helper that stops work when its lease is lost.
 *
 * The work runs on the calling thread; the lease's onLost callback (run on a relock thread)
 * interrupts that thread, but only while the work runs: a small state machine (RUNNING, then DONE
 * or INTERRUPTING -> INTERRUPTED) makes sure an interrupt never lands after the work has returned,
 * and that the interrupt this class set is cleared before the caller gets control back. After the
 * work, a lease lost meanwhile is released quietly and LockLostException is thrown (the work's own
 * failure, often the InterruptedException this caused, as its cause); otherwise the lease is
 * closed as try-with-resources would, so a loss the release finds first is a LockLostException too.
 *
 * Thread-safety: stateless; each call has its own state.
 */
final class LossInterrupt {
    private static final int RUNNING = 0;
    private static final int DONE = 1;
    private static final int INTERRUPTING = 2;
    private static final int INTERRUPTED = 3;

    private LossInterrupt() {
    }

    static <T, E extends Exception> T run(LockLease lease, DistributedLock.LeaseWork<T, E> work) throws E {
        Thread worker = Thread.currentThread();
        AtomicInteger state = new AtomicInteger(RUNNING);
        AtomicReference<LockLostEvent> lost = new AtomicReference<>();
        T result = null;
        Throwable failure = null;
        try {
            lease.onLost(e -> {
                lost.compareAndSet(null, e);
                if (state.compareAndSet(RUNNING, INTERRUPTING)) {
                    worker.interrupt();
                    state.set(INTERRUPTED);
                }
            });
            result = work.run(lease);
        } catch (Throwable t) {
            failure = t;
        }
        if (!state.compareAndSet(RUNNING, DONE)) {
            while (state.get() == INTERRUPTING) {
                Thread.onSpinWait(); // the callback is between its check and its interrupt: a few instructions
            }
            Thread.interrupted(); // the interrupt was this helper's, not the caller's
        }
        LockLostEvent event = lost.get();
        if (event != null) {
            LockLostException e = new LockLostException(event, "lock '" + event.lockName() + "' was lost while its "
                    + "work ran (" + event.reason() + "); the work was interrupted");
            if (failure != null) {
                e.initCause(failure);
            }
            try {
                lease.close(); // quiet: the loss was reported; releases it if Redis still has it
            } catch (RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
        try {
            lease.close();
        } catch (RuntimeException closeFailure) {
            if (failure == null) {
                throw closeFailure;
            }
            failure.addSuppressed(closeFailure);
        }
        if (failure != null) {
            throw LossInterrupt.<E>sneaky(failure);
        }
        return result;
    }

    /** Rethrows what the work threw: an unchecked exception, an error, or the work's own {@code E}. */
    @SuppressWarnings("unchecked")
    private static <E extends Exception> E sneaky(Throwable t) throws E {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        throw (E) t;
    }
}
