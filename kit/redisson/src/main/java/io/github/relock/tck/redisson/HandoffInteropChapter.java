package io.github.relock.tck.redisson;

import io.github.relock.api.LockOptions;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.LocalHandoffChapter;
import io.github.relock.tck.TckChapter;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Chapter 20, with Redisson: relock's local hand-off ({@code LockOptions.localHandoff}) never
 * starves a Redisson waiter, on the reentrant lock (bounded runs) or the fair lock (only the queue
 * head is handed to). Its relock clients turn replica acknowledgement off, as hand-off is off on
 * a node whose lock writes wait for replicas.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("redisson-interop")
@Tag("local-handoff")
public abstract class HandoffInteropChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected HandoffInteropChapter(DriverKit kit) {
        super(kit);
    }

    private RedissonClient redisson() {
        return RedissonConfigs.clientFor(kit, Duration.ofSeconds(30));
    }

    /**
     * Rule 20.9: while three relock threads of one client take the lock back to back (every
     * release could hand off), a Redisson waiter acquires it again and again.
     * When it fails: relock's runs of hand-offs must leave room for a Redisson waiter: check the
     * run bound and the hold-back after a run.
     */
    @Test
    void rule20_9_redissonWaiter_isNotStarvedByLocalHandoffs() throws Exception {
        RedissonConfigs.assumeRelockHearsRedissonUnlocks(kit); // the local threads wait for its unlocks
        var relock = kit.newLockClient(LockOptions.builder().noReplicaSync().localHandoff(4, Duration.ofMillis(20)).build());
        LocalHandoffChapter.assertOutsiderProgresses(relock.getLock("tck:handoff-redisson"),
                redisson().getLock("tck:handoff-redisson"));
    }

    /**
     * Rule 20.10: the same with the fair lock and default options: a Redisson waiter in the queue
     * gets its turn, as the fair lock hands off only to the head of the queue.
     * When it fails: the fair lock hands off only to its queue's head, so a Redisson waiter at the
     * head must get its turn.
     */
    @Test
    void rule20_10_redissonFairWaiter_getsItsTurnBetweenLocalHandoffs() throws Exception {
        RedissonConfigs.assumeRelockHearsRedissonUnlocks(kit);
        LocalHandoffChapter.assertOutsiderProgresses(
                kit.newLockClient(LockOptions.builder().noReplicaSync().build()).getFairLock("tck:handoff-redisson-fair"),
                redisson().getFairLock("tck:handoff-redisson-fair"));
    }
}
