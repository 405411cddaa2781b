package io.github.relock.examples;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One thread that takes locks and later releases them: thread-bound locks (relock's and Redisson's)
 * must be released by the thread that took them.
 */
final class OwnerThread implements AutoCloseable {
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "lock-owner");
        t.setDaemon(true);
        return t;
    });
    private final long id = call(() -> Thread.currentThread().getId());

    long id() {
        return id;
    }

    /** Runs {@code task} on this thread and waits up to 20 s for it. */
    <T> T call(Callable<T> task) {
        try {
            return thread.submit(task).get(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the owner thread's task failed or hung", e);
        }
    }

    void run(Runnable task) {
        call(() -> {
            task.run();
            return null;
        });
    }

    /** Starts a task that blocks (a waiter) without waiting for it. */
    Future<?> start(Runnable task) {
        return thread.submit(task);
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
