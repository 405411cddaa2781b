package io.github.relock.tck.selftest;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Script;
import io.github.relock.spi.Subscription;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Forwards every call to a real executor; a broken driver overrides the one call it breaks.
 *
 * <p>Thread-safety: as the executor it wraps.
 */
class ForwardingExecutor implements CommandExecutor {
    /** The real executor. */
    final CommandExecutor inner;

    ForwardingExecutor(CommandExecutor inner) {
        this.inner = inner;
    }

    @Override
    public Object evalSha(Script script, List<String> keys, List<String> args) {
        return inner.evalSha(script, keys, args);
    }

    @Override
    public Object eval(Script script, List<String> keys, List<String> args) {
        return inner.eval(script, keys, args);
    }

    @Override
    public CompletableFuture<Object> evalShaAsync(Script script, List<String> keys, List<String> args) {
        return inner.evalShaAsync(script, keys, args);
    }

    @Override
    public CompletableFuture<Object> evalAsync(Script script, List<String> keys, List<String> args) {
        return inner.evalAsync(script, keys, args);
    }

    @Override
    public CompletableFuture<Object> evalShaUrgentAsync(Script script, List<String> keys, List<String> args) {
        return inner.evalShaUrgentAsync(script, keys, args);
    }

    @Override
    public CompletableFuture<Object> evalUrgentAsync(Script script, List<String> keys, List<String> args) {
        return inner.evalUrgentAsync(script, keys, args);
    }

    @Override
    public List<Object> evalShaWithWait(Script script, List<String> keys, List<String> args, int replicas,
            long timeoutMs) {
        return inner.evalShaWithWait(script, keys, args, replicas, timeoutMs);
    }

    @Override
    public Object nodeOfSlot(int slot) {
        return inner.nodeOfSlot(slot);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
        return inner.subscribe(channel, sharded, listener);
    }

    @Override
    public void setConnectionListener(ConnectionListener listener) {
        inner.setConnectionListener(listener);
    }

    @Override
    public Set<Capability> capabilities() {
        return inner.capabilities();
    }

    @Override
    public void close() {
        inner.close();
    }
}
