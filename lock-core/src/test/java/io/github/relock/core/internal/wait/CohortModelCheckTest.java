package io.github.relock.core.internal.wait;

import io.github.relock.api.LockLostEvent;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.lock.Cohort;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.util.Args;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the cohort state (lock.Cohort, HoldRegistry.pass, Handoff's offers), as
 * {@link WaitModelCheckTest} does for the wait machine: Lincheck explores the interleavings of a
 * cohort pass (no Redis call) with what may race it: the waiter leaving, a loss found by renewal,
 * close(), and the anchor's own attempt. Checked: never two local owners (registered holds of the
 * lock, granted offers), no owner after a loss (the loss reaches whoever holds the lock by then),
 * no hold after close(), and an anchor never re-enters while another owner holds the run. The loss
 * scenario found a loss dropped between a pass removing the old hold and registering the new one
 * (HoldRegistry.pass and lose now meet Dekker-style on lostWhilePassing / passedTo).
 */
class CohortModelCheckTest {
    /**
     * Interleavings explored per scenario: 100 by default (about 2.5 s a scenario on a loaded 2-core
     * machine; the loss race below was found within the first hundred), or
     * {@code -Drelock.lincheck.invocations} (3000 for a thorough run).
     */
    private static final int INVOCATIONS = Integer.getInteger("relock.lincheck.invocations", 100);
    private static final String NAME = "a";
    private static final String LINE = Handoff.line("RedisLock", NAME);
    private static final String A = "client:1";
    private static final String B = "client:2";

    static {
        // Loss reports log through System.Logger: keep the logging machinery out of the model.
        java.util.logging.Logger.getLogger(HoldRegistry.class.getName()).setLevel(java.util.logging.Level.OFF);
        // Load and initialise every class the scenarios touch outside the model, so its executions are alike.
        Model warm = new Model();
        warm.pass();
        warm.holds.close();
        Model lost = new Model();
        lost.holds.notHeld(lost.anchor);
    }

    private static void modelCheck(Runnable scenario) {
        WaitModelCheckTest.modelCheck(INVOCATIONS, scenario);
    }

    /** A run of lock "a": A holds it (a transfer in Redis made it the anchor), B waits with an armed offer. */
    private static final class Model {
        final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        final HoldRegistry holds = new HoldRegistry(30_000, lost::add, Runnable::run);
        final Handoff handoff = new Handoff(16, TimeUnit.MILLISECONDS.toNanos(20));
        final Cohort cohort = new Cohort(64, TimeUnit.SECONDS.toNanos(60));
        final Hold anchor;
        final Handoff.Offer offer;

        Model() {
            anchor = holds.register(NAME, A, 1, NAME, Args.TTL_WATCHDOG, System.nanoTime(), Acquire.NO_TOKEN, null);
            cohort.opened(LINE, anchor);
            offer = handoff.post(LINE, 2, B, Args.TTL_WATCHDOG, () -> { });
            handoff.arm(offer);
        }

        String pass() {
            return cohort.passOn(holds, handoff, LINE, NAME, A);
        }

        /** @return the registered holds of the lock */
        int owners() {
            return (holds.get(NAME, A) != null ? 1 : 0) + (holds.get(NAME, B) != null ? 1 : 0);
        }
    }

    private static void run(Runnable... threads) {
        WaitModelCheckTest.run(threads);
    }

    private static void check(boolean ok, String what) {
        WaitModelCheckTest.check(ok, what);
    }

    /** The waiter leaves as the holder passes: one owner at most, and it is the waiter only if granted. */
    @Test
    void passAgainstWaiterLeaving_neverTwoOwners() {
        modelCheck(() -> {
            Model m = new Model();
            String[] outcome = new String[1];
            int[] left = new int[1];
            run(() -> outcome[0] = m.pass(), () -> {
                int s = m.handoff.leave(m.offer, false);
                while (s == Handoff.CLAIMED) { // the waiter waits for the claim's decision (one step here)
                    Thread.yield();
                    s = m.handoff.leave(m.offer, false);
                }
                left[0] = s;
            });
            check(m.owners() <= 1, "two local owners");
            if (outcome[0] == Cohort.PASSED) {
                check(left[0] == Handoff.GRANTED && m.holds.get(NAME, B) != null, "passed, but the waiter does not own it");
            } else if (outcome[0] == null) {
                check(m.holds.get(NAME, A) != null, "not passed, but the holder lost its hold");
            } else {
                check(m.owners() == 0 && A.equals(outcome[0]), "given back while " + m.owners() + " hold it");
            }
        });
    }

    /** A renewal's NOT_HELD for the anchor's hold races the pass: the loss reaches whoever holds it. */
    @Test
    void passAgainstLoss_theLossReachesTheCurrentOwner() {
        modelCheck(() -> {
            Model m = new Model();
            String[] outcome = new String[1];
            run(() -> outcome[0] = m.pass(), () -> m.holds.notHeld(m.anchor));
            check(m.owners() == 0, "an owner is left after the loss");
            check(m.lost.size() == 1, "the loss was reported " + m.lost.size() + " times");
            String to = m.lost.get(0).ownerId();
            check(to.equals(outcome[0] == Cohort.PASSED ? B : A), "the loss went to " + to + ", pass " + outcome[0]);
        });
    }

    /** close() races the pass: no hold is left, and a hold that moved is given back in Redis or reported. */
    @Test
    void passAgainstClose_noHoldAfterClose() {
        modelCheck(() -> {
            Model m = new Model();
            String[] outcome = new String[1];
            run(() -> outcome[0] = m.pass(), m.holds::close);
            check(m.holds.size() == 0, "a hold is left after close()");
            if (outcome[0] == Cohort.PASSED) {
                check(m.lost.size() == 1 && m.lost.get(0).ownerId().equals(B), "the new owner was not told of close()");
            }
        });
    }

    /**
     * The run passes on from B to C while the anchor A (which passed it to B) attempts: A is told
     * the lock is lent at every point of the pass, never let through to Redis, where its field
     * would re-enter the lock another owner holds.
     */
    @Test
    void anchorAttemptAgainstPassOn_neverReentersAnotherOwnersRun() {
        modelCheck(() -> {
            Model m = new Model();
            check(m.pass() == Cohort.PASSED, "the setup's pass to B");
            Handoff.Offer c = m.handoff.post(LINE, 3, "client:3", Args.TTL_WATCHDOG, () -> { });
            m.handoff.arm(c);
            boolean[] lent = new boolean[1];
            String[] outcome = new String[1];
            run(() -> outcome[0] = m.cohort.passOn(m.holds, m.handoff, LINE, NAME, B),
                    () -> lent[0] = m.cohort.lent(LINE, NAME, A, m.holds));
            check(outcome[0] == Cohort.PASSED, "B's pass to C: " + outcome[0]);
            check(lent[0], "the anchor was let through to Redis while the run was held by B or C");
        });
    }
}
