package io.github.relock.core.internal.sync;

import io.github.relock.api.LockLostEvent;
import io.github.relock.core.internal.lock.ClientServices;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.wait.AsyncWait;
import io.github.relock.core.internal.wait.BlockingWait;
import io.github.relock.core.internal.wait.WaitTarget;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The per-client services the synchronizers of one client share: the engine's runner and waits,
 * the publish mode, and the client's permit leases. Built by the client; handed to every
 * synchronizer it makes. Every call checks the client is open first.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class Sync {
    final ClientServices services;
    final PermitLeases leases;

    /**
     * @param services the client's services
     * @param lostSink the client's lock-lost listeners (a permit lease's loss is reported there too)
     * @param callbackRunner runs loss callbacks off the driver's threads
     */
    public Sync(ClientServices services, Consumer<LockLostEvent> lostSink, Consumer<Runnable> callbackRunner) {
        this.services = services;
        this.leases = new PermitLeases(services, lostSink, callbackRunner);
    }

    private Sync(Sync base, ClientServices services) {
        this.services = services;
        this.leases = base.leases;
    }

    /**
     * The same client's synchronizer services over other client services (a view's, with its own
     * runner); the permit leases stay the client's.
     *
     * @param services the view's services
     * @return the view's synchronizer services
     */
    public Sync withServices(ClientServices services) {
        return new Sync(this, services);
    }

    /** Reports every permit lease still held as lost (CLIENT_CLOSED); the client is closing. */
    public void close() {
        leases.close();
    }

    SyncCalls calls(String name) {
        return new SyncCalls(name, services.protocols().publishMode());
    }

    /** Sends {@code call} on the calling thread. */
    <T> T run(Call<T> call) {
        services.ensureOpen();
        return services.runner().run(call);
    }

    /** Sends {@code call} without blocking; a closed client fails the future. */
    <T> CompletableFuture<T> runAsync(Call<T> call) {
        try {
            services.ensureOpen();
            return services.runner().runAsync(call);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Waits on the calling thread (interruptibly) until {@code target} answers Acquired.
     *
     * @param waitMs {@code Args.WAIT_FOREVER}, {@code Args.TRY_ONCE} or ms
     * @return whether it did within the wait
     */
    boolean await(WaitTarget target, long waitMs) throws InterruptedException {
        services.ensureOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting on " + target.protocol().kind() + " '"
                    + target.name() + "'");
        }
        return new BlockingWait(target, services.waits(), waitMs, 0, 0, true).run();
    }

    /**
     * Waits without blocking; cancelling the result ends the wait (what it took is given back).
     *
     * @param outcome maps "acquired?" to the caller's value
     */
    <T> CompletableFuture<T> awaitAsync(WaitTarget target, long waitMs, Function<Boolean, T> outcome) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        try {
            services.ensureOpen();
        } catch (IllegalStateException e) {
            caller.completeExceptionally(e);
            return caller;
        }
        services.track(caller);
        new AsyncWait<>(target, services.waits(), waitMs, 0, 0, caller, outcome).begin();
        return caller;
    }

    /** @return {@code t} unwrapped, as an unchecked exception to throw */
    static RuntimeException unwrapped(Throwable t) {
        return ScriptRunner.asRuntime(ScriptRunner.unwrap(t));
    }
}
