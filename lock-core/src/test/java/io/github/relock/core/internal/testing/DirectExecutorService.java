package io.github.relock.core.internal.testing;

import java.util.concurrent.RejectedExecutionException;

/**
 * An {@link java.util.concurrent.ExecutorService} that runs each task on the submitting thread, so
 * code handing work to a pool runs deterministically in a test; once shut down it refuses tasks.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class DirectExecutorService extends LifecycleExecutor {
    /** @return one that refuses every task, like a pool that was shut down */
    public static DirectExecutorService rejecting() {
        DirectExecutorService refusing = new DirectExecutorService();
        refusing.shutdown();
        return refusing;
    }

    @Override
    public void execute(Runnable command) {
        if (isShutdown()) {
            throw new RejectedExecutionException("rejected by the test's executor");
        }
        command.run();
    }
}
