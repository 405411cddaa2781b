package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedCountDownLatch;
import io.github.relock.api.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 26: the count-down latch ({@code LockClient.getCountDownLatch}, Redisson's
 * RCountDownLatch). The count is the key {@code name}; the last count-down deletes it and
 * publishes "0" on <code>redisson_countdownlatch__channel__&#123;name&#125;</code>. The rules prove
 * the count's life (set once, counted down, gone at zero, set again), that the last count-down
 * releases every awaiter of every client (blocked and asynchronous), that a timed await answers
 * false and a cancelled one leaves nothing, and that closing the client fails its awaiters.
 *
 * <p>When a rule fails: for the key, compare with sync spec 4 and {@code scripts/sync/latch-*};
 * for an awaiter never released, at the latch's message wake-up ({@code SyncPolicy.LATCH}) and
 * its poll bound.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("synchronizers")
public abstract class CountDownLatchChapter extends SynchronizerChapter {

    /** @param kit the enclosing kit */
    protected CountDownLatchChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * Rule 26.1: the count is set once, counted down, deleted at zero, and can then be set again.
     * When it fails: trySetCount must set only a missing key; the count-down that reaches zero must
     * delete the key and publish.
     */
    @Test
    void rule26_1_count_setOnce_goneAtZero_setAgain() throws Exception {
        DistributedCountDownLatch l = client().getCountDownLatch("tck:latch:ops");
        assertEquals(0, l.getCount());
        assertTrue(l.await(0, TimeUnit.SECONDS), "an unset latch is open");
        assertTrue(l.trySetCount(2));
        assertFalse(l.trySetCount(5));
        assertEquals("2", redis("GET", "tck:latch:ops"));
        assertEquals(-1L, pttl("tck:latch:ops"), "no TTL, as Redisson");
        l.countDown();
        assertEquals(1, l.getCount());
        assertFalse(l.await(50, TimeUnit.MILLISECONDS));
        l.countDownAsync().get(30, TimeUnit.SECONDS);
        assertEquals(0L, redis("EXISTS", "tck:latch:ops"), "the key goes at zero");
        l.countDown();
        assertEquals(0L, redis("EXISTS", "tck:latch:ops"), "counting down an open latch leaves nothing");
        assertTrue(l.trySetCountAsync(1).get(30, TimeUnit.SECONDS));
        assertTrue(l.delete());
        assertFalse(l.delete());
        assertThrows(IllegalArgumentException.class, () -> l.trySetCount(0));
    }

    /**
     * Rule 26.2: awaiters of two clients, blocked and asynchronous, are all released by the last
     * count-down, made by a third client.
     * When it fails: the zero count-down publishes on the latch's channel; every awaiter of every
     * client must re-read the count when woken (look at the latch's message-wake policy: wake all,
     * not one).
     */
    @Test
    void rule26_2_lastCountDown_releasesEveryAwaiterOfEveryClient() throws Exception {
        String name = "tck:latch:wake";
        LockClient a = client();
        LockClient b = client();
        a.getCountDownLatch(name).trySetCount(2);
        List<Future<Boolean>> blocked = new ArrayList<>();
        for (LockClient c : List.of(a, b)) {
            for (int i = 0; i < 2; i++) {
                blocked.add(background(() -> c.getCountDownLatch(name).await(60, TimeUnit.SECONDS)));
            }
        }
        CompletableFuture<Void> async = b.getCountDownLatch(name).awaitAsync();
        awaitWaiting(a, 2);
        awaitWaiting(b, 3);
        DistributedCountDownLatch third = client().getCountDownLatch(name);
        third.countDown();
        assertFalse(async.isDone(), "released before the count reached zero");
        third.countDown();
        for (Future<Boolean> f : blocked) {
            assertTrue(f.get(SOON.toSeconds(), TimeUnit.SECONDS));
        }
        async.get(SOON.toSeconds(), TimeUnit.SECONDS);
        awaitIdle(a, b);
    }

    /**
     * Rule 26.3: a cancelled asynchronous awaiter and a timed-out one leave nothing; closing the
     * client fails its awaiters with IllegalStateException.
     * When it fails: an awaiter that gives up must leave the latch's channel; close() must fail
     * pending awaits with IllegalStateException before it returns.
     */
    @Test
    void rule26_3_cancelTimeoutClose_leaveNothing() throws Exception {
        String name = "tck:latch:cancel";
        LockClient a = client();
        DistributedCountDownLatch l = a.getCountDownLatch(name);
        l.trySetCount(1);
        CompletableFuture<Void> cancelled = l.awaitAsync();
        awaitWaiting(a, 1);
        cancelled.cancel(false);
        assertThrows(CancellationException.class, () -> cancelled.get(1, TimeUnit.SECONDS));
        assertFalse(l.awaitAsync(100, TimeUnit.MILLISECONDS).get(30, TimeUnit.SECONDS));
        awaitIdle(a);
        Future<Boolean> blocked = background(() -> l.await(60, TimeUnit.SECONDS));
        awaitWaiting(a, 1);
        a.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> blocked.get(30, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(1, client().getCountDownLatch(name).getCount());
        client().getCountDownLatch(name).delete();
    }

    /**
     * Rule 26.5: {@code isExists} (Redisson's, from {@code RObject}) tells a latch with a count from
     * an open one: false before {@code trySetCount}, true while counting, false once the last
     * count-down opened it or it was deleted; the async form answers the same.
     * When it fails: isExists reads the count key's existence (PTTL -2 when missing); the zero
     * count-down must delete the key.
     */
    @Test
    void rule26_5_isExists_whileCounting_notWhenOpen() throws Exception {
        DistributedCountDownLatch l = client().getCountDownLatch("tck:latch:exists");
        assertFalse(l.isExists(), "an unset latch does not exist");
        assertTrue(l.trySetCount(2));
        assertTrue(l.isExists());
        l.countDown();
        assertTrue(l.isExistsAsync().get(30, TimeUnit.SECONDS), "still counting");
        l.countDown();
        assertFalse(l.isExists(), "open at zero: the key is gone");
        assertTrue(l.trySetCount(1));
        assertTrue(l.delete());
        assertFalse(l.isExistsAsync().get(30, TimeUnit.SECONDS));
    }
}
