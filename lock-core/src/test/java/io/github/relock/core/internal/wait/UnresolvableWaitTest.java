package io.github.relock.core.internal.wait;

import static io.github.relock.core.internal.wait.WaitFixture.await;
import static io.github.relock.core.internal.wait.WaitFixture.onThread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.protocol.Candidate;
import io.github.relock.core.internal.protocol.LockProtocol;
import io.github.relock.core.internal.protocol.LockState;
import io.github.relock.core.internal.protocol.Release;
import io.github.relock.core.internal.protocol.ReentrantProtocol;
import io.github.relock.core.internal.util.Args;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A wait whose attempts cannot be resolved after a lost reply (a semaphore's: its permits carry no
 * owner, so a second attempt could take them twice) fails with the lost reply's error instead of
 * retrying in RESOLVE mode; a resolvable one (a lock's) retries, as before.
 */
class UnresolvableWaitTest {
    private final WaitFixture f = new WaitFixture(false, 2_000, 1_000);

    /** The reentrant protocol, but its lost replies cannot be resolved. */
    private static final class Unresolvable implements LockProtocol {
        private final LockProtocol p = new ReentrantProtocol(WaitFixture.PROTOCOLS, "sem", ReentrantProtocol.Variant.REENTRANT);

        @Override
        public String kind() {
            return "Semaphore";
        }

        @Override
        public String name() {
            return p.name();
        }

        @Override
        public String waitChannel(String field) {
            return p.waitChannel(field);
        }

        @Override
        public long maxPollIntervalMs() {
            return p.maxPollIntervalMs();
        }

        @Override
        public boolean resolvesLostReplies() {
            return false;
        }

        @Override
        public Call<Acquire> acquire(String field, long ttlMs, AttemptMode mode) {
            return p.acquire(field, ttlMs, mode);
        }

        @Override
        public Call<Release> release(String field, long ttlMs, Candidate transferTo) {
            return p.release(field, ttlMs, transferTo);
        }

        @Override
        public Call<Boolean> forceRelease() {
            return p.forceRelease();
        }

        @Override
        public Call<Boolean> expire(String field, long ttlMs) {
            return p.expire(field, ttlMs);
        }

        @Override
        public Call<LockState> state(String field) {
            return p.state(field);
        }
    }

    private CompletableFuture<Boolean> waitOnThread(FakeLock lock) {
        return onThread("waiter", () -> new BlockingWait(lock, f.ctx, Args.WAIT_FOREVER, Args.TTL_WATCHDOG, 1, true).run());
    }

    @Test
    void lostReplyAfterTheFirstAttempt_unresolvable_failsWithIt_neverRetries() throws Exception {
        FakeLock sem = new FakeLock(new Unresolvable(), WaitFixture.CLIENT);
        sem.holdBy("other:1");
        CompletableFuture<Boolean> w = waitOnThread(sem);
        await(() -> f.parked(sem, 1), () -> "the waiter never parked");
        sem.free();
        sem.runThenLoseReply = true; // the permits are taken, and the reply never comes
        f.publish(sem, "0");
        ExecutionException e = assertThrows(ExecutionException.class, () -> w.get(10, TimeUnit.SECONDS));
        assertInstanceOf(RedisUnavailableException.class, e.getCause());
        assertEquals(List.of(AttemptMode.QUEUE, AttemptMode.QUEUE, AttemptMode.QUEUE), sem.attempts,
                "no attempt after the lost reply: a blind retry could take the permits twice");
        await(() -> f.waiters.waiting() == 0 && f.waiters.activeChannels() == 0, () -> "the waiter did not leave");
    }

    @Test
    void lostReplyAfterTheFirstAttempt_resolvable_retriesInResolveMode() throws Exception {
        FakeLock lock = f.reentrant("a");
        lock.holdBy("other:1");
        CompletableFuture<Boolean> w = waitOnThread(lock);
        await(() -> f.parked(lock, 1), () -> "the waiter never parked");
        lock.free();
        lock.runThenLoseReply = true;
        f.publish(lock, "0");
        assertTrue(w.get(10, TimeUnit.SECONDS));
        assertEquals(AttemptMode.RESOLVE, lock.attempts.get(lock.attempts.size() - 1));
    }
}
