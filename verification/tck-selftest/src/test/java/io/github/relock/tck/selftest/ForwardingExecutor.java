package io.github.relock.tck.selftest;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Forwards every call to a real executor; a broken driver overrides the one call it breaks (the
 * async calls by lane: {@link #applicationAsync}, {@link #renewalAsync}).
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
    public Object eval(ScriptCall call) {
        return inner.eval(call);
    }

    /** Sends a call of {@code lane} through {@link #applicationAsync} or {@link #renewalAsync}. */
    @Override
    public final CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
        return lane == Lane.RENEWAL ? renewalAsync(call) : applicationAsync(call);
    }

    /** The application's async calls ({@link Lane#APPLICATION}): what most broken drivers break. */
    CompletableFuture<Object> applicationAsync(ScriptCall call) {
        return inner.evalAsync(call, Lane.APPLICATION);
    }

    /** The watchdog's renewals ({@link Lane#RENEWAL}): forwarded as they are unless a driver breaks its lane. */
    CompletableFuture<Object> renewalAsync(ScriptCall call) {
        return inner.evalAsync(call, Lane.RENEWAL);
    }

    @Override
    public List<Object> evalShaWithWait(Script script, List<String> keys, List<String> args, int replicas,
            long timeoutMs) {
        return inner.evalShaWithWait(script, keys, args, replicas, timeoutMs);
    }

    @Override
    public CompletableFuture<List<Object>> evalWithWaitAsync(ScriptCall call, int replicas, long timeoutMs, Lane lane) {
        return inner.evalWithWaitAsync(call, replicas, timeoutMs, lane);
    }

    @Override
    public String replicationInfo(String key) {
        return inner.replicationInfo(key);
    }

    @Override
    public Object nodeOfSlot(int slot) {
        return inner.nodeOfSlot(slot);
    }

    @Override
    public Boolean classicPubSubOnNodeOf(int slot) {
        return inner.classicPubSubOnNodeOf(slot);
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
