package io.github.relock.core.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.core.internal.protocol.ReentrantProtocol.Variant;
import io.github.relock.core.internal.util.Scripts;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The reentrant family's calls (see lock-acquire.lua, lock-release.lua and fenced-acquire.lua for KEYS and ARGV). */
class ReentrantProtocolTest {
    static final ProtocolContext ONE_SERVER = new ProtocolContext("PUBLISH", 300_000, 5, 100, 0);
    static final ProtocolContext SHARDED_CLUSTER = new ProtocolContext("BOTH", 300_000, 5, 100, 1);
    private static final String CHANNEL = "redisson_lock__channel:{orders}";

    private static ReentrantProtocol protocol(Variant variant) {
        return new ReentrantProtocol(ONE_SERVER, "orders", variant);
    }

    @Test
    void acquire_reentrant_sendsTtlFieldEmptyReentryFlagAndModeAtArgv4() {
        LockProtocol p = protocol(Variant.REENTRANT);

        Call<Acquire> tryOnce = p.acquire("c:1", 30_000, AttemptMode.TRY);
        Call<Acquire> queue = p.acquire("c:1", 30_000, AttemptMode.QUEUE);
        Call<Acquire> resolve = p.acquire("c:1", 30_000, AttemptMode.RESOLVE);

        assertEquals(Scripts.LOCK_ACQUIRE, tryOnce.script());
        assertEquals(List.of("orders"), tryOnce.keys());
        assertEquals(List.of("30000", "c:1", "", ""), tryOnce.args());
        assertEquals(List.of("30000", "c:1", "", ""), queue.args());
        assertEquals(List.of("30000", "c:1", "", "resolve"), resolve.args());
    }

    @Test
    void acquire_nonReentrant_sendsNonreentrantAndDecodesMinusThreeAsRefusal() {
        Call<Acquire> c = protocol(Variant.NON_REENTRANT).acquire("c:1", 10_000, AttemptMode.RESOLVE);

        assertEquals(List.of("10000", "c:1", "nonreentrant", "resolve"), c.args());
        assertEquals(new Acquire.Refused(false), c.decode(-3L));
    }

    @Test
    void acquire_fenced_usesTokenKeyAndModeAtArgv3() {
        LockProtocol p = protocol(Variant.FENCED);

        Call<Acquire> queue = p.acquire("c:1", 30_000, AttemptMode.QUEUE);
        Call<Acquire> resolve = p.acquire("c:1", 30_000, AttemptMode.RESOLVE);

        assertEquals(Scripts.FENCED_ACQUIRE, queue.script());
        assertEquals(List.of("orders", "redisson_lock_token:{orders}"), queue.keys());
        assertEquals("redisson_lock_token:{orders}", ReentrantProtocol.tokenKey("orders"));
        assertEquals(List.of("30000", "c:1", ""), queue.args());
        assertEquals(List.of("30000", "c:1", "resolve"), resolve.args());
        assertEquals(new Acquire.Acquired(7), queue.decode(List.of(1L, 7L)));
    }

    @Test
    void release_ordinary_sendsTtlFieldAndPublishMode() {
        Call<Release> c = protocol(Variant.REENTRANT).release("c:1", 30_000, null);

        assertEquals(Scripts.LOCK_RELEASE, c.script());
        assertEquals(List.of("orders", CHANNEL, "relock__waiters:{orders}", "relock__wake:{orders}"), c.keys());
        assertEquals(List.of("30000", "c:1", "PUBLISH"), c.args());
        assertEquals(new Release.Released(1), c.decode(List.of(1L, 1L)));
    }

    @Test
    void release_withCandidate_sendsItsFieldTtlAndOwnClassicAndShardedSubscriptions() {
        Candidate next = new Candidate("c:2", 15_000);

        Call<Release> oneServer = protocol(Variant.REENTRANT).release("c:1", 30_000, next);
        Call<Release> cluster = new ReentrantProtocol(SHARDED_CLUSTER, "orders", Variant.REENTRANT)
                .release("c:1", 30_000, next);

        assertEquals(List.of("30000", "c:1", "PUBLISH", "c:2", "15000", "1", "0"), oneServer.args());
        assertEquals(List.of("30000", "c:1", "BOTH", "c:2", "15000", "1", "1"), cluster.args());
        assertEquals(new Release.HandedOff(), oneServer.decode(List.of(2L, 0L)));
    }

    @Test
    void directedWakes_aWaitsAttemptRegistersTheClient_andAReleaseSaysWhetherItStillWaits() {
        int[] joined = {0};
        ProtocolContext ctx = new ProtocolContext("PUBLISH", 300_000, 5, 100, 0, key -> 1, "client-a", ch -> joined[0]);
        ReentrantProtocol p = new ReentrantProtocol(ctx, "orders", Variant.REENTRANT);

        assertEquals(List.of("30000", "c:1", "PUBLISH", "", "", "", "", "client-a", "0"), p.release("c:1", 30_000, null).args());
        assertEquals(List.of("orders"), p.acquire("c:1", 30_000, AttemptMode.QUEUE).keys(), "not listening yet");
        joined[0] = 1;
        assertEquals(List.of("orders"), p.acquire("c:1", 30_000, AttemptMode.TRY).keys());
        assertEquals(List.of("orders", "relock__waiters:{orders}"), p.acquire("c:1", 30_000, AttemptMode.QUEUE).keys());
        assertEquals(List.of("30000", "c:1", "", "", "client-a"), p.acquire("c:1", 30_000, AttemptMode.QUEUE).args());
        joined[0] = 2;
        assertEquals(List.of("30000", "c:1", "PUBLISH", "", "", "", "", "client-a", "1"), p.release("c:1", 30_000, null).args());
        assertEquals(List.of("30000", "c:1", "PUBLISH", "c:2", "15000", "1", "0", "client-a", "1"),
                p.release("c:1", 30_000, new Candidate("c:2", 15_000)).args());
        assertEquals("relock__wake:{orders}", p.wakeChannel());
        assertNull(new ReentrantProtocol(ctx, "orders", Variant.SPIN).wakeChannel());
        assertNull(new ReentrantProtocol(ctx, "orders", Variant.FENCED).wakeChannel());
    }

    @Test
    void spin_publishesNoneAndHasNoChannel() {
        LockProtocol p = protocol(Variant.SPIN);

        assertEquals(List.of("30000", "c:1", "NONE"), p.release("c:1", 30_000, null).args());
        assertEquals(List.of("NONE"), p.forceRelease().args());
        assertNull(p.waitChannel("c:1"));
        assertNull(p.handoffFamily());
    }

    @Test
    void backOffMs_spin_doublesFromInitialUpToMaxPlusAtMostATenth() {
        LockProtocol p = protocol(Variant.SPIN); // initial 5 ms, max 100 ms

        assertEquals(5, p.backOffMs(1));
        long second = p.backOffMs(2);
        assertTrue(second >= 10 && second <= 11, "second pause " + second);
        long capped = p.backOffMs(30);
        assertTrue(capped >= 100 && capped <= 110, "capped pause " + capped);
    }

    @Test
    void backOffMs_pubSubVariant_isNotAsked() {
        assertThrows(UnsupportedOperationException.class, () -> protocol(Variant.REENTRANT).backOffMs(1));
    }

    @Test
    void waitChannel_pubSubVariants_isTheLockChannel() {
        assertEquals(CHANNEL, protocol(Variant.REENTRANT).waitChannel("c:1"));
        assertEquals(CHANNEL, protocol(Variant.FENCED).waitChannel("c:1"));
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void handoffFamily_onlyReentrantAndNonReentrantHandOff(Variant variant) {
        String expected = switch (variant) {
            case REENTRANT -> "RedisLock";
            case NON_REENTRANT -> "NonReentrantRedisLock";
            case SPIN, FENCED -> null; // spin waiters post no offers; every fenced grant takes a token
        };

        assertEquals(expected, protocol(variant).handoffFamily());
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void family_undoesNothingOnGiveUpAndThrowsOnUnlockOfFreeLock(Variant variant) {
        LockProtocol p = protocol(variant);

        assertNull(p.giveUp("c:1"));
        assertFalse(p.unlockOfFreeLockReturns());
        assertFalse(p.handsOffToQueueHead());
        assertNull(p.timeoutKeyPrefix());
        assertEquals(Long.MAX_VALUE, p.maxPollIntervalMs());
        assertEquals("client:7", p.ownerField("client", 7));
    }

    @Test
    void forceExpireAndState_sendTheSharedScripts() {
        LockProtocol p = protocol(Variant.REENTRANT);

        Call<Boolean> force = p.forceRelease();
        Call<Boolean> expire = p.expire("c:1", 5_000);
        Call<LockState> state = p.state("c:1");

        assertEquals(Scripts.LOCK_FORCE_RELEASE, force.script());
        assertEquals(List.of("orders", CHANNEL, "relock__waiters:{orders}", "relock__wake:{orders}"), force.keys());
        assertEquals(List.of("PUBLISH"), force.args());
        assertEquals(Scripts.LOCK_EXPIRE, expire.script());
        assertEquals(List.of("orders"), expire.keys());
        assertEquals(List.of("5000", "c:1"), expire.args());
        assertEquals(Scripts.LOCK_STATE, state.script());
        assertEquals(List.of("c:1"), state.args());
        assertEquals(new LockState(true, 1, 100), state.decode(List.of(1L, 1L, 100L)));
    }

    @Test
    void refusal_namesKindLockAndOwner() {
        String message = protocol(Variant.NON_REENTRANT).refusal("c:1");

        assertTrue(message.startsWith("NonReentrantRedisLock 'orders' is already held by this owner (c:1)"), message);
    }
}
