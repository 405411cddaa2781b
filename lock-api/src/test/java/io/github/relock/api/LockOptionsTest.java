package io.github.relock.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** LockOptions: Redisson's defaults, checked setters with messages that say what was passed and what is allowed. */
class LockOptionsTest {

    /** One Duration option: its name, its setter, its getter and the smallest value it accepts. */
    record DurationOption(String name, BiConsumer<LockOptions.Builder, Duration> setter,
            Function<LockOptions, Duration> getter, Duration min) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<DurationOption> durationOptions() {
        return Stream.of(
                new DurationOption("lockWatchdogTimeout", LockOptions.Builder::lockWatchdogTimeout,
                        LockOptions::lockWatchdogTimeout, Duration.ofMillis(30)),
                new DurationOption("fairLockWaitTimeout", LockOptions.Builder::fairLockWaitTimeout,
                        LockOptions::fairLockWaitTimeout, Duration.ofMillis(1)),
                new DurationOption("commandTimeout", LockOptions.Builder::commandTimeout,
                        LockOptions::commandTimeout, Duration.ofMillis(1)),
                new DurationOption("subscriptionTimeout", LockOptions.Builder::subscriptionTimeout,
                        LockOptions::subscriptionTimeout, Duration.ofMillis(1)));
    }

    private static void assertMessageHas(Throwable e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage() != null && e.getMessage().contains(part),
                    "message lacks '" + part + "': " + e.getMessage());
        }
    }

    @Test
    void defaults_everyOption_equalsItsDocumentedConstant() {
        LockOptions o = LockOptions.defaults();
        assertEquals(LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT, o.lockWatchdogTimeout());
        assertEquals(LockOptions.DEFAULT_FAIR_LOCK_WAIT_TIMEOUT, o.fairLockWaitTimeout());
        assertEquals(LockOptions.DEFAULT_COMMAND_TIMEOUT, o.commandTimeout());
        assertEquals(LockOptions.DEFAULT_SUBSCRIPTION_TIMEOUT, o.subscriptionTimeout());
        assertEquals(LockOptions.DEFAULT_RENEWAL_BATCH_SIZE, o.renewalBatchSize());
        assertEquals(Optional.empty(), o.clientId(), "each client picks its own id unless one is set");
        assertEquals(Optional.empty(), o.lockLostExecutor(), "callbacks run on the client's timer by default");
        assertEquals(o.toString(), LockOptions.builder().build().toString());
    }

    @Test
    void defaultConstants_matchRedissonsCode() {
        assertEquals(Duration.ofSeconds(30), LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT);
        assertEquals(Duration.ofSeconds(300), LockOptions.DEFAULT_FAIR_LOCK_WAIT_TIMEOUT);
        assertEquals(Duration.ofSeconds(3), LockOptions.DEFAULT_COMMAND_TIMEOUT);
        assertEquals(Duration.ofMillis(7500), LockOptions.DEFAULT_SUBSCRIPTION_TIMEOUT);
    }

    @Test
    void defaultRenewalBatchSize_isFiveHundred_notRedissonsHundred() {
        // Larger than Redisson's 100 on purpose: 10,000 held locks cost 20 scripts per period, not 100.
        assertEquals(500, LockOptions.DEFAULT_RENEWAL_BATCH_SIZE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationOptions")
    void durationSetter_belowMinimum_rejectedNamingOptionValueAndMinimum(DurationOption option) {
        Duration tooSmall = option.min().minusMillis(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> option.setter().accept(LockOptions.builder(), tooSmall));
        assertMessageHas(e, option.name(), "at least " + option.min().toMillis() + " ms",
                "was " + tooSmall.toMillis() + " ms");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationOptions")
    void durationSetter_zeroOrNegative_rejectedNamingTheValue(DurationOption option) {
        assertMessageHas(assertThrows(IllegalArgumentException.class,
                () -> option.setter().accept(LockOptions.builder(), Duration.ZERO)), option.name(), "was 0 ms");
        assertMessageHas(assertThrows(IllegalArgumentException.class,
                () -> option.setter().accept(LockOptions.builder(), Duration.ofSeconds(-5))), option.name(), "was -5000 ms");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationOptions")
    void durationSetter_subMillisecond_messageShowsTheDurationPassed_notZeroMs(DurationOption option) {
        Duration half = Duration.ofNanos(500_000);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> option.setter().accept(LockOptions.builder(), half));
        assertMessageHas(e, option.name(), "was " + half);
        assertFalse(e.getMessage().contains("was 0 ms"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationOptions")
    void durationSetter_hugeNegative_illegalArgumentNotArithmeticOverflow(DurationOption option) {
        Duration hugeNegative = Duration.ofSeconds(Long.MIN_VALUE);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> option.setter().accept(LockOptions.builder(), hugeNegative));
        assertMessageHas(e, option.name(), "was " + hugeNegative);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationOptions")
    void durationSetter_null_nullPointerNamingTheOption(DurationOption option) {
        NullPointerException e = assertThrows(NullPointerException.class,
                () -> option.setter().accept(LockOptions.builder(), null));
        assertMessageHas(e, option.name(), "null");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationOptions")
    void durationSetter_atMinimum_acceptedAndBuilt(DurationOption option) {
        LockOptions.Builder b = LockOptions.builder();
        option.setter().accept(b, option.min());
        assertEquals(option.min(), option.getter().apply(b.build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durationOptions")
    void durationSetter_rejectedValue_leavesTheBuilderUnchanged(DurationOption option) {
        LockOptions.Builder b = LockOptions.builder();
        Duration kept = option.min().plusSeconds(7);
        option.setter().accept(b, kept);
        assertThrows(IllegalArgumentException.class, () -> option.setter().accept(b, Duration.ZERO));
        assertEquals(kept, option.getter().apply(b.build()));
    }

    @Test
    void renewalBatchSize_outsideOneToThousand_rejectedNamingOptionValueAndRange() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().renewalBatchSize(0)),
                "renewalBatchSize", "1..1000", "was 0");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().renewalBatchSize(1001)),
                "renewalBatchSize", "1..1000", "was 1001");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().renewalBatchSize(-1)),
                "renewalBatchSize", "was -1");
    }

    @Test
    void renewalBatchSize_boundsOneAndThousand_accepted() {
        assertEquals(1, LockOptions.builder().renewalBatchSize(1).build().renewalBatchSize());
        assertEquals(1000, LockOptions.builder().renewalBatchSize(1000).build().renewalBatchSize());
    }

    @Test
    void clientId_withColon_rejectedNamingOptionValueAndRule() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().clientId("a:b")),
                "clientId", "'a:b'", "':'");
    }

    @Test
    void clientId_emptyOrBlank_rejectedNamingOptionValueAndRule() {
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().clientId("")),
                "clientId", "non-blank", "was ''");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().clientId(" \t")),
                "clientId", "non-blank", "was ' \t'");
    }

    @Test
    void clientId_null_nullPointerNamingTheOption() {
        assertMessageHas(assertThrows(NullPointerException.class, () -> LockOptions.builder().clientId(null)),
                "clientId", "null");
    }

    @Test
    void clientId_unset_isEmpty_setIsPresent() {
        assertEquals(Optional.empty(), LockOptions.builder().build().clientId());
        assertEquals(Optional.of("node-1"), LockOptions.builder().clientId("node-1").build().clientId());
        assertTrue(LockOptions.defaults().toString().contains("clientId=(random per client)"),
                LockOptions.defaults().toString());
    }

    @Test
    void lockLostExecutor_setIsPresentAsTheSameInstance() {
        Executor direct = Runnable::run;
        assertSame(direct, LockOptions.builder().lockLostExecutor(direct).build().lockLostExecutor().orElseThrow());
    }

    @Test
    void lockLostExecutor_null_nullPointerNamingTheOption() {
        assertMessageHas(assertThrows(NullPointerException.class, () -> LockOptions.builder().lockLostExecutor(null)),
                "lockLostExecutor", "null");
    }

    @Test
    void toBuilder_everyOptionSet_roundTripsEveryOption() {
        Executor direct = Runnable::run;
        LockOptions o = LockOptions.builder().lockWatchdogTimeout(Duration.ofSeconds(9))
                .fairLockWaitTimeout(Duration.ofSeconds(8)).commandTimeout(Duration.ofSeconds(7))
                .subscriptionTimeout(Duration.ofSeconds(6)).renewalBatchSize(5).clientId("c")
                .lockLostExecutor(direct).build();
        LockOptions copy = o.toBuilder().build();
        assertEquals(Duration.ofSeconds(9), copy.lockWatchdogTimeout());
        assertEquals(Duration.ofSeconds(8), copy.fairLockWaitTimeout());
        assertEquals(Duration.ofSeconds(7), copy.commandTimeout());
        assertEquals(Duration.ofSeconds(6), copy.subscriptionTimeout());
        assertEquals(5, copy.renewalBatchSize());
        assertEquals(Optional.of("c"), copy.clientId());
        assertSame(direct, copy.lockLostExecutor().orElseThrow());
        assertEquals(o.toString(), copy.toString());
    }

    @Test
    void toBuilder_defaults_keepsClientIdAndExecutorUnset() {
        LockOptions copy = LockOptions.defaults().toBuilder().build();
        assertEquals(Optional.empty(), copy.clientId());
        assertEquals(Optional.empty(), copy.lockLostExecutor());
    }

    @Test
    void toBuilder_changedCopy_leavesTheOriginalUnchanged() {
        LockOptions original = LockOptions.builder().clientId("a").commandTimeout(Duration.ofSeconds(1)).build();
        LockOptions changed = original.toBuilder().clientId("b").commandTimeout(Duration.ofSeconds(2)).build();
        assertEquals(Optional.of("a"), original.clientId());
        assertEquals(Duration.ofSeconds(1), original.commandTimeout());
        assertEquals(Optional.of("b"), changed.clientId());
        assertEquals(Duration.ofSeconds(2), changed.commandTimeout());
    }

    @Test
    void spinBackOff_defaultsToRedissons_1msDoublingTo128ms_andSurvivesToBuilder() {
        LockOptions d = LockOptions.defaults();
        assertEquals(Duration.ofMillis(1), d.spinBackOffInitial());
        assertEquals(Duration.ofMillis(128), d.spinBackOffMax());
        LockOptions set = LockOptions.builder().spinBackOff(Duration.ofMillis(5), Duration.ofMillis(50)).build();
        LockOptions copy = set.toBuilder().build();
        assertEquals(Duration.ofMillis(5), copy.spinBackOffInitial());
        assertEquals(Duration.ofMillis(50), copy.spinBackOffMax());
    }

    @Test
    void spinBackOff_outOfRange_refusedNamingTheValue() {
        LockOptions.Builder b = LockOptions.builder();
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> b.spinBackOff(Duration.ZERO, Duration.ofMillis(10)));
        assertTrue(zero.getMessage().contains("spinBackOff initial") && zero.getMessage().contains("0 ms"), zero.getMessage());
        IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                () -> b.spinBackOff(Duration.ofMillis(1), Duration.ofHours(1)));
        assertTrue(huge.getMessage().contains("3600000 ms"), huge.getMessage());
        IllegalArgumentException inverted = assertThrows(IllegalArgumentException.class,
                () -> b.spinBackOff(Duration.ofMillis(20), Duration.ofMillis(10)));
        assertTrue(inverted.getMessage().contains("20 ms > 10 ms"), inverted.getMessage());
        assertThrows(NullPointerException.class, () -> b.spinBackOff(null, Duration.ofMillis(10)));
    }

    @Test
    void localHandoff_onByDefault_16Or20ms_andSurvivesToBuilder() {
        LockOptions d = LockOptions.defaults();
        assertTrue(d.localHandoffEnabled());
        assertEquals(16, d.localHandoffMaxConsecutive());
        assertEquals(Duration.ofMillis(20), d.localHandoffMaxRun());
        LockOptions set = LockOptions.builder().localHandoff(64, Duration.ofMillis(50)).build();
        assertEquals(64, set.toBuilder().build().localHandoffMaxConsecutive());
        assertEquals(Duration.ofMillis(50), set.toBuilder().build().localHandoffMaxRun());
        LockOptions off = LockOptions.builder().noLocalHandoff().build();
        assertFalse(off.localHandoffEnabled());
        assertEquals(0, off.toBuilder().build().localHandoffMaxConsecutive());
        assertTrue(off.toString().contains("localHandoff=off"), off.toString());
    }

    @Test
    void localHandoff_outOfRange_refusedNamingTheValue() {
        LockOptions.Builder b = LockOptions.builder();
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.localHandoff(0, Duration.ofMillis(20))),
                "localHandoff maxConsecutive must be 1..10000", "was 0");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.localHandoff(10_001, Duration.ofMillis(20))),
                "was 10001");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.localHandoff(4, Duration.ZERO)),
                "localHandoff maxRun must be at least 1 ms", "was 0 ms");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.localHandoff(4, Duration.ofMinutes(2))),
                "at most 60000 ms", "was 120000 ms");
        assertThrows(NullPointerException.class, () -> b.localHandoff(4, null));
    }

    @Test
    void cohort_offByDefault_64Or10msWhenOn_andSurvivesToBuilder() {
        LockOptions d = LockOptions.defaults();
        assertFalse(d.cohortEnabled());
        assertEquals(0, d.cohortMaxPasses());
        LockOptions on = LockOptions.builder().cohort().build();
        assertTrue(on.cohortEnabled());
        assertEquals(64, on.cohortMaxPasses());
        assertEquals(Duration.ofMillis(10), on.cohortMaxRun());
        LockOptions set = LockOptions.builder().cohort(256, Duration.ofMillis(30)).build().toBuilder().build();
        assertEquals(256, set.cohortMaxPasses());
        assertEquals(Duration.ofMillis(30), set.cohortMaxRun());
        assertTrue(set.toString().contains("cohort=256 within PT0.03S"), set.toString());
        assertFalse(set.toBuilder().noCohort().build().cohortEnabled());
    }

    @Test
    void cohort_outOfRange_refusedNamingTheValue() {
        LockOptions.Builder b = LockOptions.builder();
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.cohort(0, Duration.ofMillis(10))),
                "cohort maxPasses must be 1..10000", "was 0");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.cohort(10_001, Duration.ofMillis(10))),
                "was 10001");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.cohort(4, Duration.ZERO)),
                "cohort maxRun must be at least 1 ms", "was 0 ms");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.cohort(4, Duration.ofMinutes(2))),
                "at most 60000 ms", "was 120000 ms");
        assertThrows(NullPointerException.class, () -> b.cohort(4, null));
    }

    @Test
    void replicaSync_byDefaultWaitsForTheConnectedReplicasWithinOneSecond_offWhenTurnedOff() {
        LockOptions o = LockOptions.defaults();
        assertTrue(o.replicaSyncEnabled());
        assertTrue(o.replicaSyncConnected());
        assertEquals(0, o.replicaSyncReplicas());
        assertEquals(Optional.of(Duration.ofSeconds(1)), o.replicaSyncTimeout());
        assertTrue(o.toString().contains("replicaSync=connected replica(s) within PT1S"), o.toString());
        LockOptions off = o.toBuilder().noReplicaSync().build();
        assertFalse(off.replicaSyncEnabled());
        assertFalse(off.replicaSyncConnected());
        assertEquals(Optional.empty(), off.replicaSyncTimeout());
        assertTrue(off.toString().contains("replicaSync=off"), off.toString());
        LockOptions slower = off.toBuilder().replicaSync(Duration.ofMillis(300)).build();
        assertTrue(slower.replicaSyncConnected());
        assertEquals(Optional.of(Duration.ofMillis(300)), slower.replicaSyncTimeout());
        assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().replicaSync(Duration.ZERO));
    }

    @Test
    void replicaSync_set_readBackKeptByToBuilderAndShownInToString() {
        LockOptions o = LockOptions.builder().replicaSync(2, Duration.ofMillis(250)).build();
        assertTrue(o.replicaSyncEnabled());
        assertEquals(2, o.replicaSyncReplicas());
        assertEquals(Optional.of(Duration.ofMillis(250)), o.replicaSyncTimeout());
        LockOptions copy = o.toBuilder().build();
        assertEquals(2, copy.replicaSyncReplicas());
        assertEquals(Optional.of(Duration.ofMillis(250)), copy.replicaSyncTimeout());
        assertTrue(o.toString().contains("replicaSync=2"), o.toString());
        assertFalse(o.replicaSyncConnected(), "a pinned count is not the connected replicas");
        assertFalse(o.toBuilder().noReplicaSync().build().replicaSyncEnabled());
    }

    @Test
    void replicaSync_boundsOneReplicaAndOneMsToOneMinute_accepted() {
        assertEquals(1, LockOptions.builder().replicaSync(1, Duration.ofMillis(1)).build().replicaSyncReplicas());
        assertEquals(Optional.of(Duration.ofMinutes(1)),
                LockOptions.builder().replicaSync(1, Duration.ofMinutes(1)).build().replicaSyncTimeout());
    }

    @Test
    void replicaSync_badValues_refusedNamingWhatWasPassedAndWhatIsAllowed() {
        LockOptions.Builder b = LockOptions.builder();
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.replicaSync(0, Duration.ofSeconds(1))),
                "replicaSync replicas", "at least 1", "was 0");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.replicaSync(-3, Duration.ofSeconds(1))),
                "was -3");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.replicaSync(1, Duration.ZERO)),
                "replicaSync timeout", "at least 1 ms", "was 0 ms");
        assertMessageHas(assertThrows(IllegalArgumentException.class, () -> b.replicaSync(1, Duration.ofMillis(60_001))),
                "replicaSync timeout", "at most 60000 ms", "was 60001 ms");
        assertThrows(NullPointerException.class, () -> b.replicaSync(1, null));
        assertTrue(b.build().replicaSyncConnected(), "a refused value leaves the builder unchanged");
    }

    @Test
    void nameMapper_defaultsToIdentity_prefixMapsAndUnmaps_keptByToBuilder() {
        assertSame(NameMapper.identity(), LockOptions.defaults().nameMapper());
        assertFalse(LockOptions.defaults().toString().contains("nameMapper"), "the default is not shown");
        NameMapper prefix = NameMapper.prefix("app1:");
        assertEquals("app1:orders", prefix.map("orders"));
        assertEquals("orders", prefix.unmap("app1:orders"));
        assertEquals("other", prefix.unmap("other"), "a name without the prefix is left as it is");
        LockOptions options = LockOptions.builder().nameMapper(prefix).build();
        assertSame(prefix, options.toBuilder().build().nameMapper());
        assertTrue(options.toString().contains("nameMapper=NameMapper.prefix(\"app1:\")"), options::toString);
        NameMapper lambda = name -> name;
        assertEquals("x", lambda.unmap("x"), "unmap defaults to the identity");
    }

    @Test
    void eventListener_defaultsToNoop_isKeptByToBuilder_andNullIsRejected() {
        assertSame(LockEventListener.NOOP, LockOptions.defaults().eventListener());
        LockEventListener listener = new LockEventListener() { };
        LockOptions o = LockOptions.builder().eventListener(listener).build();
        assertSame(listener, o.eventListener());
        assertSame(listener, o.toBuilder().build().eventListener());
        NullPointerException e = assertThrows(NullPointerException.class,
                () -> LockOptions.builder().eventListener(null));
        assertTrue(e.getMessage().contains("NOOP"), e.getMessage());
    }

    @Test
    void ownerInfo_offByDefault_keptByToBuilder_clearedByNoOwnerInfo_nullRejected() {
        assertEquals(Optional.empty(), LockOptions.defaults().ownerInfo());
        OwnerInfo me = new OwnerInfo("pod-7", "billing", "42", "2.4.1");
        LockOptions o = LockOptions.builder().ownerInfo(me).build();
        assertEquals(Optional.of(me), o.ownerInfo());
        assertEquals(Optional.of(me), o.toBuilder().build().ownerInfo());
        assertTrue(o.toString().contains("billing"), o.toString());
        assertEquals(Optional.empty(), o.toBuilder().noOwnerInfo().build().ownerInfo());
        NullPointerException e = assertThrows(NullPointerException.class, () -> LockOptions.builder().ownerInfo(null));
        assertTrue(e.getMessage().contains("noOwnerInfo"), e.getMessage());
    }

    @Test
    void ownerInfo_of_takesHostAndProcessIdFromThisJvm_partsAreCheckedNamingThePart() {
        OwnerInfo mine = OwnerInfo.of("billing", "2.4.1");
        assertEquals(Long.toString(ProcessHandle.current().pid()), mine.instance());
        assertEquals("billing", mine.application());
        assertTrue(mine.host().length() <= OwnerInfo.MAX_LENGTH);
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> new OwnerInfo("", "", "", "v".repeat(OwnerInfo.MAX_LENGTH + 1)));
        assertTrue(tooLong.getMessage().contains("version"), tooLong.getMessage());
        NullPointerException none = assertThrows(NullPointerException.class, () -> new OwnerInfo(null, "", "", ""));
        assertTrue(none.getMessage().contains("host"), none.getMessage());
    }
}
