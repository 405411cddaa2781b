package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.WaitingForLock;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 34: directed wake-ups (issue 37 item 4). On one server, a release of the reentrant lock
 * wakes one waiting relock client, named on its own {@code relock__wake:{N}:<clientId>}, instead of publishing
 * Redisson's "0" to every subscribed client (each of which would wake a waiter that attempts):
 * a waiting client registers in {@code relock__waiters:{N}} when its attempt fails. Redisson's
 * "0" still goes out whenever anything but waiting relock clients listens on Redisson's channel,
 * a client that leaves or dies does not swallow wake-ups, and every way the lock becomes free by
 * a relock call (unlock, forceUnlock) wakes a waiter. On a cluster a node cannot count other
 * nodes' classic subscribers, so releases publish "0" as before. Directed wake-ups are on by
 * default; {@code -Drelock.directedWakes=off} turns them off, and this chapter's rules that need
 * them then skip.
 *
 * <p>Each rule waits well under the 30-second watchdog TTL a waiter sees: a waiter woken only
 * by that TTL fails it.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("directed-wake")
@RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "checks the engine's wake protocol; a driver breaks it"
        + " only by breaking pub/sub delivery, which chapters 1 and 5 require")
public abstract class DirectedWakeChapter extends TckChapter {
    /** Far below the TTL a waiter sees (30 s): a waiter woken by a release is granted well within it. */
    private static final Duration WOKEN = Duration.ofSeconds(5);

    /** @param kit the enclosing kit */
    protected DirectedWakeChapter(DriverKit kit) {
        super(kit);
    }

    /** One thread of its own client waiting for a lock, holding it once granted until told. */
    private static final class Waiter implements AutoCloseable {
        final LockClient client;
        final Thread thread;
        final CompletableFuture<Void> acquired = new CompletableFuture<>();
        final CompletableFuture<Void> release = new CompletableFuture<>();
        final CompletableFuture<Boolean> done = new CompletableFuture<>();

        /** @param interruptible whether it waits with lockInterruptibly (an interrupt makes it leave without the lock) */
        Waiter(LockClient client, String name, boolean interruptible) {
            this.client = client;
            DistributedLock lock = client.getLock(name);
            thread = new Thread(() -> {
                try {
                    boolean got = interruptible ? lockInterruptiblyOrLeave(lock) : lockAndTrue(lock);
                    if (got) {
                        acquired.complete(null);
                        try {
                            release.get(60, TimeUnit.SECONDS);
                        } finally {
                            lock.unlock();
                        }
                    }
                    done.complete(got);
                } catch (Throwable e) {
                    acquired.completeExceptionally(e);
                    done.completeExceptionally(e);
                }
            }, "tck-directed-" + client.clientId());
            thread.setDaemon(true);
            thread.start();
        }

        private static boolean lockAndTrue(DistributedLock lock) {
            lock.lock();
            return true;
        }

        private static boolean lockInterruptiblyOrLeave(DistributedLock lock) {
            try {
                lock.lockInterruptibly();
                return true;
            } catch (InterruptedException e) {
                return false;
            }
        }

        boolean parked() {
            return LockSupport.getBlocker(thread) instanceof WaitingForLock;
        }

        @Override
        public void close() {
            release.complete(null);
        }
    }

    private static String waitersKey(String name) {
        return "relock__waiters:{" + name + "}";
    }

    private boolean cluster() {
        return kit.topology().kind() == RedisTopology.Kind.CLUSTER;
    }

    /** The JVM-wide switch: {@code on} for this chapter's clients, unless the run set it {@code off}. */
    private static final String SWITCH = "relock.directedWakes";
    private String runSetting;

    /**
     * Sets directed wake-ups on for the clients this rule creates (they read the switch when
     * created), whatever the run set other than {@code off}, which keeps them off here too. Rules
     * run one at a time in a test JVM, so no other rule's clients see it.
     */
    @org.junit.jupiter.api.BeforeEach
    void switchOn() {
        runSetting = System.getProperty(SWITCH);
        if (!"off".equalsIgnoreCase(String.valueOf(runSetting).strip())) {
            System.setProperty(SWITCH, "on");
        }
    }

    @org.junit.jupiter.api.AfterEach
    void switchBack() {
        if (runSetting == null) {
            System.clearProperty(SWITCH);
        } else {
            System.setProperty(SWITCH, runSetting);
        }
    }

    /** @return whether clients register: one server, and not switched off for the run */
    private boolean directed() {
        return !cluster() && "on".equalsIgnoreCase(System.getProperty(SWITCH, "default").strip());
    }

    private void assumeDirected(String why) {
        org.junit.jupiter.api.Assumptions.assumeTrue(directed(), () -> "directed wake-ups are off: " + why);
    }

    /** Starts one waiter per new client and returns once each is parked (and, on one server, registered). */
    private List<Waiter> parkedWaiters(String name, int clients) {
        List<Waiter> waiters = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Waiter w = new Waiter(client(), name, false);
            waiters.add(w);
            awaitParkedAndRegistered(name, w);
        }
        return waiters;
    }

    private void awaitParkedAndRegistered(String name, Waiter w) {
        Await.until(Duration.ofSeconds(20), () -> w.parked()
                        && (!directed() || redis("ZSCORE", waitersKey(name), w.client.clientId()) != null),
                () -> w.thread.getName() + " never parked registered; it is at " + Arrays.toString(w.thread.getStackTrace())
                        + ", registered: " + redis("ZRANGE", waitersKey(name), "0", "-1"));
    }

    private static void closeAll(List<Waiter> waiters) {
        waiters.forEach(Waiter::close);
    }

    /** What a rule does with a held lock and waiting clients. */
    @FunctionalInterface
    private interface WithWaiters {
        void run(DistributedLock held, List<Waiter> waiters) throws Exception;
    }

    /** Holds lock {@code name} by a client of its own, parks {@code clients} waiting clients, runs {@code rule}, lets them go. */
    private void withParkedWaiters(String name, int clients, WithWaiters rule) throws Exception {
        DistributedLock lock = client().getLock(name);
        lock.lock();
        List<Waiter> waiters = parkedWaiters(name, clients);
        try {
            rule.run(lock, waiters);
        } finally {
            closeAll(waiters);
        }
    }

    /**
     * Rule 34.1: with three relock clients parked on a lock (one thread each), an unlock costs O(1)
     * scripts, not one per client: from the unlock until one waiter holds the lock and the other
     * two are parked again, the server runs at most 3 scripts (the release, the woken client's
     * attempt, one spare), where a "0" to every subscribed client makes each of the three attempt.
     * When it fails: the release published Redisson's "0" although only relock clients waited, or
     * it woke several clients: see fragments/wake.lua and relock__waiters:{N}.
     */
    @Test
    void rule34_1_releaseWithManyWaitingRelockClients_runsConstantScripts() throws Exception {
        assumeDirected("a node cannot count other nodes' classic subscribers: releases publish \"0\"");
        withParkedWaiters("tck:directed-o1", 3, (lock, waiters) -> {
            long before = scriptCallsServed();
            lock.unlock();
            Await.until(Duration.ofSeconds(10), () -> waiters.stream().filter(w -> w.acquired.isDone()).count() == 1
                            && waiters.stream().filter(w -> !w.acquired.isDone()).allMatch(Waiter::parked),
                    () -> "no waiter was granted the lock, or the others did not park again");
            long scripts = scriptCallsServed() - before;
            assertTrue(scripts <= 3, "an unlock with three waiting relock clients ran " + scripts
                    + " scripts until one held the lock; directed wake-ups run the release and one attempt");
        });
    }

    /**
     * Rule 34.2: Redisson's waiters hear every release: while relock clients wait, a subscriber on
     * Redisson's channel that is not a waiting relock client (a Redisson waiter, here a bare
     * subscriber) receives "0" on the unlock, and the relock waiter is still granted.
     * When it fails: the release counted a foreign subscriber as a relock client: Redisson's
     * channel must have no more subscribers than relock__wake:{N} before "0" is skipped.
     */
    @Test
    void rule34_2_foreignSubscriberOnRedissonsChannel_stillHearsTheUnlock() throws Exception {
        String name = "tck:directed-foreign";
        String channel = "redisson_lock__channel:{" + name + "}";
        withParkedWaiters(name, 1, (lock, waiters) -> {
            try (RespClient sub = kit.topology().adminFor(channel)) {
                sub.call("SUBSCRIBE", channel);
                lock.unlock();
                Object reply = sub.readReply();
                Object payload = reply instanceof List<?> l && l.size() == 3 ? l.get(2) : reply;
                assertEquals("0", String.valueOf(payload), "the foreign subscriber must hear Redisson's unlock message");
                waiters.get(0).acquired.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    /**
     * Rule 34.3: a registered client that is gone (it registered and no longer listens: it died)
     * does not swallow the wake-up: a live waiter is granted well within the TTL it saw.
     * When it fails: the release woke the dead client only; the set's registrations must be
     * checked against the wake channel's listeners.
     */
    @Test
    void rule34_3_deadRegisteredClient_doesNotBlockTheWakeUp() throws Exception {
        assumeDirected("no registrations");
        String name = "tck:directed-dead";
        withParkedWaiters(name, 1, (lock, waiters) -> {
            redis("ZADD", waitersKey(name), "-1", "tck-dead-client"); // registered before the live one, never listening
            lock.unlock();
            waiters.get(0).acquired.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS);
        });
    }

    /**
     * Rule 34.4: a client whose waiter leaves without the lock (interrupted) leaves the set of
     * waiting clients, so the next unlock wakes a client still waiting.
     * When it fails: the client that left stayed registered and the unlock woke it alone: the
     * last waiter of a client leaving without the lock must send the leave script.
     */
    @Test
    void rule34_4_clientWhoseWaiterLeaves_isNoLongerWoken() throws Exception {
        String name = "tck:directed-leave";
        DistributedLock lock = client().getLock(name);
        lock.lock();
        Waiter leaving = new Waiter(client(), name, true);
        List<Waiter> all = new ArrayList<>(List.of(leaving));
        try {
            awaitParkedAndRegistered(name, leaving);
            all.addAll(parkedWaiters(name, 1));
            leaving.thread.interrupt();
            assertFalse(leaving.done.get(10, TimeUnit.SECONDS), "the interrupted waiter must leave without the lock");
            if (directed()) {
                Await.until(Duration.ofSeconds(10), () -> redis("ZSCORE", waitersKey(name), leaving.client.clientId()) == null,
                        () -> "the client whose waiter left is still registered");
            }
            lock.unlock();
            all.get(1).acquired.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            closeAll(all);
        }
    }

    /**
     * Rule 34.5: forceUnlock wakes a waiting relock client as an unlock does.
     * When it fails: lock-force-release.lua must wake as the release does (fragments/wake.lua).
     */
    @Test
    void rule34_5_forceUnlock_wakesAWaitingClient() throws Exception {
        String name = "tck:directed-force";
        withParkedWaiters(name, 2, (lock, waiters) -> {
            assertTrue(lock.forceUnlock());
            Await.until(WOKEN, () -> waiters.stream().anyMatch(w -> w.acquired.isDone()),
                    () -> "no waiting client was woken by forceUnlock");
        });
    }

    /**
     * Rule 34.6: on a cluster nothing registers (a node cannot tell relock's subscribers from
     * Redisson's on other nodes) and an unlock still wakes a waiting client; on one server the
     * woken client is taken off the set when woken.
     * When it fails: on a cluster, directed wake-ups must be off (publish mode BOTH); on one
     * server, the release must pop the client it wakes.
     */
    @Test
    void rule34_6_clusterPublishesAsBefore_oneServerPopsTheWokenClient() throws Exception {
        String name = "tck:directed-topology";
        withParkedWaiters(name, 1, (lock, waiters) -> {
            if (cluster()) {
                assertEquals(0L, ((Number) redis("EXISTS", waitersKey(name))).longValue(),
                        "no client registers on a cluster");
            }
            lock.unlock();
            waiters.get(0).acquired.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS);
            assertNull(redis("ZSCORE", waitersKey(name), waiters.get(0).client.clientId()),
                    "the woken client holds the lock and is no longer registered");
        });
    }

    /**
     * Rule 34.7: a client whose registered waiter got the lock from another thread of the same
     * client (the local hand-off in Redis, which starts any cohort run; inside a run no attempt of
     * the client reaches Redis, so none registers) is off the lock's waiting clients soon after,
     * while that waiter still holds the lock, and the set has a TTL whenever it exists; closing a
     * client whose waiter is registered takes it off before close() returns.
     * When it fails: a registration outlived the client's last waiter (the next release of another
     * client would wake a client with no waiter, and the key is left behind): the entry's linger
     * expiry, or the last leave without a linger, must send the leave script (lock-wake-leave.lua).
     */
    @Test
    void rule34_7_waiterGrantedInsideItsClient_leavesNoRegistration() throws Exception {
        assumeDirected("no client registers");
        String name = "tck:directed-pass";
        LockClient c = kit.newLockClient(io.github.relock.api.LockOptions.builder().cohort().build());
        DistributedLock lock = c.getLock(name);
        lock.lock();
        Waiter passedTo = new Waiter(c, name, false);
        try {
            awaitParkedAndRegistered(name, passedTo);
            lock.unlock(); // passed to the waiter inside the client
            passedTo.acquired.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS);
            Await.until(Duration.ofSeconds(10), () -> {
                long ttl = ((Number) redis("PTTL", waitersKey(name))).longValue();
                assertTrue(ttl != -1, "relock__waiters has no TTL");
                return ttl == -2;
            }, () -> "still registered while its only waiter holds the lock: " + redis("ZRANGE", waitersKey(name), "0", "-1"));
        } finally {
            passedTo.close();
        }
        passedTo.done.get(WOKEN.toMillis(), TimeUnit.MILLISECONDS);
        LockClient closing = client();
        DistributedLock held = client().getLock(name);
        held.lock();
        Waiter registered = new Waiter(closing, name, false);
        try {
            awaitParkedAndRegistered(name, registered);
            closing.close(); // its waiter leaves; the client goes off the waiting clients before its driver closes
            assertNull(redis("ZSCORE", waitersKey(name), closing.clientId()), "a closed client is still registered");
        } finally {
            registered.close();
            held.unlock();
        }
    }

    /**
     * Rule 34.13: a directed wake-up reaches only the client it names: with three relock clients
     * parked on a lock, an unlock publishes one message, the woken client's id on its own channel
     * relock__wake:{N}:&lt;clientId&gt;, and nothing on the shared relock__wake:{N}, which only
     * counts the listening clients. So a release costs the other waiting clients nothing: no
     * message to read, no thread woken (published on the shared channel, every waiting client read
     * every wake-up, and acquisitions/s fell with the clients while the scripts stayed flat).
     * When it fails: the release published on the shared wake channel, or on several clients'
     * channels: see fragments/wake.lua.
     */
    @Test
    void rule34_13_directedWakeUp_isPublishedOnTheNamedClientsOwnChannelOnly() throws Exception {
        assumeDirected("a node cannot count other nodes' classic subscribers: releases publish \"0\"");
        String name = "tck:directed-own";
        String shared = "relock__wake:{" + name + "}";
        withParkedWaiters(name, 3, (lock, waiters) -> {
            try (RespClient sub = kit.topology().adminFor(shared)) {
                sub.call("PSUBSCRIBE", shared + "*"); // the shared channel and every client's own
                lock.unlock();
                Await.until(WOKEN, () -> waiters.stream().anyMatch(w -> w.acquired.isDone()),
                        () -> "no waiter was granted the lock");
                Waiter woken = waiters.stream().filter(w -> w.acquired.isDone()).findFirst().orElseThrow();
                redis("PUBLISH", shared, "tck-end"); // after whatever the release published: Redis keeps the order
                List<String> heard = new ArrayList<>();
                while (heard.isEmpty() || !heard.get(heard.size() - 1).endsWith(" tck-end")) {
                    Object reply = sub.readReply();
                    heard.add(reply instanceof List<?> l && l.size() == 4 ? l.get(2) + " " + l.get(3) : String.valueOf(reply));
                }
                String own = shared + ":" + woken.client.clientId();
                assertEquals(List.of(own + " " + woken.client.clientId(), shared + " tck-end"), heard,
                        "the unlock's messages on relock's wake channels (one, on the woken client's own channel)");
            }
        });
    }
}
