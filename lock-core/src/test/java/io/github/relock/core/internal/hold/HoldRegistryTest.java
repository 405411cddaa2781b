package io.github.relock.core.internal.hold;

import static io.github.relock.core.internal.hold.RegistryFixture.WATCHDOG_MS;
import static io.github.relock.core.internal.hold.RegistryFixture.ago;
import static io.github.relock.core.internal.hold.RegistryFixture.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockLostEvent.Reason;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.util.Args;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The registry of holds: counts, releases, losses and how each is reported (see HoldRegistry's design comment). */
class HoldRegistryTest {
    private final RegistryFixture f = new RegistryFixture();
    private final HoldRegistry registry = f.registry;

    // ---------------------------------------------------------------- register

    @Test
    void register_newKeyAndField_createsHoldWithCountOne() {
        Hold h = registry.register("orders", "c:1", 1, "orders-name", 5_000, ago(0), 42, "{orders}");

        assertEquals(1, h.count);
        assertEquals("orders", h.key());
        assertEquals("c:1", h.field());
        assertEquals("orders-name", h.lockName());
        assertEquals(42, h.token());
        assertEquals("{orders}", h.timeoutKeyPrefix());
        assertFalse(h.watchdog());
        assertTrue(h.valid());
        assertSame(h, registry.get("orders", "c:1"));
        assertEquals(1, registry.size());
    }

    @Test
    void register_sameOwnerAgain_countsReentryAndKeepsFirstAcquisitionTime() {
        Hold first = f.watchdog("orders", "c:1", 5_000);
        long acquired = first.acquiredNanos();

        Hold again = f.watchdog("orders", "c:1");

        assertSame(first, again);
        assertEquals(2, again.count);
        assertEquals(acquired, again.acquiredNanos());
        assertEquals(1, registry.size());
    }

    @Test
    void register_afterHoldWasLost_startsFreshHoldAtCountOne() {
        Hold lost = f.watchdog("orders", "c:1");
        f.watchdog("orders", "c:1");
        registry.notHeld(lost);

        Hold fresh = f.watchdog("orders", "c:1");

        assertNotSame(lost, fresh);
        assertEquals(1, fresh.count);
        assertFalse(fresh.lost());
        assertTrue(lost.lost());
    }

    @Test
    void register_fieldEqualToLastRegistrations_sharesItsString() {
        Hold a = f.watchdog("a", new String("client:7"));
        Hold b = f.watchdog("b", new String("client:7"));

        assertSame(a.field(), b.field());
    }

    // ---------------------------------------------------------------- releases

    @Test
    void released_stillHeldAboveLastLocalCount_decrementsAndClearsReleasing() {
        Hold h = f.watchdog("orders", "c:1");
        f.watchdog("orders", "c:1");
        registry.beginRelease("orders", "c:1");

        registry.released("orders", "c:1", true);

        assertSame(h, registry.get("orders", "c:1"));
        assertEquals(1, h.count);
        assertFalse(h.releasing());
        assertTrue(registry.lastHold("orders", "c:1"));
    }

    @Test
    void twoReleasesInFlight_theFirstAnswersStillHeld_aRenewalMissBeforeTheSecondAnswersIsNoLoss() {
        Hold h = f.watchdog("orders", "c:1");
        f.watchdog("orders", "c:1");
        registry.beginRelease("orders", "c:1"); // two async unlocks of one owner, sent back to back
        registry.beginRelease("orders", "c:1");

        registry.released("orders", "c:1", true); // the first answers: one count left
        registry.notHeld(h); // a renewal found the key gone: the second release ran, its reply is on its way

        assertTrue(f.reasons().isEmpty(), "an unlock is still in flight: the miss is no loss");
        assertSame(h, registry.get("orders", "c:1"));
        registry.released("orders", "c:1", false);
        assertNull(registry.get("orders", "c:1"));
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void released_stillHeldAtLastLocalCount_dropsHoldWithoutReport() {
        Hold h = f.watchdog("orders", "c:1");

        registry.released("orders", "c:1", true); // Redis counted one more than the client knows of: it warns

        assertNull(registry.get("orders", "c:1"), "no longer renewed: the stray count expires on its own");
        assertFalse(h.lost());
        assertTrue(f.reasons().isEmpty(), "not a loss: the application released it");
    }

    @Test
    void unregister_undoesOneRegistrationOnly_keepingTheOwnersOwnCount() {
        Hold own = f.watchdog("orders", "c:1"); // the owner's own acquisition
        f.watchdog("orders", "c:1"); // a releaser's registration for it, refused

        registry.unregister("orders", "c:1");

        assertSame(own, registry.get("orders", "c:1"));
        assertEquals(1, own.count);
        registry.unregister("orders", "c:1");
        assertNull(registry.get("orders", "c:1"), "none left: removed");
        assertTrue(f.reasons().isEmpty(), "not a loss");
    }

    @Test
    void released_notStillHeld_dropsHoldWhateverItsCount() {
        f.watchdog("orders", "c:1");
        f.watchdog("orders", "c:1");

        registry.released("orders", "c:1", false);

        assertNull(registry.get("orders", "c:1"));
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void releaseFailed_countAboveOne_keepsHoldAtOneLess() {
        Hold h = f.watchdog("orders", "c:1");
        f.watchdog("orders", "c:1");
        registry.beginRelease("orders", "c:1");

        registry.releaseFailed("orders", "c:1");

        assertSame(h, registry.get("orders", "c:1"));
        assertEquals(1, h.count);
        assertFalse(h.releasing());
    }

    @Test
    void releaseFailed_lastCount_dropsHoldWithoutReport() {
        f.watchdog("orders", "c:1");
        registry.beginRelease("orders", "c:1");

        registry.releaseFailed("orders", "c:1");

        assertNull(registry.get("orders", "c:1"));
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void releaseNotSent_afterBeginRelease_keepsHoldUnchangedAndNoLongerReleasing() {
        Hold h = f.watchdog("orders", "c:1");
        registry.beginRelease("orders", "c:1");
        assertTrue(h.releasing());

        registry.releaseNotSent("orders", "c:1");

        assertSame(h, registry.get("orders", "c:1"));
        assertEquals(1, h.count);
        assertFalse(h.releasing());
    }

    @Test
    void beginRelease_answersTtlTheKeyKeepsAndMarksReleasing() {
        Hold watchdog = f.watchdog("a", "c:1");
        Hold explicit = f.explicit("b", "c:1", 7_000, 0);

        assertEquals(WATCHDOG_MS, registry.beginRelease("a", "c:1"));
        assertEquals(7_000, registry.beginRelease("b", "c:1"));
        assertEquals(WATCHDOG_MS, registry.beginRelease("unknown", "c:1"));
        assertTrue(watchdog.releasing());
        assertTrue(explicit.releasing());
    }

    // ---------------------------------------------------------------- not held

    @Test
    void notHeld_notReporting_dropsHoldQuietly() {
        Hold h = f.watchdog("orders", "c:1");

        registry.notHeld("orders", "c:1", false);

        assertNull(registry.get("orders", "c:1"));
        assertTrue(f.reasons().isEmpty());
        assertFalse(h.lost());
    }

    @Test
    void notHeld_reportingExplicitLeasePastItsEnd_reportsLeaseExpired() {
        Hold h = f.explicit("orders", "c:1", 1_000, 5_000);

        registry.notHeld("orders", "c:1", true);

        assertNull(registry.get("orders", "c:1"));
        assertEquals(List.of(Reason.LEASE_EXPIRED), f.reasons());
        assertEquals(Reason.LEASE_EXPIRED, h.lostReason());
    }

    @Test
    void notHeld_reportingHoldStillBelievedValid_reportsNotHeld() {
        f.watchdog("a", "c:1");
        f.explicit("b", "c:1", 60_000, 0);

        registry.notHeld("a", "c:1", true);
        registry.notHeld("b", "c:1", true);

        assertEquals(List.of(Reason.NOT_HELD, Reason.NOT_HELD), f.reasons());
        assertEquals(new LockLostEvent("a", "c:1", 1, Reason.NOT_HELD), f.lost.get(0));
    }

    @Test
    void notHeld_unknownHold_doesNothing() {
        registry.notHeld("orders", "c:1", true);

        assertTrue(f.reasons().isEmpty());
        assertEquals(0, registry.size());
    }

    @Test
    void notHeldHold_whileReleasing_isNoLoss() {
        Hold h = f.watchdog("orders", "c:1");
        registry.beginRelease("orders", "c:1");

        registry.notHeld(h);

        assertSame(h, registry.get("orders", "c:1"));
        assertTrue(f.reasons().isEmpty());
    }

    // ---------------------------------------------------------------- the watchdog's questions

    @Test
    void dueForRenewal_mixedHolds_returnsWatchdogHoldsAndReportsExpiredLeases() {
        Hold renewed = f.watchdog("a", "c:1");
        f.explicit("b", "c:1", 60_000, 0);
        Hold expired = f.explicit("c", "c:1", 1_000, 5_000);

        List<Hold> due = registry.dueForRenewal();

        assertEquals(List.of(renewed), due);
        assertEquals(List.of(Reason.LEASE_EXPIRED), f.reasons());
        assertEquals("c", f.lost.get(0).lockName());
        assertTrue(expired.lost());
        assertNotNull(registry.get("b", "c:1"));
    }

    @Test
    void dueForRenewal_expiredLeaseBeingReleased_isNotReported() {
        f.explicit("orders", "c:1", 1_000, 5_000);
        registry.beginRelease("orders", "c:1");

        assertTrue(registry.dueForRenewal().isEmpty());
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void sweepUnconfirmed_beforeNineTenthsOfWatchdog_keepsHoldAndAnswersItsDeadline() {
        long sentAt = System.nanoTime();
        registry.register("orders", "c:1", 1, "orders", Args.TTL_WATCHDOG, sentAt, Acquire.NO_TOKEN, null);

        long deadline = registry.sweepUnconfirmed(sentAt + ms(27_000) - 1);

        assertEquals(sentAt + ms(27_000), deadline);
        assertNotNull(registry.get("orders", "c:1"));
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void sweepUnconfirmed_atNineTenthsOfWatchdog_reportsRenewalFailed() {
        long sentAt = System.nanoTime();
        registry.register("orders", "c:1", 1, "orders", Args.TTL_WATCHDOG, sentAt, Acquire.NO_TOKEN, null);

        long next = registry.sweepUnconfirmed(sentAt + ms(27_000));

        assertEquals(Long.MAX_VALUE, next);
        assertNull(registry.get("orders", "c:1"));
        assertEquals(List.of(Reason.RENEWAL_FAILED), f.reasons());
    }

    @Test
    void sweepUnconfirmed_explicitAndReleasingHolds_areLeftAlone() {
        f.explicit("a", "c:1", 60_000, 0);
        f.watchdog("b", "c:1");
        registry.beginRelease("b", "c:1");

        long next = registry.sweepUnconfirmed(System.nanoTime() + ms(10 * WATCHDOG_MS));

        assertEquals(Long.MAX_VALUE, next);
        assertEquals(2, registry.size());
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void renewed_movesConfirmationDeadlineToRenewalSendTime() {
        long sentAt = System.nanoTime();
        Hold h = registry.register("orders", "c:1", 1, "orders", Args.TTL_WATCHDOG, sentAt, Acquire.NO_TOKEN, null);
        long renewedAt = sentAt + ms(20_000);

        registry.renewed(h, renewedAt);

        assertEquals(renewedAt + ms(27_000), registry.sweepUnconfirmed(sentAt + ms(27_000)));
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void renewedShort_twiceInARow_reportsRenewalFailed() {
        Hold h = f.watchdog("orders", "c:1");

        registry.renewedShort(h);
        assertTrue(f.reasons().isEmpty(), "one renewal short of replicas is retried next period");
        registry.renewedShort(h);

        assertEquals(List.of(Reason.RENEWAL_FAILED), f.reasons());
    }

    @Test
    void renewedShort_thenFullyAcknowledgedRenewal_startsCountingAgain() {
        Hold h = f.watchdog("orders", "c:1");

        registry.renewedShort(h);
        registry.renewed(h, System.nanoTime());
        registry.renewedShort(h);

        assertSame(h, registry.get("orders", "c:1"));
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void renewalFailed_onlyOnceItsDeadlinePassed_reportsRenewalFailed() {
        long sentAt = System.nanoTime();
        Hold h = registry.register("orders", "c:1", 1, "orders", Args.TTL_WATCHDOG, sentAt, Acquire.NO_TOKEN, null);

        registry.renewalFailed(h, sentAt + ms(26_999));
        assertTrue(f.reasons().isEmpty());
        registry.renewalFailed(h, sentAt + ms(27_000));

        assertEquals(List.of(Reason.RENEWAL_FAILED), f.reasons());
    }

    // ---------------------------------------------------------------- TTL changes

    @Test
    void beginTtlChange_watchdogHoldToShorterTtl_becomesExplicitEndingAtNewEnd() {
        Hold h = f.watchdog("orders", "c:1");
        long sentAt = System.nanoTime();

        assertTrue(registry.beginTtlChange(h, 10_000, sentAt, false));

        assertFalse(h.watchdog());
        assertEquals(10_000, h.ttlMs);
        assertEquals(sentAt + ms(10_000), h.expiresAtNanos);
        assertFalse(h.releasing());
        assertFalse(registry.dueForRenewal().contains(h), "no longer renewed");
    }

    @Test
    void beginTtlChange_longerThanCurrentEnd_keepsCurrentEndUntilScriptConfirms() {
        long acquiredAt = System.nanoTime();
        Hold h = registry.register("orders", "c:1", 1, "orders", Args.TTL_WATCHDOG, acquiredAt, Acquire.NO_TOKEN, null);

        assertTrue(registry.beginTtlChange(h, 3_600_000, acquiredAt, false));

        assertEquals(acquiredAt + ms(27_000), h.expiresAtNanos, "the watchdog's confirmation deadline");
        registry.ttlChanged("orders", "c:1", 3_600_000, acquiredAt);
        assertEquals(acquiredAt + ms(3_600_000), h.expiresAtNanos);
    }

    @Test
    void beginTtlChange_ending_marksReleasingSoAMissIsNoLoss() {
        Hold h = f.watchdog("orders", "c:1");

        assertTrue(registry.beginTtlChange(h, 10_000, System.nanoTime(), true));
        registry.notHeld(h);

        assertTrue(h.releasing());
        assertTrue(f.reasons().isEmpty());
    }

    @Test
    void beginTtlChange_lostOrReplacedHold_answersFalseAndChangesNothing() {
        Hold lost = f.watchdog("orders", "c:1");
        registry.notHeld(lost);
        Hold current = f.watchdog("orders", "c:1");

        assertFalse(registry.beginTtlChange(lost, 10_000, System.nanoTime(), false));

        assertTrue(current.watchdog());
    }

    @Test
    void ttlChanged_movesExplicitHoldsEndButNotAWatchdogHolds() {
        Hold explicit = f.explicit("a", "c:1", 60_000, 0);
        Hold watchdog = f.watchdog("b", "c:1");
        long sentAt = System.nanoTime();

        registry.ttlChanged("a", "c:1", 5_000, sentAt);
        registry.ttlChanged("b", "c:1", 5_000, sentAt);

        assertEquals(sentAt + ms(5_000), explicit.expiresAtNanos);
        assertEquals(5_000, explicit.ttlMs);
        assertTrue(watchdog.watchdog());
    }

    @Test
    void forget_dropsHoldWithoutReportingIt() {
        Hold h = f.watchdog("orders", "c:1");

        registry.forget(h);

        assertNull(registry.get("orders", "c:1"));
        assertFalse(h.lost());
        assertTrue(f.reasons().isEmpty());
    }

    // ---------------------------------------------------------------- questions of the lock layer

    @Test
    void remainingMs_answersWatchdogTimeoutLeaseLeftOrMinusOne() {
        f.watchdog("a", "c:1");
        f.explicit("b", "c:1", 60_000, 0);
        f.explicit("c", "c:1", 1_000, 5_000);

        assertEquals(WATCHDOG_MS, registry.remainingMs("a", "c:1"));
        long left = registry.remainingMs("b", "c:1");
        assertTrue(left >= 0 && left <= 60_000, "left " + left);
        assertEquals(-1, registry.remainingMs("c", "c:1"), "past its lease");
        assertEquals(-1, registry.remainingMs("d", "c:1"), "never held");
    }

    @Test
    void lastHold_trueOnlyWhenOneAcquisitionIsLeft() {
        assertFalse(registry.lastHold("orders", "c:1"));
        f.watchdog("orders", "c:1");
        assertTrue(registry.lastHold("orders", "c:1"));
        f.watchdog("orders", "c:1");
        assertFalse(registry.lastHold("orders", "c:1"));
    }

    @Test
    void forceReleased_losesEveryHoldOfThatKeyOnly() {
        f.watchdog("a", "c:1");
        f.watchdog("a", "c:2");
        f.watchdog("b", "c:1");

        registry.forceReleased("a");

        assertEquals(List.of(Reason.NOT_HELD, Reason.NOT_HELD), f.reasons());
        assertNotNull(registry.get("b", "c:1"));
        assertEquals(1, registry.size());
    }

    // ---------------------------------------------------------------- close and reports

    @Test
    void close_reportsEachValidHoldClientClosedOnceOnTheClosingThread() {
        f.watchdog("a", "c:1");
        f.explicit("b", "c:1", 60_000, 0);
        f.explicit("c", "c:1", 1_000, 5_000); // already past its lease: not held, nothing to report
        List<Thread> threads = new ArrayList<>();
        f.watchdog("a", "c:1").addLostCallback(e -> threads.add(Thread.currentThread()));

        registry.close();
        registry.close();

        assertTrue(f.queued.isEmpty(), "close() does not go through the callback runner");
        assertEquals(List.of(Reason.CLIENT_CLOSED, Reason.CLIENT_CLOSED), f.lost.stream().map(LockLostEvent::reason).toList());
        assertEquals(List.of(Thread.currentThread()), threads);
        assertEquals(0, registry.size());
    }

    @Test
    void close_whileTheOnlyAcquisitionIsGivenBack_reportsNothing() {
        f.watchdog("a", "c:1");
        registry.givingBack("a", "c:1");

        registry.close();

        assertEquals(List.of(), f.lost, "nobody held it: its caller had left before it landed");
        assertEquals(0, registry.size());
    }

    @Test
    void givingBack_oneOfTwoAcquisitions_theOwnersLossIsStillReported() {
        f.watchdog("a", "c:1");
        f.watchdog("a", "c:1"); // the owner's own hold, and a late one its caller left
        registry.givingBack("a", "c:1");

        registry.close();

        assertEquals(List.of(Reason.CLIENT_CLOSED), f.lost.stream().map(LockLostEvent::reason).toList());
    }

    @Test
    void register_afterAGiveBackStarted_makesItAnOwnersHoldAgain() {
        f.watchdog("a", "c:1");
        registry.givingBack("a", "c:1");
        f.watchdog("a", "c:1"); // the same owner acquires again before the give-back answered

        registry.close();

        assertEquals(List.of(Reason.CLIENT_CLOSED), f.lost.stream().map(LockLostEvent::reason).toList());
    }

    @Test
    void loss_takenByAnOnLostCallback_isLoggedAtDebugNotAsWarning() {
        List<java.util.logging.Level> levels = lossLogLevels(() -> {
            f.watchdog("taken", "c:1").addLostCallback(e -> { });
            registry.notHeld(registry.get("taken", "c:1"));
            f.deliver();
        });

        assertEquals(List.of(java.util.logging.Level.FINE), levels);
    }

    @Test
    void loss_nobodyListenedTo_isLoggedAsWarning() {
        List<java.util.logging.Level> levels = lossLogLevels(() -> {
            registry.notHeld(f.watchdog("untaken", "c:1"));
            f.deliver();
        });

        assertEquals(List.of(java.util.logging.Level.WARNING), levels);
    }

    /** Runs {@code loss} and answers the levels HoldRegistry logged "... lost: ..." at. */
    private static List<java.util.logging.Level> lossLogLevels(Runnable loss) {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(HoldRegistry.class.getName());
        List<java.util.logging.Level> levels = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getMessage().contains("lost: ")) {
                    levels.add(r.getLevel());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level before = log.getLevel();
        log.setLevel(java.util.logging.Level.ALL);
        log.addHandler(handler);
        try {
            loss.run();
        } finally {
            log.removeHandler(handler);
            log.setLevel(before);
        }
        return levels;
    }

    @Test
    void register_afterClose_returnsNullAndRegistersNothing() {
        registry.close();

        assertNull(f.watchdog("orders", "c:1"));
        assertEquals(0, registry.size());
    }

    @Test
    void lossReport_runsCallbacksThroughCallbackRunnerAndContainsOneThatThrows() {
        Hold h = f.watchdog("orders", "c:1");
        List<LockLostEvent> seen = new ArrayList<>();
        h.addLostCallback(e -> {
            throw new IllegalStateException("a callback that throws");
        });
        h.addLostCallback(seen::add);

        registry.notHeld(h);
        assertTrue(seen.isEmpty() && f.lost.isEmpty(), "nothing delivered before the runner runs it");
        assertEquals(1, f.queued.size());
        f.deliver();

        LockLostEvent expected = new LockLostEvent("orders", "c:1", 1, Reason.NOT_HELD);
        assertEquals(List.of(expected), seen);
        assertEquals(List.of(expected), f.lost, "the client's listeners still hear of it");
        assertEquals(expected, h.lostEvent());
    }

    @Test
    void clearLostCallbacks_clearedCallbackIsNotCalled() {
        Hold h = f.watchdog("orders", "c:1");
        List<LockLostEvent> seen = new ArrayList<>();
        h.addLostCallback(seen::add);

        h.clearLostCallbacks();
        registry.notHeld(h);
        f.deliver();

        assertTrue(seen.isEmpty());
        assertEquals(1, f.lost.size());
    }

    // ---------------------------------------------------------------- snapshot (LockClient.heldLocks)

    @Test
    void snapshot_listsEachHoldWithCountRenewalLagAndRemainingTime_andForgetsReleasedOnes() {
        f.watchdog("orders", "c:1", 4_000);
        f.watchdog("orders", "c:1", 4_000); // re-entry: one hold, count 2
        registry.register("stock", "c:-7", -7, "stock", 10_000, ago(2_000), Acquire.NO_TOKEN, null); // a lease
        f.explicit("gone", "c:2", 1_000, 2_000); // past its lease, not yet swept

        java.util.Map<String, io.github.relock.api.HeldLock> byName = new java.util.HashMap<>();
        registry.snapshot().forEach(h -> byName.put(h.name(), h));

        assertEquals(java.util.Set.of("orders", "stock", "gone"), byName.keySet());
        io.github.relock.api.HeldLock orders = byName.get("orders");
        assertEquals("c:1", orders.ownerField());
        assertEquals(2, orders.holdCount());
        assertTrue(orders.renewed());
        assertTrue(orders.sinceConfirmedMillis() >= 4_000 && orders.sinceConfirmedMillis() < 4_000 + 5_000,
                "renewal lag counts from the last confirmed send: " + orders);
        assertTrue(orders.remainingMillis() <= WATCHDOG_MS - 4_000 && orders.remainingMillis() > WATCHDOG_MS - 9_000,
                "a renewed hold is known held for the watchdog timeout after its last confirmed send: " + orders);
        io.github.relock.api.HeldLock stock = byName.get("stock");
        assertEquals(-7, stock.threadId());
        assertFalse(stock.renewed());
        assertTrue(stock.remainingMillis() <= 8_000 && stock.remainingMillis() > 3_000, stock.toString());
        assertTrue(stock.heldMillis() >= 2_000, stock.toString());
        assertEquals(0, byName.get("gone").remainingMillis(), "a lease that ran out is known held for no time");

        registry.released("orders", "c:1", false);
        assertEquals(java.util.Set.of("stock", "gone"),
                registry.snapshot().stream().map(io.github.relock.api.HeldLock::name).collect(java.util.stream.Collectors.toSet()));
        registry.close();
        assertTrue(registry.snapshot().isEmpty(), "nothing is held after close");
    }
}
