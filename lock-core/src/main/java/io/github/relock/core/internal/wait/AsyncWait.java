package io.github.relock.core.internal.wait;

import io.github.relock.core.internal.protocol.Acquire;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The asynchronous runner of the wait machine ({@link Wait}): no thread waits. Attempts are sent
 * on the driver's async path, a park is a timer plus {@link #wake()}, and every event (a reply, a
 * wake-up, a timer, the caller leaving) is queued and run one at a time, on whichever thread
 * brought it, so the machine never sees two events at once.
 *
 * <p>The future handed to the caller is the one the wait watches: cancelling it (or
 * {@code orTimeout}, or closing the client) ends the wait at its next step; an attempt already
 * sent is awaited first (a fair attempt re-joins the queue, so leaving the queue must not overtake
 * it), and an acquisition that lands after the caller left is given back.
 *
 * <p>Thread-safety: one instance per call; safe for events from any thread.
 *
 * @param <T> the caller's value
 */
public final class AsyncWait<T> extends Wait {
    private final CompletableFuture<T> caller;
    private final Function<Boolean, T> outcome;
    private final ConcurrentLinkedQueue<Runnable> events = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pending = new AtomicInteger();
    // the runner's state, touched one event at a time
    private boolean parkedNow;
    private boolean subscribing;
    private boolean finishing;
    private boolean ended;
    /** The thread on which this wait completes its caller's future: a completion seen there is no caller leaving. */
    private volatile Thread completingOn;
    private int parkId;
    private WaitContext.Cancellable timer;

    /**
     * @param caller the future handed to the caller; completing it ends the wait
     * @param outcome maps "acquired?" to the caller's value; may throw (the future then fails)
     */
    public AsyncWait(WaitTarget target, WaitContext ctx, long waitMs, long ttlMs, long ownerId,
                     CompletableFuture<T> caller, Function<Boolean, T> outcome) {
        super(target, ctx, waitMs, ttlMs, ownerId);
        this.caller = caller;
        this.outcome = outcome;
    }

    /** Starts the wait; its result completes the caller's future. */
    public void begin() {
        CompletableFuture<Void> before = predecessor(); // asked first: our own record must not be our predecessor
        caller.whenComplete((v, t) -> {
            if (completingOn != Thread.currentThread()) { // not our own completion: the caller left
                callerLeaving();
            }
            submit(this::callerLeft);
        });
        if (before == null) {
            submit(() -> step(start()));
        } else {
            before.whenComplete((v, t) -> submit(() -> step(start()))); // the owner's previous wait is not over
        }
    }

    private void submit(Runnable event) {
        events.add(event);
        if (pending.getAndIncrement() != 0) {
            return; // the thread running events runs this one too
        }
        do {
            events.poll().run();
        } while (pending.decrementAndGet() != 0);
    }

    @Override
    void wake() {
        submit(this::woken);
    }

    private void step(Next next) {
        switch (next) {
            case ATTEMPT -> attempt();
            case SUBSCRIBE -> subscribe();
            case PARK -> park();
            case FINISH -> finish();
            default -> throw new IllegalStateException(String.valueOf(next));
        }
    }

    private void attempt() {
        sending();
        CompletableFuture<Acquire> sent;
        try {
            sent = target.attemptAsync(ttlMs, ownerId, mode);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((a, e) -> submit(() -> step(attempted(a, e))));
    }

    private void subscribe() {
        subscribing = true;
        WaitContext.Cancellable t = ctx.timer().schedule(() -> submit(() -> subscribeDone(null, true)),
                subscribeBudgetNanos());
        if (t == null) {
            subscribeDone(ctx.closedError(target.name()), false);
            return;
        }
        timer = t;
        entry.subscribed().whenComplete((s, e) -> submit(() -> subscribeDone(e, false)));
    }

    private void subscribeDone(Throwable failure, boolean timedOut) {
        if (!subscribing) {
            return; // the other of the two came first
        }
        subscribing = false;
        cancelTimer();
        step(subscribed(failure, timedOut));
    }

    private void park() {
        if (parkOnEntry && entry.parkOrTake(this, epochAtAttempt)) {
            messageWake = true; // a wake-up banked before we got here: ours to use, or to pass on
            step(finishing ? Next.FINISH : parked());
            return;
        }
        parkedNow = true;
        int id = ++parkId;
        WaitContext.Cancellable t = ctx.timer().schedule(() -> submit(() -> timedOut(id)), parkNanos);
        if (t == null) { // the client closed: its close() ends us
            error = error != null ? error : ctx.closedError(target.name());
            callerLeft = true;
            woken();
            return;
        }
        timer = t;
    }

    private void woken() {
        if (!parkedNow) {
            return; // not parked: whatever woke us is seen at the next step
        }
        parkedNow = false;
        cancelTimer();
        if (parkOnEntry) {
            entry.unpark(this);
        }
        step(finishing ? Next.FINISH : parked());
    }

    private void timedOut(int id) {
        if (id == parkId) {
            woken();
        }
    }

    private void cancelTimer() {
        WaitContext.Cancellable t = timer;
        timer = null;
        if (t != null) {
            t.cancel();
        }
    }

    /** The caller's future completed (cancel, orTimeout, close, or our own result). */
    private void callerLeft() {
        if (ended) {
            return;
        }
        callerLeft = true;
        if (subscribing) {
            subscribeDone(null, false);
        } else if (parkedNow) {
            woken(); // a step that sees callerLeft finishes
        } // an attempt in flight: its reply sees callerLeft
    }

    private void finish() {
        finishing = true;
        if (finishing() == Finish.SETTLE) {
            parkOnEntry = false;
            park(); // a claim in flight: its grant or withdrawal wakes us, at most twice the command timeout
            return;
        }
        ended = true;
        if (unwanted) {
            givingBack(target.giveBack(ownerId));
        }
        CompletableFuture<Void> left = needsGiveUp() ? target.giveUp(ownerId) : CompletableFuture.completedFuture(null);
        left.whenComplete((v, t) -> {
            done();
            complete();
            overForOwner();
        });
    }

    private void complete() {
        completingOn = Thread.currentThread();
        if (error != null) {
            caller.completeExceptionally(error);
            return;
        }
        if (caller.isDone()) {
            if (holds()) {
                givingBack(target.giveBack(ownerId)); // the caller left as we acquired
            }
            return;
        }
        T value;
        try {
            value = outcome.apply(holds());
        } catch (RuntimeException e) {
            if (holds()) {
                givingBack(target.giveBack(ownerId));
            }
            caller.completeExceptionally(e);
            return;
        }
        if (!caller.complete(value) && holds()) {
            givingBack(target.giveBack(ownerId)); // the caller left at the last moment
        }
    }
}
