package io.github.relock.core.internal.wait;

import java.util.ArrayList;
import java.util.List;

/** A timer whose tasks run only when the test says so: deterministic parks for async waits. */
final class ManualTimer implements WaitContext.Timer {
    /** A scheduled task. */
    static final class Task {
        final Runnable run;
        final long delayNanos;
        volatile boolean cancelled;
        volatile boolean ran;

        Task(Runnable run, long delayNanos) {
            this.run = run;
            this.delayNanos = delayNanos;
        }
    }

    final List<Task> tasks = new ArrayList<>();
    volatile boolean closed;

    @Override
    public synchronized WaitContext.Cancellable schedule(Runnable task, long delayNanos) {
        if (closed) {
            return null;
        }
        Task t = new Task(task, delayNanos);
        tasks.add(t);
        return () -> t.cancelled = true;
    }

    /** @return the tasks neither run nor cancelled */
    synchronized List<Task> live() {
        List<Task> live = new ArrayList<>();
        for (Task t : tasks) {
            if (!t.cancelled && !t.ran) {
                live.add(t);
            }
        }
        return live;
    }

    /** Runs every live task once (as if their time came); returns how many ran. */
    int fireAll() {
        List<Task> due = live();
        for (Task t : due) {
            t.ran = true;
            t.run.run();
        }
        return due.size();
    }
}
