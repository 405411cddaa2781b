package io.github.relock.spring.boot;

import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockLostEvent;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Several {@link LockEventListener} beans as the one listener a client takes: each event goes to
 * every listener in order. One that throws does not keep the event from the others; the first
 * exception is rethrown afterwards (the others suppressed in it), so the client logs it as it logs
 * any listener's.
 *
 * <p>Thread-safety: thread-safe if the listeners are, as {@link LockEventListener} requires.
 */
final class LockEventListeners implements LockEventListener {

    private final List<LockEventListener> listeners;

    LockEventListeners(List<LockEventListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void acquired(String lockName, Duration waited) {
        each(l -> l.acquired(lockName, waited));
    }

    @Override
    public void acquireTimedOut(String lockName, Duration waited) {
        each(l -> l.acquireTimedOut(lockName, waited));
    }

    @Override
    public void released(String lockName, Duration held) {
        each(l -> l.released(lockName, held));
    }

    @Override
    public void lost(String lockName, LockLostEvent.Reason reason) {
        each(l -> l.lost(lockName, reason));
    }

    @Override
    public void renewalBatch(int renewed, int failed, Duration duration) {
        each(l -> l.renewalBatch(renewed, failed, duration));
    }

    private void each(Consumer<LockEventListener> event) {
        RuntimeException first = null;
        for (LockEventListener l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "LockEventListeners" + listeners;
    }
}
