package io.github.relock.core.internal.hold;

import io.github.relock.core.internal.testing.LifecycleExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A hand-driven {@link ScheduledExecutorService}: it records what is scheduled and runs nothing by
 * itself; a test runs the one-shot tasks with {@link #runOneShots()}. Once shut down it refuses new
 * tasks, as the client's timer does while the client closes.
 *
 * <p>Thread-safety: not thread-safe; confined to the test's thread.
 */
final class ManualScheduler extends LifecycleExecutor implements ScheduledExecutorService {

    /** One scheduled task. */
    static final class Task implements ScheduledFuture<Object> {
        final Runnable command;
        final long delayNanos;
        final long periodNanos; // 0 for a one-shot task
        boolean cancelled;
        boolean ran;

        Task(Runnable command, long delayNanos, long periodNanos) {
            this.command = command;
            this.delayNanos = delayNanos;
            this.periodNanos = periodNanos;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(delayNanos, o.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return cancelled || ran;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }
    }

    final List<Task> tasks = new ArrayList<>();

    private Task add(Runnable command, long delay, long period, TimeUnit unit) {
        if (isShutdown()) {
            throw new RejectedExecutionException("the test's timer refuses tasks");
        }
        Task t = new Task(command, unit.toNanos(delay), unit.toNanos(period));
        tasks.add(t);
        return t;
    }

    /** @return the one-shot tasks not yet run or cancelled */
    List<Task> oneShots() {
        return tasks.stream().filter(t -> t.periodNanos == 0 && !t.isDone()).toList();
    }

    /** @return the periodic tasks */
    List<Task> periodic() {
        return tasks.stream().filter(t -> t.periodNanos != 0).toList();
    }

    /** Runs the one-shot tasks scheduled so far (not those they schedule). */
    void runOneShots() {
        for (Task t : oneShots()) {
            t.ran = true;
            t.command.run();
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(command, delay, 0, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return add(command, initialDelay, period, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void execute(Runnable command) {
        throw new UnsupportedOperationException();
    }
}
