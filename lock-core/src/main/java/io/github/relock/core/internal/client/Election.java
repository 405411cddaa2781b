package io.github.relock.core.internal.client;

import io.github.relock.api.FencedLock;
import io.github.relock.api.LeaderElection;
import io.github.relock.api.LockInspection;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockTimeoutException;
import io.github.relock.core.internal.lock.ClientServices;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One candidate of a {@link LeaderElection}, built on the fenced lock of the election's name.
 *
 * <p>States, guarded by {@code this}:
 * <ul>
 *   <li>IDLE: made, never joined. {@code join()} moves to CAMPAIGNING.</li>
 *   <li>CAMPAIGNING: one {@code acquireAsync} (watchdog lease, a bounded wait of {@link #WAIT}) is
 *       in flight; a timeout sends the next one, a failure (Redis unreachable) the next one after
 *       {@link #RETRY}. No thread is parked: the engine's pub/sub wait completes the future.</li>
 *   <li>LEADER: the grant's lease is held; its {@code onLost} ends the tenure (LOST, then
 *       CAMPAIGNING again; or LEFT when the loss is the client's close).</li>
 *   <li>LEFT: {@code leave()} or the client's close. {@code join()} campaigns again.</li>
 * </ul>
 *
 * <p>Races. Every attempt carries the generation it was sent in; {@code join}, {@code leave}, a
 * grant and a loss each start a new generation, so an answer of an older one is stale:
 * <ul>
 *   <li>A grant that lands after {@code leave()} (its acquire was in flight and cannot be
 *       cancelled) is stale: its lease is released at once and nobody is told.</li>
 *   <li>A loss while granting: the lease's {@code onLost} is registered after the state became
 *       LEADER and after the grant was queued for the listeners, so a lease already lost runs the
 *       callback at once and the listeners hear granted, then revoked, in that order.</li>
 *   <li>A loss reported after {@code leave()} released the lease is stale and ignored.</li>
 *   <li>The client's close first makes every joined candidate {@code leave()} (a leader releases
 *       its lock, so the next is granted at once, not after the key's TTL); a hold the close still
 *       finds is reported {@code CLIENT_CLOSED} (the tenure ends LEFT) and an acquire in flight
 *       fails (the candidate goes LEFT without a word).</li>
 * </ul>
 * Listener calls are queued under the lock and run after it is released, one at a time in queue
 * order, through the client's lost-callback executor.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class Election implements LeaderElection {
    private static final System.Logger LOG = System.getLogger(Election.class.getName());
    /** How long one acquire waits before the next is sent; bounds how long a left candidate's wait lingers. */
    private static final Duration WAIT = Duration.ofSeconds(2);
    /** The pause after an attempt failed (Redis unreachable) before the next. */
    private static final long RETRY = TimeUnit.MILLISECONDS.toNanos(200);

    private enum State { IDLE, CAMPAIGNING, LEADER, LEFT }

    private final String name;
    private final FencedLock lock;
    private final ClientServices services;
    private final Function<String, LockInspection> inspect;
    private final Consumer<Runnable> callbacks;
    /** The client's candidates that joined and have not left, left by the client's close. */
    private final java.util.Set<Election> joined;
    private final List<Consumer<Leadership>> granted = new CopyOnWriteArrayList<>();
    private final List<Consumer<Revocation>> revoked = new CopyOnWriteArrayList<>();
    private final Queue<Runnable> events = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    /** The thread running the listeners now, or null. */
    private volatile Thread drainer;

    private State state = State.IDLE;
    private long generation;
    private LockLease lease;
    private long epoch;

    /**
     * @param name the election's name, as the caller gave it (the lock's may be mapped)
     * @param lock the election's fenced lock
     * @param services the client's services (closed flag, timer)
     * @param inspect the client's inspect, for {@link #currentLeader()}
     * @param callbacks runs a listener call on a thread of the client
     * @param joined the client's joined candidates: this one is in it from join() to leave()
     */
    Election(String name, FencedLock lock, ClientServices services, Function<String, LockInspection> inspect,
            Consumer<Runnable> callbacks, java.util.Set<Election> joined) {
        this.name = name;
        this.lock = lock;
        this.services = services;
        this.inspect = inspect;
        this.callbacks = callbacks;
        this.joined = joined;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LeaderElection join() {
        services.ensureOpen();
        long gen;
        synchronized (this) {
            if (state == State.CAMPAIGNING || state == State.LEADER) {
                return this;
            }
            state = State.CAMPAIGNING;
            gen = ++generation;
            joined.add(this);
        }
        campaign(gen);
        return this;
    }

    private void campaign(long gen) {
        try {
            lock.acquireAsync(WAIT, null).whenComplete((l, failure) -> answered(gen, l, failure));
        } catch (RuntimeException e) {
            answered(gen, null, e); // the client closed between the check and the call
        }
    }

    private void answered(long gen, LockLease granted, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        boolean again = false;
        boolean retry = false;
        long grantedGen = 0;
        synchronized (this) {
            boolean current = gen == generation && state == State.CAMPAIGNING;
            if (current && granted != null) {
                state = State.LEADER;
                lease = granted;
                epoch = granted.fencingToken().orElseThrow();
                grantedGen = ++generation;
                long e = epoch;
                events.add(() -> tell(this.granted, new Leadership(name(), e)));
            } else if (current && services.isClosed()) {
                joined.remove(this);
                state = State.LEFT;
                generation++;
            } else if (current) {
                gen = ++generation;
                again = cause instanceof LockTimeoutException;
                retry = !again;
            }
        }
        if (granted != null && grantedGen == 0) {
            release(granted); // stale: a grant after leave() or close
        } else if (granted != null) {
            drain();
            long g = grantedGen;
            granted.onLost(event -> lost(g, event));
        } else if (again) {
            campaign(gen);
        } else if (retry) {
            LOG.log(System.Logger.Level.DEBUG, "campaign for leader of " + name() + " failed; retrying", cause);
            long g = gen;
            services.schedule(() -> campaign(g), RETRY, () -> answered(g, null, cause));
        }
    }

    private void lost(long gen, LockLostEvent event) {
        boolean rejoin;
        LockLease gone;
        synchronized (this) {
            if (gen != generation || state != State.LEADER) {
                return;
            }
            gone = lease;
            lease = null;
            long e = epoch;
            rejoin = event.reason() != LockLostEvent.Reason.CLIENT_CLOSED && !services.isClosed();
            state = rejoin ? State.CAMPAIGNING : State.LEFT;
            if (!rejoin) {
                joined.remove(this);
            }
            gen = ++generation;
            Reason reason = rejoin ? Reason.LOST : Reason.LEFT;
            events.add(() -> tell(revoked, new Revocation(name(), e, reason)));
        }
        if (rejoin) {
            release(gone); // frees a key still holding our field (renewal failed) so others need not wait for its TTL
        }
        drain();
        if (rejoin) {
            campaign(gen);
        }
    }

    @Override
    public void leave() {
        LockLease held;
        synchronized (this) {
            if (state != State.CAMPAIGNING && state != State.LEADER) {
                return;
            }
            joined.remove(this);
            held = lease;
            lease = null;
            state = State.LEFT;
            generation++;
            if (held != null) {
                long e = epoch;
                events.add(() -> tell(revoked, new Revocation(name(), e, Reason.LEFT)));
            }
        }
        if (held != null) {
            try {
                held.releaseIfHeld();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "releasing the leadership of " + name()
                        + " failed; the key expires within the watchdog timeout", e);
            }
        }
        drain();
    }

    private void release(LockLease l) {
        try {
            l.releaseIfHeldAsync().whenComplete((r, t) -> {
                if (t != null) {
                    LOG.log(System.Logger.Level.DEBUG, "releasing a lock of election " + name() + " failed", t);
                }
            });
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "releasing a lock of election " + name() + " failed", e);
        }
    }

    @Override
    public LeaderElection onGranted(Consumer<Leadership> listener) {
        granted.add(Objects.requireNonNull(listener, "listener must not be null"));
        return this;
    }

    @Override
    public LeaderElection onRevoked(Consumer<Revocation> listener) {
        revoked.add(Objects.requireNonNull(listener, "listener must not be null"));
        return this;
    }

    @Override
    public synchronized boolean isLeader() {
        return state == State.LEADER && lease.isValid();
    }

    @Override
    public synchronized OptionalLong epoch() {
        return isLeader() ? OptionalLong.of(epoch) : OptionalLong.empty();
    }

    @Override
    public Optional<LockInspection.Holder> currentLeader() {
        List<LockInspection.Holder> holders = inspect.apply(name()).holders();
        return holders.isEmpty() ? Optional.empty() : Optional.of(holders.get(0));
    }

    /**
     * @return whether every queued listener call has run, or the caller is the thread running them
     *     (a listener closing the client must not wait for itself)
     */
    boolean quiet() {
        return events.isEmpty() && !draining.get() || drainer == Thread.currentThread();
    }

    /** Runs the queued listener calls, one at a time, on a thread of the client. */
    private void drain() {
        if (events.isEmpty() || !draining.compareAndSet(false, true)) {
            return;
        }
        callbacks.accept(() -> {
            drainer = Thread.currentThread();
            try {
                Runnable r;
                while ((r = events.poll()) != null) {
                    r.run();
                }
            } finally {
                drainer = null;
                draining.set(false);
                drain(); // an event queued after the last poll, before the flag was cleared
            }
        });
    }

    private <T> void tell(List<Consumer<T>> listeners, T event) {
        for (Consumer<T> l : listeners) {
            try {
                l.accept(event);
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError) {
                    throw e;
                }
                LOG.log(System.Logger.Level.WARNING, "a listener of leader election " + name() + " threw", e);
            }
        }
    }
}
