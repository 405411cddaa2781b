package io.github.relock.core.internal.hold;

import io.github.relock.api.LockLostEvent;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.util.Args;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link HoldRegistry} whose loss reports are queued by its callback runner until the test
 * {@link #deliver delivers} them to {@link #lost}, with helpers that register holds sent at a chosen
 * time (so a hold's deadlines are known without waiting for them).
 *
 * <p>Thread-safety: not thread-safe; confined to the test's thread.
 */
final class RegistryFixture {
    static final long WATCHDOG_MS = 30_000;

    final List<LockLostEvent> lost = new ArrayList<>();
    final List<Runnable> queued = new ArrayList<>();
    final HoldRegistry registry = new HoldRegistry(WATCHDOG_MS, lost::add, queued::add);

    /** Runs the loss reports the callback runner has been handed. @return the events delivered so far */
    List<LockLostEvent> deliver() {
        List<Runnable> run = new ArrayList<>(queued);
        queued.clear();
        run.forEach(Runnable::run);
        return lost;
    }

    /** @return the reasons delivered so far, after delivering what is queued */
    List<LockLostEvent.Reason> reasons() {
        return deliver().stream().map(LockLostEvent::reason).toList();
    }

    /** A watchdog hold acquired {@code agoMs} ago. */
    Hold watchdog(String key, String field, long agoMs) {
        return registry.register(key, field, 1, key, Args.TTL_WATCHDOG, ago(agoMs), Acquire.NO_TOKEN, null);
    }

    Hold watchdog(String key, String field) {
        return watchdog(key, field, 0);
    }

    /** A hold with an explicit lease of {@code ttlMs}, acquired {@code agoMs} ago. */
    Hold explicit(String key, String field, long ttlMs, long agoMs) {
        return registry.register(key, field, 1, key, ttlMs, ago(agoMs), Acquire.NO_TOKEN, null);
    }

    static long ago(long ms) {
        return System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(ms);
    }

    static long ms(long ms) {
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }
}
