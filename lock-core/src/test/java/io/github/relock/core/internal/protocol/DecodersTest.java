package io.github.relock.core.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockException;
import io.github.relock.core.internal.util.Scripts;
import io.github.relock.spi.Script;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Each reply shape's reader: what every legal reply means, and that any other names the script and the lock. */
class DecodersTest {
    private static final String LOCK = "orders";

    /** Asserts {@code reply} is refused as malformed, with a message naming the script and the lock. */
    static void assertMalformed(Call.Decoder<?> decoder, Object reply, Script script) {
        LockException e = assertThrows(LockException.class, () -> decoder.decode(reply), () -> "accepted " + reply);
        assertTrue(e.getMessage().contains(script.name() + " of lock '" + LOCK + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("expected"), e.getMessage());
    }

    // ---------------------------------------------------------------- acquire: nil / TTL / -3

    @Test
    void acquire_nil_isAcquiredWithoutToken() {
        Acquire a = Decoders.acquire(Scripts.LOCK_ACQUIRE, LOCK, false).decode(null);

        assertSame(Acquire.ACQUIRED, a);
        assertEquals(Acquire.NO_TOKEN, ((Acquire.Acquired) a).token());
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, 0, 1, 29_999})
    void acquire_ttlOfMinusOneOrMore_isBusyWithThatTtl(long ttl) {
        assertEquals(new Acquire.Busy(ttl), Decoders.acquire(Scripts.LOCK_ACQUIRE, LOCK, false).decode(ttl));
    }

    @Test
    void acquire_minusThree_isRefusedAsUpgradeOnlyWhenDecoderSaysSo() {
        assertEquals(new Acquire.Refused(false), Decoders.acquire(Scripts.LOCK_ACQUIRE, LOCK, false).decode(-3L));
        assertEquals(new Acquire.Refused(true), Decoders.acquire(Scripts.WRITE_ACQUIRE, LOCK, true).decode(-3L));
    }

    @ParameterizedTest
    @MethodSource("malformedAcquireReplies")
    void acquire_malformedReply_throwsNamingScriptAndLock(Object reply) {
        assertMalformed(Decoders.acquire(Scripts.LOCK_ACQUIRE, LOCK, false), reply, Scripts.LOCK_ACQUIRE);
    }

    static Stream<Object> malformedAcquireReplies() {
        return Stream.of(-2L, -4L, Long.MIN_VALUE, "OK", 1.5d, List.of(1L));
    }

    // ---------------------------------------------------------------- fenced acquire: {1, token} / {0, pttl}

    @Test
    void fencedAcquire_oneAndToken_isAcquiredWithThatToken() {
        assertEquals(new Acquire.Acquired(42), Decoders.fencedAcquire(Scripts.FENCED_ACQUIRE, LOCK).decode(List.of(1L, 42L)));
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, 0, 5_000})
    void fencedAcquire_zeroAndPttl_isBusyWithThatTtl(long pttl) {
        assertEquals(new Acquire.Busy(pttl), Decoders.fencedAcquire(Scripts.FENCED_ACQUIRE, LOCK).decode(List.of(0L, pttl)));
    }

    @ParameterizedTest
    @MethodSource("malformedPairs")
    void fencedAcquire_malformedReply_throwsNamingScriptAndLock(Object reply) {
        assertMalformed(Decoders.fencedAcquire(Scripts.FENCED_ACQUIRE, LOCK), reply, Scripts.FENCED_ACQUIRE);
    }

    static Stream<Object> malformedPairs() {
        return Stream.of(List.of(0L, -2L), List.of(2L, 1L), List.of(1L), List.of(1L, 2L, 3L),
                Arrays.asList(1L, null), List.of("1", "2"), 1L, "OK");
    }

    // ---------------------------------------------------------------- release: {code, n}

    static Stream<Arguments> releaseReplies() {
        return Stream.of(
                Arguments.of(List.of(1L, 3L), new Release.Released(3)),
                Arguments.of(List.of(1L, 0L), new Release.Released(0)),
                Arguments.of(List.of(0L, 0L), Release.STILL_HELD),
                Arguments.of(List.of(-1L, 0L), new Release.NotHeld(true)),
                Arguments.of(List.of(-1L, 2L), new Release.NotHeld(true)), // the fair release wakes the head all the same
                Arguments.of(List.of(-2L, 0L), new Release.NotHeld(false)),
                Arguments.of(List.of(2L, 0L), new Release.HandedOff()));
    }

    @ParameterizedTest
    @MethodSource("releaseReplies")
    void release_eachCode_decodesToItsOutcome(List<Long> reply, Release expected) {
        assertEquals(expected, Decoders.release(Scripts.LOCK_RELEASE, LOCK).decode(reply));
    }

    @ParameterizedTest
    @MethodSource("malformedReleaseReplies")
    void release_malformedReply_throwsNamingScriptAndLock(Object reply) {
        assertMalformed(Decoders.release(Scripts.FAIR_RELEASE, LOCK), reply, Scripts.FAIR_RELEASE);
    }

    static Stream<Object> malformedReleaseReplies() {
        return Stream.of(List.of(3L, 0L), List.of(-3L, 0L), List.of(1L), List.of(1L, "0"), 1L, "OK", List.of());
    }

    @Test
    void release_codeBeyondIntRange_throwsNamingScriptAndLock() {
        assertMalformed(Decoders.release(Scripts.LOCK_RELEASE, LOCK), List.of((1L << 32) + 1, 0L), Scripts.LOCK_RELEASE);
    }

    @Test
    void release_nullReply_throwsNamingScriptAndLock() {
        assertMalformed(Decoders.release(Scripts.LOCK_RELEASE, LOCK), null, Scripts.LOCK_RELEASE);
    }

    // ---------------------------------------------------------------- state, flag, ignored

    @Test
    void state_threeIntegers_isExistsCountAndPttl() {
        Call.Decoder<LockState> d = Decoders.state(Scripts.LOCK_STATE, LOCK);

        assertEquals(new LockState(true, 2, 29_000), d.decode(List.of(1L, 2L, 29_000L)));
        assertEquals(new LockState(false, 0, -2), d.decode(List.of(0L, 0L, -2L)));
    }

    @Test
    void state_malformedReply_throwsNamingScriptAndLock() {
        Call.Decoder<LockState> d = Decoders.state(Scripts.RW_STATE, LOCK);
        for (Object reply : List.of(List.of(1L, 2L), List.of(1L, "2", 3L), (Object) 1L)) {
            assertMalformed(d, reply, Scripts.RW_STATE);
        }
    }

    @Test
    void flag_oneOrZero_isTrueOrFalse() {
        Call.Decoder<Boolean> d = Decoders.flag(Scripts.LOCK_EXPIRE, LOCK);

        assertEquals(true, d.decode(1L));
        assertEquals(false, d.decode(0L));
    }

    @ParameterizedTest
    @MethodSource("malformedFlags")
    void flag_malformedReply_throwsNamingScriptAndLock(Object reply) {
        assertMalformed(Decoders.flag(Scripts.LOCK_FORCE_RELEASE, LOCK), reply, Scripts.LOCK_FORCE_RELEASE);
    }

    static Stream<Object> malformedFlags() {
        return Stream.of(2L, -1L, "1", List.of(1L));
    }

    @Test
    void ignored_anyReply_decodesToNull() {
        assertNull(Decoders.ignored().decode(List.of(1L)));
        assertNull(Decoders.ignored().decode(null));
    }

    @Test
    void withMode_appendsResolveOnlyInResolveMode() {
        assertEquals(List.of("a", "b", "resolve"), Decoders.withMode(AttemptMode.RESOLVE, "a", "b"));
        assertEquals(List.of("a", "b", ""), Decoders.withMode(AttemptMode.QUEUE, "a", "b"));
        assertEquals(List.of("a", ""), Decoders.withMode(AttemptMode.TRY, "a"));
    }
}
