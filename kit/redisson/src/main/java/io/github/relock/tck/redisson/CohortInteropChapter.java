package io.github.relock.tck.redisson;

import io.github.relock.api.LockOptions;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.LocalHandoffChapter;
import io.github.relock.tck.TckChapter;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 33, with Redisson: relock's cohort hand-off ({@code LockOptions.cohort}) never starves a
 * Redisson waiter: a run of passes with no Redis call ends within its bound with an unlock in
 * Redis, which publishes when a Redisson waiter listens.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("redisson-interop")
@Tag("cohort")
public abstract class CohortInteropChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected CohortInteropChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 33.8: while three threads of a relock client with cohorts on take the lock back to back
     * (every unlock could pass it on with no Redis call), a Redisson 4.7.0 waiter acquires it again
     * and again.
     * When it fails: a run must end within its bound (passes, time) with an unlock in Redis that
     * reads the outsider signal again; a Redisson waiter's subscription is that signal.
     */
    @Test
    void rule33_8_redissonWaiter_grantedWhileCohortRunsGoOn() throws Exception {
        RedissonConfigs.assumeRelockHearsRedissonUnlocks(kit); // the local threads wait for its unlocks
        var relock = kit.newLockClient(LockOptions.builder().noReplicaSync().cohort(8, Duration.ofMillis(5)).build());
        LocalHandoffChapter.assertOutsiderProgresses(relock.getLock("tck:cohort-redisson"),
                RedissonConfigs.clientFor(kit, Duration.ofSeconds(30)).getLock("tck:cohort-redisson"));
    }
}
