package io.github.relock.core.internal;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.spi.CommandExecutor;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** The engine's {@link LockClient}. Thread-safety: safe for use by several threads. */
public final class DefaultLockClient implements LockClient {
    private final CommandExecutor executor;
    private final LockOptions options;
    private final boolean ownsExecutor;
    private final CopyOnWriteArrayList<Consumer<LockLostEvent>> lostListeners = new CopyOnWriteArrayList<>();

    private DefaultLockClient(CommandExecutor executor, LockOptions options, boolean ownsExecutor) {
        this.executor = executor;
        this.options = options;
        this.ownsExecutor = ownsExecutor;
    }

    /**
     * @param executor the driver's executor
     * @param options options
     * @param ownsExecutor whether {@link #close()} closes the executor
     * @return a new client
     */
    public static DefaultLockClient open(CommandExecutor executor, LockOptions options, boolean ownsExecutor) {
        return new DefaultLockClient(Objects.requireNonNull(executor, "executor"), Objects.requireNonNull(options, "options"), ownsExecutor);
    }

    @Override
    public DistributedLock getLock(String name) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public String clientId() {
        return options.clientId();
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public void addLockLostListener(Consumer<LockLostEvent> listener) {
        lostListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeLockLostListener(Consumer<LockLostEvent> listener) {
        lostListeners.remove(listener);
    }

    @Override
    public void close() {
        if (ownsExecutor) {
            executor.close();
        }
    }
}
