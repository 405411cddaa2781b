package io.github.relock.core.internal.timing;

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
 * Virtual time for the timing simulation: one clock, and a client's timer ({@link View}) whose
 * tasks run only when the simulation advances the clock to them ({@link #fireNext()}), earliest
 * first (ties in the order scheduled). Nothing runs by itself and no thread is started.
 *
 * <p>Thread-safety: not thread-safe; confined to the simulation's thread.
 */
final class SimTimer {

    /** One scheduled task of one client's timer. */
    final class Task implements ScheduledFuture<Object> {
        final String owner;
        final Runnable command;
        final long periodNanos;
        final long seq;
        long dueNanos;
        boolean cancelled;
        boolean ran;

        Task(String owner, Runnable command, long dueNanos, long periodNanos) {
            this.owner = owner;
            this.command = command;
            this.dueNanos = dueNanos;
            this.periodNanos = periodNanos;
            this.seq = nextSeq++;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - now, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean was = !isDone();
            cancelled = true;
            return was;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return cancelled || (ran && periodNanos == 0);
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String toString() {
            return owner + (periodNanos == 0 ? " timer" : " periodic timer") + " due at " + ms(dueNanos);
        }
    }

    private final List<Task> tasks = new ArrayList<>();
    private long now;
    private long nextSeq;

    /** @return the virtual time, in ns since the simulation began */
    long now() {
        return now;
    }

    static String ms(long nanos) {
        return String.format("%.3f ms", nanos / 1e6);
    }

    /** @return the task that would run next, or null if none is scheduled */
    Task next() {
        Task best = null;
        for (Task t : tasks) {
            if (!t.isDone() && (best == null || t.dueNanos < best.dueNanos
                    || (t.dueNanos == best.dueNanos && t.seq < best.seq))) {
                best = t;
            }
        }
        return best;
    }

    /** @return whether a one-shot task is scheduled (periodic ones, the watchdog's ticks, do not count) */
    boolean hasOneShot() {
        for (Task t : tasks) {
            if (!t.isDone() && t.periodNanos == 0) {
                return true;
            }
        }
        return false;
    }

    /** Advances the clock to the next task and runs it. @return the task run, or null if none was due */
    Task fireNext() {
        Task t = next();
        if (t == null) {
            return null;
        }
        now = Math.max(now, t.dueNanos);
        t.ran = true;
        if (t.periodNanos > 0) {
            t.dueNanos += t.periodNanos;
        } else {
            tasks.remove(t);
        }
        t.command.run();
        tasks.removeIf(Task::isDone);
        return t;
    }

    /** @return a client's timer on this clock */
    View view(String owner) {
        return new View(owner);
    }

    /** One client's timer: what its services, waits and watchdog schedule on. */
    final class View extends LifecycleExecutor implements ScheduledExecutorService {
        private final String owner;

        View(String owner) {
            this.owner = owner;
        }

        /** As the client's ScheduledThreadPoolExecutor: refuses new tasks, and what is scheduled never runs. */
        @Override
        public List<Runnable> shutdownNow() {
            super.shutdownNow();
            for (Task t : tasks) {
                if (t.owner.equals(owner)) {
                    t.cancelled = true;
                }
            }
            return List.of();
        }

        private Task add(Runnable command, long delay, long period, TimeUnit unit) {
            if (isShutdown()) {
                throw new RejectedExecutionException("the client's timer is shut down");
            }
            Task t = new Task(owner, command, now + Math.max(0, unit.toNanos(delay)), unit.toNanos(period));
            tasks.add(t);
            return t;
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
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                         TimeUnit unit) {
            return add(command, initialDelay, delay, unit);
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void execute(Runnable command) {
            add(command, 0, 0, TimeUnit.NANOSECONDS);
        }
    }
}
