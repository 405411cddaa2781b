package io.github.relock.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/** LockOptions: Redisson's defaults, checked setters with messages that say what was passed and what is allowed. */
class LockOptionsTest {

    @Test
    void defaults_matchRedissonAndTheDocumentedConstants() {
        LockOptions o = LockOptions.defaults();
        assertEquals(Duration.ofSeconds(30), o.lockWatchdogTimeout());
        assertEquals(LockOptions.DEFAULT_FAIR_LOCK_WAIT_TIMEOUT, o.fairLockWaitTimeout());
        assertEquals(LockOptions.DEFAULT_COMMAND_TIMEOUT, o.commandTimeout());
        assertEquals(LockOptions.DEFAULT_SUBSCRIPTION_TIMEOUT, o.subscriptionTimeout());
        assertEquals(LockOptions.DEFAULT_RENEWAL_BATCH_SIZE, o.renewalBatchSize());
        assertEquals(Optional.empty(), o.clientId(), "each client picks its own id unless one is set");
        assertEquals(Optional.empty(), o.lockLostExecutor());
    }

    @Test
    void durations_belowTheirMinimum_rejectedNamingOptionValueAndMinimum() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(10)));
        assertTrue(e.getMessage().contains("lockWatchdogTimeout") && e.getMessage().contains("30 ms")
                && e.getMessage().contains("10 ms"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().commandTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().subscriptionTimeout(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().fairLockWaitTimeout(Duration.ZERO));
        NullPointerException n = assertThrows(NullPointerException.class, () -> LockOptions.builder().commandTimeout(null));
        assertTrue(n.getMessage().contains("commandTimeout"), n.getMessage());
    }

    @Test
    void renewalBatchSize_outsideOneToThousand_rejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().renewalBatchSize(0));
        assertTrue(e.getMessage().contains("1..1000") && e.getMessage().contains("0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().renewalBatchSize(1001));
        assertEquals(1000, LockOptions.builder().renewalBatchSize(1000).build().renewalBatchSize());
    }

    @Test
    void clientId_blankOrWithColon_rejected_validOneKept() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().clientId("a:b"));
        assertTrue(e.getMessage().contains("a:b") && e.getMessage().contains("':'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().clientId(" "));
        assertThrows(NullPointerException.class, () -> LockOptions.builder().clientId(null));
        assertEquals(Optional.of("node-1"), LockOptions.builder().clientId("node-1").build().clientId());
    }

    @Test
    void toBuilder_roundTripsEveryOption() {
        Executor direct = Runnable::run;
        LockOptions o = LockOptions.builder().lockWatchdogTimeout(Duration.ofSeconds(9))
                .fairLockWaitTimeout(Duration.ofSeconds(8)).commandTimeout(Duration.ofSeconds(7))
                .subscriptionTimeout(Duration.ofSeconds(6)).renewalBatchSize(5).clientId("c")
                .lockLostExecutor(direct).build();
        LockOptions copy = o.toBuilder().build();
        assertEquals(o.toString(), copy.toString());
        assertSame(direct, copy.lockLostExecutor().orElseThrow());
        assertThrows(NullPointerException.class, () -> LockOptions.builder().lockLostExecutor(null));
    }
}
