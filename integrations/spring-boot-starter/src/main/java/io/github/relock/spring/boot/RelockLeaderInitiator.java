package io.github.relock.spring.boot;

import io.github.relock.api.LeaderElection;
import io.github.relock.api.LockClient;
import java.util.Objects;
import java.util.OptionalLong;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;

/*
 * Design: a SmartLifecycle around one LeaderElection, shaped after Spring Integration's
 * LockRegistryLeaderInitiator (a bean per role, events on grant and revoke, a phase near the top)
 * without depending on Spring Integration.
 *
 * start() joins; stop(callback) leaves and runs the callback once the tenure has ended, so the
 * context's shutdown waits for the revoked event to be published (the election tells its listeners
 * on the client's timer, after leave() has released the lock). Which stops wait: one where the
 * election leads, or where a grant was published and its revoke not yet; those hand the callback
 * to the revoke listener, which runs it after publishing. The check and leave() are two steps: a
 * grant landing between them is published (granted, then revoked LEFT) after the callback ran.
 * The election releases such a grant at once, so no tenure outlives the stop.
 *
 * Phase: Integer.MAX_VALUE - 1000 (Spring Integration's), above every phase relock's client stops
 * in (the connection factory's plus one), so the leader leaves while its client still works.
 *
 * Thread-safety: the state below is guarded by monitor; listeners run on the client's thread.
 */
/**
 * Joins a relock {@link LeaderElection} when the Spring context starts and leaves it when the
 * context stops, publishing {@link RelockLeaderGrantedEvent} and {@link RelockLeaderRevokedEvent}
 * as application events. Declare one bean per election the application takes part in:
 *
 * <pre>{@code
 * @Bean
 * RelockLeaderInitiator billingLeader(LockClient locks) {
 *     return new RelockLeaderInitiator(locks, "billing-scheduler");
 * }
 *
 * @EventListener
 * void granted(RelockLeaderGrantedEvent e) { scheduler.start(e.getEpoch()); }
 *
 * @EventListener
 * void revoked(RelockLeaderRevokedEvent e) { scheduler.stop(); }   // e.getReason(): LOST or LEFT
 * }</pre>
 *
 * <p>The events are published on a thread of the client (its timer, or
 * {@code LockOptions.lockLostExecutor()}), one at a time in order: keep {@code @EventListener}
 * methods short and hand long work to the application's own threads. On stop (the context stopping
 * or closing) a leader releases its lock before the context goes on, so the next candidate is
 * granted at once; the stop completes after the {@code LEFT} revoked event was published. The
 * phase ({@link #getPhase()}, default {@code Integer.MAX_VALUE - 1000}) makes it stop before the
 * auto-configured client closes.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public class RelockLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware {

    /** The default phase: Spring Integration's leader initiator's, stopping early. */
    public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 1000;

    private final String name;
    private final LeaderElection election;
    private final Object monitor = new Object();
    private volatile ApplicationEventPublisher publisher;
    private volatile int phase = DEFAULT_PHASE;
    private volatile boolean autoStartup = true;

    // guarded by monitor
    private boolean running;
    /** A grant was published and its revoke not yet. */
    private boolean tenurePublished;
    /** A stop's callback, run by the revoke listener once the tenure ended. */
    private Runnable afterTenure;

    /**
     * Makes the candidate; it campaigns from {@link #start()}.
     *
     * @param client the application's lock client
     * @param name the election's name: the lock name all candidates campaign on; not blank
     * @throws IllegalArgumentException if {@code name} is null or blank, naming what was passed, or
     *     the client refuses it
     * @throws NullPointerException if {@code client} is null
     */
    public RelockLeaderInitiator(LockClient client, String name) {
        Objects.requireNonNull(client, "client");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("RelockLeaderInitiator needs an election name that is not blank, was "
                    + (name == null ? "null" : "'" + name + "'"));
        }
        this.name = name;
        this.election = client.getLeaderElection(name)
                .onGranted(this::granted)
                .onRevoked(this::revoked);
    }

    private void granted(LeaderElection.Leadership tenure) {
        synchronized (monitor) {
            tenurePublished = true;
        }
        publish(new RelockLeaderGrantedEvent(this, name, tenure.epoch()));
    }

    private void revoked(LeaderElection.Revocation end) {
        Runnable callback;
        try {
            publish(new RelockLeaderRevokedEvent(this, name, end.epoch(), end.reason()));
        } finally {
            synchronized (monitor) {
                tenurePublished = false;
                callback = afterTenure;
                afterTenure = null;
            }
        }
        if (callback != null) {
            callback.run();
        }
    }

    private void publish(RelockLeaderEvent event) {
        ApplicationEventPublisher p = publisher;
        if (p != null) {
            p.publishEvent(event);
        }
    }

    /** Joins the election: campaigns in the background. Does nothing while running. */
    @Override
    public void start() {
        synchronized (monitor) {
            if (running) {
                return;
            }
            running = true;
        }
        election.join();
    }

    /** Leaves the election: a leader releases its lock before this returns (unless Redis cannot be reached). */
    @Override
    public void stop() {
        stop(() -> { });
    }

    /**
     * Leaves the election and runs {@code callback} once the tenure ended: at once when this
     * candidate did not lead, else after the revoked event was published.
     */
    @Override
    public void stop(Runnable callback) {
        boolean waitForRevoke;
        synchronized (monitor) {
            if (!running) {
                waitForRevoke = false;
            } else {
                running = false;
                waitForRevoke = tenurePublished || election.isLeader();
                if (waitForRevoke) {
                    afterTenure = callback;
                }
            }
        }
        election.leave();
        if (!waitForRevoke) {
            callback.run();
        }
    }

    @Override
    public boolean isRunning() {
        synchronized (monitor) {
            return running;
        }
    }

    /** @return the phase, {@link #DEFAULT_PHASE} unless set */
    @Override
    public int getPhase() {
        return phase;
    }

    /**
     * @param phase the phase to start and stop in; keep it above the phase the {@code LockClient}
     *     stops in, so the leader leaves while its client still works
     */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /** @param autoStartup whether the context's refresh starts it (default true); else call {@link #start()} */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    /** @return the election's name */
    public String getName() {
        return name;
    }

    /** @return whether this candidate leads, as far as it knows (its lease was valid at the last renewal) */
    public boolean isLeader() {
        return election.isLeader();
    }

    /** @return the epoch (fencing token) of this candidate's current tenure; empty when it does not lead */
    public OptionalLong getEpoch() {
        return election.epoch();
    }

    /** @return the election, for {@link LeaderElection#currentLeader()} and listeners of its own */
    public LeaderElection getElection() {
        return election;
    }

    @Override
    public String toString() {
        return "RelockLeaderInitiator[" + name + "]";
    }
}
