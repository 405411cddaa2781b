package io.github.relock.driver.lettuce;

import io.github.relock.api.RedisUnavailableException;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Fails an async call's future after the command timeout, on the Lettuce client's own timer.
 *
 * <h2>Design</h2>
 * {@link CompletableFuture#orTimeout} would put one task per call into the JDK's shared delay
 * queue (a locked heap whose cancelled tasks stay until they expire) and add two future stages.
 * Lettuce already runs a {@link io.netty.util.HashedWheelTimer} ({@link ClientResources#timer()})
 * for its own command timeouts: scheduling there is a lock-free enqueue, and a cancel is another.
 * Its tick (100 ms by default) makes a timeout fire up to one tick late, which is fine for a
 * timeout of seconds. The expiry does not run on the timer thread, which every timeout of the
 * client shares: it is handed to the client's computation threads
 * ({@link ClientResources#eventExecutorGroup()}), as Lettuce does with its own. If the client is
 * shut down (its timer stopped, its threads gone), the JDK's delayed executor and then the calling
 * thread take over, so the future still fails.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class CommandTimer {

    private final Timer timer;
    private final Executor expiries;
    private final Duration timeout;
    private final long timeoutNanos;

    CommandTimer(ClientResources resources, Duration timeout) {
        this.timer = resources.timer();
        this.expiries = resources.eventExecutorGroup();
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
    }

    /**
     * Fails {@code f} with {@link RedisUnavailableException} if it is not done within the command
     * timeout, and cancels the Lettuce command {@code raw}: a command buffered while disconnected
     * would otherwise be sent on reconnect, after relock reported it failed (a ghost acquisition).
     *
     * @param f the future handed to core
     * @param raw the Lettuce command behind it, or null
     * @param what the operation and its target, for the message (only called on expiry)
     */
    void failAfterTimeout(CompletableFuture<?> f, Future<?> raw, Supplier<String> what) {
        failAfter(f, raw, 0, what);
    }

    /**
     * As {@link #failAfterTimeout}, with {@code extraNanos} on top of the command timeout (a
     * command pipelined with {@code WAIT}, which may take its own timeout).
     */
    void failAfter(CompletableFuture<?> f, Future<?> raw, long extraNanos, Supplier<String> what) {
        long timeoutNanos = this.timeoutNanos + extraNanos;
        Duration timeout = Duration.ofNanos(timeoutNanos);
        if (f.isDone()) {
            return;
        }
        Runnable expire = () -> {
            if (f.isDone()) {
                return;
            }
            if (raw != null) {
                raw.cancel(false);
            }
            f.completeExceptionally(new RedisUnavailableException(what.get() + " got no reply within " + timeout
                    + "; whether it ran is unknown", new TimeoutException()));
        };
        Timeout scheduled;
        try {
            scheduled = timer.newTimeout(t -> handOff(expire), timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException | RejectedExecutionException stopped) { // the client was shut down
            CompletableFuture.delayedExecutor(timeoutNanos, TimeUnit.NANOSECONDS).execute(expire);
            return;
        }
        f.whenComplete((v, e) -> scheduled.cancel());
    }

    private void handOff(Runnable expire) {
        try {
            expiries.execute(expire);
        } catch (RejectedExecutionException shutDown) {
            expire.run();
        }
    }
}
