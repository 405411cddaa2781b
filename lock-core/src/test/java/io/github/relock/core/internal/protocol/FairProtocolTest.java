package io.github.relock.core.internal.protocol;

import static io.github.relock.core.internal.protocol.ReentrantProtocolTest.ONE_SERVER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.core.internal.util.Scripts;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fair lock's calls (see fair-acquire.lua, fair-release.lua and fair-acquire-failed.lua for KEYS and ARGV). */
class FairProtocolTest {
    private static final String QUEUE = "redisson_lock_queue:{orders}";
    private static final String TIMEOUTS = "redisson_lock_timeout:{orders}";
    private static final String CHANNEL = "redisson_lock__channel:{orders}";
    private final FairProtocol fair = new FairProtocol(ONE_SERVER, "orders", true);

    /** Asserts {@code now} is the client's wall clock when the call was built, between {@code before} and {@code after}. */
    private static void assertNow(String now, long before, long after) {
        long t = Long.parseLong(now);
        assertTrue(t >= before && t <= after, "now " + t + " outside [" + before + ", " + after + "]");
    }

    @Test
    void acquire_sendsTtlFieldWaitNowAttemptReentryAndResolveAtArgv7() {
        long before = System.currentTimeMillis();
        Call<Acquire> tryOnce = fair.acquire("c:1", 30_000, AttemptMode.TRY);
        Call<Acquire> queue = fair.acquire("c:1", 30_000, AttemptMode.QUEUE);
        Call<Acquire> resolve = fair.acquire("c:1", 30_000, AttemptMode.RESOLVE);
        long after = System.currentTimeMillis();

        assertEquals(Scripts.FAIR_ACQUIRE, queue.script());
        assertEquals(List.of("orders", QUEUE, TIMEOUTS), queue.keys());
        assertEquals(List.of("30000", "c:1", "300000", "try", "reentrant", ""), without(tryOnce.args(), 3));
        assertEquals(List.of("30000", "c:1", "300000", "queue", "reentrant", ""), without(queue.args(), 3));
        assertEquals(List.of("30000", "c:1", "300000", "queue", "reentrant", "resolve"), without(resolve.args(), 3));
        assertNow(queue.args().get(3), before, after);
    }

    private static List<String> without(List<String> args, int index) {
        List<String> rest = new ArrayList<>(args);
        rest.remove(index);
        return rest;
    }

    @Test
    void acquire_nonReentrant_sendsNonreentrantAndDecodesMinusThreeAsRefusal() {
        Call<Acquire> c = new FairProtocol(ONE_SERVER, "orders", false).acquire("c:1", 30_000, AttemptMode.QUEUE);

        assertEquals("nonreentrant", c.args().get(5));
        assertEquals(new Acquire.Refused(false), c.decode(-3L));
        assertEquals(new Acquire.Busy(0), c.decode(0L), "free, but another waiter goes first");
    }

    @Test
    void release_ordinary_sendsTtlFieldNowAndPublishMode() {
        long before = System.currentTimeMillis();
        Call<Release> c = fair.release("c:1", 30_000, null);
        long after = System.currentTimeMillis();

        assertEquals(Scripts.FAIR_RELEASE, c.script());
        assertEquals(List.of("orders", QUEUE, TIMEOUTS, CHANNEL), c.keys());
        assertEquals(4, c.args().size());
        assertEquals(List.of("30000", "c:1"), c.args().subList(0, 2));
        assertNow(c.args().get(2), before, after);
        assertEquals("PUBLISH", c.args().get(3));
    }

    @Test
    void release_withCandidate_addsWaitCandidateFieldAndItsTtl() {
        Call<Release> c = fair.release("c:1", 30_000, new Candidate("c:2", 15_000));

        assertEquals(List.of("300000", "c:2", "15000"), c.args().subList(4, 7));
        assertEquals(7, c.args().size());
        assertEquals(new Release.HandedOff(), c.decode(List.of(2L, 0L)));
        assertEquals(new Release.NotHeld(true), c.decode(List.of(-1L, 1L)));
    }

    @Test
    void giveUp_leavesTheQueueWithFieldWaitAndPublishMode() {
        Call<Void> c = fair.giveUp("c:1");

        assertEquals(Scripts.FAIR_ACQUIRE_FAILED, c.script());
        assertEquals(List.of(QUEUE, TIMEOUTS, "orders", CHANNEL), c.keys());
        assertEquals(List.of("c:1", "300000", "PUBLISH"), c.args());
        assertNull(c.decode(List.of(1L)));
    }

    @Test
    void forceRelease_sendsNowAndPublishMode() {
        Call<Boolean> c = fair.forceRelease();

        assertEquals(Scripts.FAIR_FORCE_RELEASE, c.script());
        assertEquals(List.of("orders", QUEUE, TIMEOUTS, CHANNEL), c.keys());
        assertEquals("PUBLISH", c.args().get(1));
        assertEquals(true, c.decode(1L));
    }

    @Test
    void waitChannel_isTheWaitersOwnChannel() {
        assertEquals(CHANNEL + ":c:1", fair.waitChannel("c:1"));
    }

    @Test
    void maxPollIntervalMs_isAThirdOfTheFairWaitAndAtLeastOne() {
        assertEquals(100_000, fair.maxPollIntervalMs());
        assertEquals(1, new FairProtocol(new ProtocolContext("PUBLISH", 2, 1, 1, 0), "orders", true).maxPollIntervalMs());
    }

    @Test
    void unlockOfFreeLockReturns_fair_isTrueAndHandsOffToQueueHeadOnItsOwnFamily() {
        FairProtocol nonReentrant = new FairProtocol(ONE_SERVER, "orders", false);

        assertTrue(fair.unlockOfFreeLockReturns());
        assertTrue(fair.handsOffToQueueHead());
        assertEquals("FairRedisLock", fair.handoffFamily());
        assertEquals("NonReentrantFairRedisLock", nonReentrant.handoffFamily());
        assertEquals(nonReentrant.kind(), nonReentrant.handoffFamily());
    }
}
