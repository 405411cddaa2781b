package io.github.relock.core.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@code -Drelock.cohort}: on, off and default against a client's options; any other value refused by name. */
@ResourceLock("relock.cohort")
class CohortSettingTest {
    @AfterEach
    void clear() {
        System.clearProperty(Cohort.PROPERTY);
    }

    @Test
    void default_followsTheOptions() {
        assertFalse(Cohort.of(LockOptions.defaults()).enabled());
        assertTrue(Cohort.of(LockOptions.builder().cohort().build()).enabled());
    }

    @Test
    void on_turnsItOnForAClientWhoseOptionsSayOff_offTurnsItOff() {
        System.setProperty(Cohort.PROPERTY, " ON ");
        assertTrue(Cohort.of(LockOptions.defaults()).enabled());
        assertFalse(Cohort.of(LockOptions.builder().noLocalHandoff().build()).enabled(),
                "a run starts with a local hand-off: none without it");
        System.setProperty(Cohort.PROPERTY, "off");
        assertFalse(Cohort.of(LockOptions.builder().cohort().build()).enabled());
    }

    @Test
    void anyOtherValue_refusedNamingTheProperty() {
        System.setProperty(Cohort.PROPERTY, "sometimes");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Cohort.of(LockOptions.defaults()));
        assertEquals("-Drelock.cohort must be 'on', 'off' or 'default', was 'sometimes'", e.getMessage());
    }
}
