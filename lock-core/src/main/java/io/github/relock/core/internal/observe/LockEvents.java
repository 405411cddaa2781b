package io.github.relock.core.internal.observe;

import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.ServerFallback;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Category;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Timespan;

/**
 * One room for observability: dispatches to the client's {@link LockEventListener} and commits
 * JFR events ({@code relock.LockAcquire}, {@code relock.LockHold}, {@code relock.LockLost},
 * {@code relock.Renewal}, {@code relock.ReplyLost}).
 *
 * <p>Design: the hot path asks {@link #timing()} first; with no listener (the {@code NOOP}
 * singleton, remembered in a final boolean) and no JFR recording of these events it answers false,
 * and the caller neither reads the clock nor calls anything else. JFR enablement is read from a
 * static probe instance per event type: {@link Event#isEnabled()} is instrumented to read the event
 * type's static handler state, so the check costs a field read and allocates nothing. A listener
 * that throws is caught here and logged once (first failure), then silently ignored per call.
 *
 * <p>Thread-safety: thread-safe; called on the thread that did the work.
 */
public final class LockEvents {

    private static final System.Logger LOG = System.getLogger(LockEvents.class.getName());

    // Off unless a recording asks for them: they are committed on the locking thread, once per
    // lock and unlock, and committing a JFR event on a virtual thread can pin it (rule 8.1 saw
    // "Contended monitor enter" inside commit while a plain recording was running).
    @Name("relock.LockAcquire")
    @Enabled(false)
    @Label("Lock Acquire")
    @Category("relock")
    static final class AcquireEvent extends Event {
        @Label("Lock Name")
        String name;
        @Label("Waited")
        @Timespan(Timespan.NANOSECONDS)
        long waited;
        @Label("Acquired")
        boolean acquired;
    }

    @Name("relock.LockHold")
    @Enabled(false)
    @Label("Lock Hold")
    @Category("relock")
    static final class HoldEvent extends Event {
        @Label("Lock Name")
        String name;
        @Label("Held")
        @Timespan(Timespan.NANOSECONDS)
        long held;
    }

    @Name("relock.LockLost")
    @Label("Lock Lost")
    @Category("relock")
    static final class LostEvent extends Event {
        @Label("Lock Name")
        String name;
        @Label("Reason")
        String reason;
    }

    @Name("relock.Renewal")
    @Label("Lock Renewal Batch")
    @Category("relock")
    static final class RenewalEvent extends Event {
        @Label("Batch Size")
        int batchSize;
        @Label("Failed")
        int failed;
        @Label("Duration")
        @Timespan(Timespan.NANOSECONDS)
        long took;
    }

    @Name("relock.ReplyLost")
    @Label("Lock Reply Lost")
    @Category("relock")
    static final class ReplyLostEvent extends Event {
        @Label("Lock Name")
        String name;
        @Label("Operation")
        String operation;
    }

    private static final ReplyLostEvent REPLY_LOST_PROBE = new ReplyLostEvent();
    private static final AcquireEvent ACQUIRE_PROBE = new AcquireEvent();
    private static final HoldEvent HOLD_PROBE = new HoldEvent();
    private static final LostEvent LOST_PROBE = new LostEvent();
    private static final RenewalEvent RENEWAL_PROBE = new RenewalEvent();

    private final LockEventListener listener;
    private final boolean listening;
    private final AtomicBoolean failureLogged = new AtomicBoolean();
    /** The fallbacks reported so far, one bit per {@link ServerFallback} ordinal. */
    private final AtomicInteger fallbacks = new AtomicInteger();

    public LockEvents(LockEventListener listener) {
        this.listener = listener;
        this.listening = listener != LockEventListener.NOOP;
    }

    /** @return whether acquire/release timing is wanted (a listener, or JFR recording acquire or hold events) */
    public boolean timing() {
        return listening || ACQUIRE_PROBE.isEnabled() || HOLD_PROBE.isEnabled();
    }

    /** @return whether renewal batches are wanted */
    public boolean renewalTiming() {
        return listening || RENEWAL_PROBE.isEnabled();
    }

    public void acquired(String name, long waitedNanos, boolean acquired) {
        if (ACQUIRE_PROBE.isEnabled()) {
            AcquireEvent e = new AcquireEvent();
            e.name = name;
            e.waited = waitedNanos;
            e.acquired = acquired;
            e.commit();
        }
        if (listening) {
            try {
                if (acquired) {
                    listener.acquired(name, Duration.ofNanos(waitedNanos));
                } else {
                    listener.acquireTimedOut(name, Duration.ofNanos(waitedNanos));
                }
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    public void released(String name, long heldNanos) {
        if (HOLD_PROBE.isEnabled()) {
            HoldEvent e = new HoldEvent();
            e.name = name;
            e.held = heldNanos;
            e.commit();
        }
        if (listening) {
            try {
                listener.released(name, Duration.ofNanos(heldNanos));
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    public void lost(String name, LockLostEvent.Reason reason) {
        if (LOST_PROBE.isEnabled()) {
            LostEvent e = new LostEvent();
            e.name = name;
            e.reason = reason.name();
            e.commit();
        }
        if (listening) {
            try {
                listener.lost(name, reason);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    public void renewalBatch(int renewed, int failed, long tookNanos) {
        if (RENEWAL_PROBE.isEnabled()) {
            RenewalEvent e = new RenewalEvent();
            e.batchSize = renewed + failed;
            e.failed = failed;
            e.took = tookNanos;
            e.commit();
        }
        if (listening) {
            try {
                listener.renewalBatch(renewed, failed, Duration.ofNanos(tookNanos));
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    /**
     * A script's reply was lost after it may have run; the engine resolved the outcome from Redis.
     *
     * @param operation what was lost, e.g. "release", "hand-off release", "acquire"
     */
    public void replyLost(String name, String operation) {
        if (REPLY_LOST_PROBE.isEnabled()) {
            ReplyLostEvent e = new ReplyLostEvent();
            e.name = name;
            e.operation = operation;
            e.commit();
        }
        if (listening) {
            try {
                listener.replyLost(name, operation);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    /**
     * The server lacks a feature and the client does without it: logged and told to the listener
     * the first time only, whichever thread meets it first.
     *
     * @param fallback what the client does instead
     * @param cause the server's refusal
     */
    public void serverFallback(ServerFallback fallback, String cause) {
        int bit = 1 << fallback.ordinal();
        if ((fallbacks.getAndUpdate(b -> b | bit) & bit) != 0) {
            return;
        }
        LOG.log(System.Logger.Level.INFO, "relock falls back to " + fallback + " for this client: " + cause);
        if (listening) {
            try {
                listener.serverFallback(fallback, cause);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    /** @return whether {@code fallback} was reported already (the client does without the feature) */
    public boolean fellBack(ServerFallback fallback) {
        return (fallbacks.get() & (1 << fallback.ordinal())) != 0;
    }

    private void failed(RuntimeException e) {
        if (failureLogged.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "lock event listener " + listener
                    + " threw; locking goes on and further failures of this listener are not logged", e);
        }
    }
}
