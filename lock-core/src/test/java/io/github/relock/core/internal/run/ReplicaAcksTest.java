package io.github.relock.core.internal.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplicaAcksTest {

    /** Answers only replicationInfo, with {@code connected} replicas, counting the calls. */
    private static final class Info implements CommandExecutor {
        volatile int connected;
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public String replicationInfo(String key) {
            calls.incrementAndGet();
            return "# Replication\r\nrole:master\r\nconnected_slaves:" + connected + "\r\nmaster_failover_state:no-failover\r\n";
        }

        @Override
        public Object eval(ScriptCall call) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void setConnectionListener(ConnectionListener listener) {
        }

        @Override
        public Set<Capability> capabilities() {
            return Set.of(Capability.REPLICA_WAIT);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void connected_learnsOncePerNode_thenAnswersFromTheCache_andFailsOnlyWhenNoneAcknowledged() {
        Info redis = new Info();
        redis.connected = 2;
        AtomicLong now = new AtomicLong();
        ReplicaAcks acks = new ReplicaAcks(redis, 0, false, Runnable::run, now::get);
        assertEquals(-1, acks.known("a"), "nothing learned yet, and known() never asks");
        assertEquals(0, redis.calls.get());
        assertEquals(2, acks.expected("a"));
        assertEquals(2, acks.expected("b"), "one node: learned once");
        assertEquals(1, redis.calls.get());
        assertFalse(acks.isShort("a", 2, 2));
        assertFalse(acks.isShort("a", 2, 1), "one of two acknowledged: Redisson does not fail either");
        assertEquals(2, redis.calls.get(), "a WAIT that counted another number learns the count again");
        assertTrue(acks.isShort("a", 2, 0), "none acknowledged fails the write");
    }

    @Test
    void connected_zeroReplicas_staysZeroUntilOld_thenLearnsAgainInTheBackground() {
        Info redis = new Info();
        AtomicLong now = new AtomicLong();
        ReplicaAcks acks = new ReplicaAcks(redis, 0, false, Runnable::run, now::get);
        assertEquals(0, acks.expected("a"));
        redis.connected = 1;
        now.addAndGet(ReplicaAcks.REFRESH_NANOS / 2);
        assertEquals(0, acks.known("a"), "a young count is used as it is");
        assertEquals(1, redis.calls.get());
        now.addAndGet(ReplicaAcks.REFRESH_NANOS);
        assertEquals(0, acks.known("a"), "an old count answers once more while it is learned again");
        assertEquals(1, acks.known("a"), "the replica attached later is waited for");
        acks.forget();
        assertEquals(-1, acks.known("a"), "forgotten after a pub/sub reconnect");
    }

    @Test
    void expectedAsync_asyncWritesOnAnUnknownNode_shareOneLearningOnTheBackgroundThreads() {
        Info redis = new Info();
        redis.connected = 2;
        java.util.List<Runnable> queued = new java.util.ArrayList<>();
        ReplicaAcks acks = new ReplicaAcks(redis, 0, false, queued::add, System::nanoTime);
        CompletableFuture<Integer> first = acks.expectedAsync("a");
        CompletableFuture<Integer> second = acks.expectedAsync("b");
        assertFalse(first.isDone(), "learned on the background threads, not the caller's");
        assertEquals(1, queued.size(), "one learning for both writes on one node");
        queued.get(0).run();
        assertEquals(2, first.join());
        assertEquals(2, second.join());
        assertEquals(1, redis.calls.get());
        assertEquals(2, acks.expectedAsync("c").join(), "known now: answered at once");
        assertEquals(1, queued.size());
    }

    @Test
    void pinned_neverAsks_andIsShortBelowTheCount() {
        Info redis = new Info();
        ReplicaAcks acks = new ReplicaAcks(redis, 2, false, Runnable::run, System::nanoTime);
        assertEquals(2, acks.expected("a"));
        assertTrue(acks.isShort("a", 2, 1));
        assertFalse(acks.isShort("a", 2, 2));
        assertEquals(0, redis.calls.get());
    }
}
