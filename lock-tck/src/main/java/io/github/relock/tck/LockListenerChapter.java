package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockListener;
import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 23: lock listeners ({@code DistributedLock.addListener}, Redisson's deleted and expired
 * object listeners for locks). A deleted listener hears every release that frees the lock and
 * every force unlock, by any client; an expired listener hears the key expiring, and nothing while
 * the watchdog renews it; {@code removeListener} stops both and leaves no subscription behind.
 * They need no keyspace notifications, so they run unchanged on every topology.
 *
 * <p>When a rule fails: look at whether the listener's client observes the lock's channel (the
 * release's message is what a deleted listener hears) and reads the lock's TTL when it runs out
 * (nobody publishes an expiry).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("lock-listeners")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "the engine's bookkeeping; what a driver can break"
        + " here, delivering a release's message, rule 23.1 requires")
public abstract class LockListenerChapter extends TckChapter {
    private static final Duration DEADLINE = Duration.ofSeconds(15);

    /** @param kit the enclosing kit */
    protected LockListenerChapter(DriverKit kit) {
        super(kit);
    }

    private static LockListener.Deleted deleted(List<String> events) {
        return name -> events.add("deleted " + name);
    }

    private static LockListener.Expired expired(List<String> events) {
        return name -> events.add("expired " + name);
    }

    /**
     * Rule 23.1: a deleted listener hears the lock freed by its own client's unlock, by another
     * client's unlock, and by a force unlock, once each: two releases milliseconds apart are two
     * events, and one release heard both ways on a cluster (classic and sharded) is one.
     * When it fails: a deleted listener hears the release's message on the lock's channel: check
     * that its client subscribes that channel (classic, and sharded on a cluster) and that
     * addListener returns only once it does.
     */
    @Test
    @RuleStrength(RuleStrength.Strength.REQUIRED)
    void rule23_1_deletedListener_hearsEveryReleaseAndForceUnlock() throws Exception {
        LockClient listening = client();
        LockClient other = client();
        DistributedLock lock = listening.getLock("tck:listen");
        List<String> events = new CopyOnWriteArrayList<>();
        int id = lock.addListener(deleted(events));
        lock.lock();
        lock.unlock();
        Await.until(DEADLINE, () -> events.size() == 1, () -> "its own unlock was not heard: " + events);
        DistributedLock others = other.getLock("tck:listen");
        others.lock();
        others.unlock();
        others.lock();
        others.unlock();
        Await.until(DEADLINE, () -> events.size() == 3, () -> "another client's two unlocks were not heard as two: " + events);
        others.lock();
        assertTrue(lock.forceUnlock());
        Await.until(DEADLINE, () -> events.size() == 4, () -> "a force unlock was not heard: " + events);
        Await.holdsFor(Duration.ofMillis(300), () -> events.size() == 4, () -> "a release was heard twice: " + events);
        assertEquals(List.of("deleted tck:listen", "deleted tck:listen", "deleted tck:listen", "deleted tck:listen"), events);
        lock.removeListener(id);
    }

    /**
     * Rule 23.2: an expired listener hears a lease running out, and nothing while the watchdog
     * renews a hold past several of its timeouts.
     * When it fails: an expired listener must check the lock's TTL when it should run out and
     * report only a real expiry, nothing while the watchdog renews the hold.
     */
    @Test
    void rule23_2_expiredListener_hearsALeaseRunOut_notARenewedHold() throws Exception {
        LockClient c = kit.newLockClient(LockOptions.builder().lockWatchdogTimeout(Duration.ofSeconds(2)).build());
        DistributedLock lock = c.getLock("tck:listen-expiry");
        List<String> events = new CopyOnWriteArrayList<>();
        int id = lock.addListener(expired(events));
        lock.lock(); // the watchdog's: renewed every two thirds of a second
        Await.holdsFor(Duration.ofMillis(5000), () -> events.isEmpty(), () -> "a renewed hold was reported expired: " + events);
        assertTrue(lock.isHeldByCurrentThread(), "the watchdog did not keep the lock held");
        lock.unlock();
        assertTrue(lock.tryLock(0, 300, TimeUnit.MILLISECONDS));
        Await.until(DEADLINE, () -> events.size() == 1, () -> "the 300 ms lease's expiry was not heard: " + events);
        assertEquals(List.of("expired tck:listen-expiry"), events);
        lock.removeListener(id);
    }

    /**
     * Rule 23.3: {@code removeListener} stops the events and leaves no subscription of the
     * listener's behind; an unknown id does nothing.
     * When it fails: {@code removeListener} must unsubscribe the listener's channel once nobody
     * else of the client listens on it, and ignore an unknown id.
     */
    @Test
    void rule23_3_removeListener_stopsEvents_leavesNoSubscription() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:listen-remove");
        List<String> events = new CopyOnWriteArrayList<>();
        int id = lock.addListener(deleted(events));
        Await.until(DEADLINE, () -> !channels().isEmpty(), () -> "the listener never subscribed");
        lock.removeListener(id);
        lock.removeListener(id);
        lock.removeListener(-42);
        Await.until(DEADLINE, () -> channels().isEmpty(), () -> "the removed listener is still subscribed: " + channels());
        lock.lock();
        lock.unlock();
        Await.holdsFor(Duration.ofMillis(300), events::isEmpty, () -> "a removed listener heard " + events);
    }

    /**
     * Rule 23.4: a fair lock's listeners tell a release from an expiry though a fair release
     * publishes only to its queue's head: deleted after unlock, expired after a lease runs out.
     * When it fails: a fair release publishes only to the queue head's channel, so a fair lock's
     * listener needs another way to tell a release from an expiry: look at what the listener
     * watches for the fair lock.
     */
    @Test
    void rule23_4_fairLock_deletedAndExpiredToldApart() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getFairLock("tck:listen-fair");
        List<String> events = new CopyOnWriteArrayList<>();
        int d = lock.addListener(deleted(events));
        int e = lock.addListener(expired(events));
        lock.lock();
        Await.until(DEADLINE, () -> lock.isLocked(), () -> "");
        lock.unlock();
        Await.until(DEADLINE, () -> events.equals(List.of("deleted tck:listen-fair")), () -> "unlock heard as " + events);
        assertTrue(lock.tryLock(0, 1500, TimeUnit.MILLISECONDS));
        Await.until(DEADLINE, () -> events.size() == 2, () -> "the lease's expiry was not heard: " + events);
        assertEquals("expired tck:listen-fair", events.get(1));
        lock.removeListener(d);
        lock.removeListener(e);
    }

    /**
     * Rule 23.6: a fair lock's own release is reported once, even when the listener's poll finds
     * the lock gone before the release's reply reaches its client: the release, then an expiry,
     * are heard as exactly one deletion and one expiry.
     * When it fails: a fair lock's listener hears its own client's releases at once and also polls
     * the lock; a poll that finds it gone while the release's reply is still on its way must wait
     * for that release (or a grace period) instead of reporting the same deletion a second time.
     */
    @Test
    void rule23_6_fairLock_ownReleaseOvertakenByAPoll_reportedOnce() throws Exception {
        Faults faults = new Faults();
        LockClient c = kit.newFaultyLockClient(LockOptions.defaults(), faults);
        DistributedLock lock = c.getFairLock("tck:listen-fair-once");
        List<String> events = new CopyOnWriteArrayList<>();
        int d = lock.addListener(deleted(events));
        int e = lock.addListener(expired(events));
        lock.lock();
        Faults.Gate releaseReply = faults.on("fair-release").delayReply();
        CompletableFuture<Void> unlocked = lock.unlockAsync();
        // the release ran; the watches' polls are serialised, so two more state reads sent after
        // it mean the first of them has been answered (it found the lock gone)
        Await.until(DEADLINE, () -> faults.sent("fair-release") == 1, () -> "the release was not sent");
        int polls = faults.sent("lock-state");
        Await.until(DEADLINE, () -> faults.sent("lock-state") >= polls + 6,
                () -> "the listeners stopped polling the fair lock: " + faults.sent("lock-state") + " reads");
        releaseReply.release();
        unlocked.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(lock.tryLock(0, 1500, TimeUnit.MILLISECONDS));
        Await.until(DEADLINE, () -> events.contains("expired tck:listen-fair-once"),
                () -> "the lease's expiry was not heard: " + events);
        assertEquals(List.of("deleted tck:listen-fair-once", "expired tck:listen-fair-once"), events,
                "one release and one expiry");
        lock.removeListener(d);
        lock.removeListener(e);
    }

    /**
     * Rule 23.5: a multi-lock refuses listeners (listen to its members), saying so.
     * When it fails: a multi-lock must refuse {@code addListener} with {@code
     * UnsupportedOperationException} that says to listen to its members.
     */
    @Test
    void rule23_5_multiLock_refusesListeners() {
        LockClient c = client();
        DistributedLock multi = c.getMultiLock(c.getLock("{tck:listen}:a"), c.getLock("{tck:listen}:b"));
        UnsupportedOperationException ex = assertThrows(UnsupportedOperationException.class,
                () -> multi.addListener((LockListener.Deleted) n -> { }));
        assertTrue(ex.getMessage().contains("addListener"), ex.getMessage());
    }

    /**
     * Rule 23.8: {@code addListenerAsync} completes with an id once the listener hears the lock's
     * channel, so another client's release after it completes is heard; {@code removeListenerAsync}
     * stops it and leaves no subscription; a multi-lock refuses both in the future, saying so.
     * When it fails: the async add must complete only after the channel's subscription is in place
     * (as {@code addListener} returns), and the remove must unobserve the channel.
     */
    @Test
    void rule23_8_addListenerAsync_hearsReleasesAfterItCompletes_removeListenerAsyncStops() throws Exception {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:listen-async");
        List<String> events = new CopyOnWriteArrayList<>();
        int id = lock.addListenerAsync(deleted(events)).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        DistributedLock others = client().getLock("tck:listen-async");
        others.lock();
        others.unlock();
        Await.until(DEADLINE, () -> events.size() == 1, () -> "another client's unlock was not heard: " + events);
        lock.removeListenerAsync(id).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        Await.until(DEADLINE, () -> channels().isEmpty(), () -> "the removed listener is still subscribed: " + channels());
        others.lock();
        others.unlock();
        Await.holdsFor(Duration.ofMillis(200), () -> events.size() == 1, () -> "a removed listener heard " + events);
        DistributedLock multi = c.getMultiLock(c.getLock("{tck:listen}:a"), c.getLock("{tck:listen}:b"));
        java.util.concurrent.ExecutionException refused = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> multi.addListenerAsync((LockListener.Deleted) n -> { }).get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof UnsupportedOperationException
                && refused.getCause().getMessage().contains("addListenerAsync"), String.valueOf(refused.getCause()));
        assertTrue(multi.removeListenerAsync(id).isCompletedExceptionally());
    }
}
