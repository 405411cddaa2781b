package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The history checker's overlap rule, on recorded histories: a holder stops relying on the lock
 * when it starts to release it, not when its release call returns.
 */
class HistoryTest {

    @Test
    void grantAfterTheHolderBeganReleasing_beforeItsCallReturned_isAHandOffNotAnOverlap() {
        History h = new History();
        h.record("A", History.Op.GRANT, "l", 1, "");
        h.record("A", History.Op.RELEASING, "l", -1, "");
        h.record("B", History.Op.GRANT, "l", 2, ""); // woken by A's release before A's call returned
        h.record("A", History.Op.RELEASE, "l", -1, "ok");
        h.record("B", History.Op.RELEASING, "l", -1, "");
        h.record("B", History.Op.RELEASE, "l", -1, "ok");
        assertEquals(0, h.check(null).overlaps());
    }

    @Test
    void grantBeforeTheHolderBeganReleasing_isAnOverlap() {
        History h = new History();
        h.record("A", History.Op.GRANT, "l", 1, "");
        h.record("B", History.Op.GRANT, "l", 2, "");
        h.record("A", History.Op.RELEASING, "l", -1, "");
        h.record("A", History.Op.RELEASE, "l", -1, "ok");
        assertEquals(1, h.check(null).overlaps());
    }
}
