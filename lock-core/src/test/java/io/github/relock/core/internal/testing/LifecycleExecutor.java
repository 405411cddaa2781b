package io.github.relock.core.internal.testing;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The shutdown bookkeeping of a test's hand-made executor: shut down at once, nothing to wait for.
 * Subclasses refuse new tasks once {@link #isShutdown()}.
 *
 * <p>Thread-safety: safe for use by several threads (the flag is volatile).
 */
public abstract class LifecycleExecutor extends AbstractExecutorService {
    private volatile boolean shutdown;

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
