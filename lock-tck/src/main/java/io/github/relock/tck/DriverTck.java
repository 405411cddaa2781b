package io.github.relock.tck;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import org.junit.jupiter.api.Nested;

/**
 * The driver contract kit: the chapters about what a {@code CommandExecutor} must do and about
 * what depends on how a client holds its connections. A driver certifies itself with one class
 * that extends this one and implements {@link DriverKit}'s three factory methods; every chapter
 * below then runs against it on a real Redis ({@link RedisFixture}).
 *
 * <pre>{@code
 * class MyDriverTckTest extends DriverTck {
 *     protected RedisDriverProvider provider() { return new MyDriverProvider(); }
 *     protected Object newNativeClient(RedisServer server) { return new MyClient(server.uri()); }
 *     protected void closeNativeClient(Object client) { ((MyClient) client).close(); }
 * }
 * }</pre>
 *
 * <p>The chapters: 1 driver conformance (replies, NOSCRIPT, errors, async, the one pub/sub
 * connection, reconnect, close), 2 the reentrant lock (a smoke test of the whole path), 5 waiting
 * and wake-up, 6 mutual exclusion under load, 7 failure signalling, 12 cancellation and partial
 * failure, 18 faults between the client and Redis, 21 liveness, 23 lock listeners, 27 queued
 * calls and the renewal lane, 28 the driver under the world's faults (an exhausted pool, an
 * ACL refusing a channel, a slot moved behind the client's back), and 29 seeded timing faults
 * (late, lost and duplicated replies and messages) injected around the driver, and 34 directed wake-ups
 * (one waiting client woken per release, on a second channel). The engine's own chapters
 * (leases, fairness, the lock family, hand-off, bad input, ...) are {@link EngineSpec}, which
 * relock runs once per topology on its reference driver; {@link RelockTck} runs both.
 *
 * <p>Topology is a parameter: annotated {@link Topologies} (e.g. {@code @Topologies({Kind.SINGLE,
 * Kind.CLUSTER, Kind.SENTINEL})}), the class runs every chapter once per topology, on
 * {@link RedisServer}, {@link RedisCluster#shared()} and {@link RedisSentinelGroup#shared()}, making
 * its clients with {@link #newNativeClient(RedisTopology)}; without it, on one server (rules that
 * need a server they may stop skip elsewhere, each saying why).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class DriverTck extends DriverKit {

    /** Creates the kit (JUnit does this). */
    protected DriverTck() {
    }

    /** Chapter 1: driver conformance ({@link DriverConformanceChapter}). */
    @Nested
    class DriverConformance extends DriverConformanceChapter {
        DriverConformance() {
            super(DriverTck.this);
        }
    }

    /** Chapter 2: {@link ReentrantLockChapter}, run against this driver. */
    @Nested
    class ReentrantLock extends ReentrantLockChapter {
        ReentrantLock() {
            super(DriverTck.this);
        }
    }

    /** Chapter 5: {@link WaitingChapter}, run against this driver. */
    @Nested
    class Waiting extends WaitingChapter {
        Waiting() {
            super(DriverTck.this);
        }
    }

    /** Chapter 6: {@link ConcurrencyChapter}, run against this driver. */
    @Nested
    class Concurrency extends ConcurrencyChapter {
        Concurrency() {
            super(DriverTck.this);
        }
    }

    /** Chapter 7: {@link FailureChapter}, run against this driver. */
    @Nested
    class FailureSignalling extends FailureChapter {
        FailureSignalling() {
            super(DriverTck.this);
        }
    }

    /** Chapter 12: {@link CancellationChapter}, run against this driver. */
    @Nested
    class CancellationAndPartialFailure extends CancellationChapter {
        CancellationAndPartialFailure() {
            super(DriverTck.this);
        }
    }

    /** Chapter 18: {@link FaultChapter}, run against this driver. */
    @Nested
    class Faults extends FaultChapter {
        Faults() {
            super(DriverTck.this);
        }
    }

    /** Chapter 21: {@link LivenessChapter}, run against this driver. */
    @Nested
    class Liveness extends LivenessChapter {
        Liveness() {
            super(DriverTck.this);
        }
    }

    /**
     * Chapter 33: {@link CohortChapter}, run against this driver: a run starts with a transfer in
     * Redis and ends with an unlock there, and the anchor's polls and the waiters' wake-ups ride
     * on the driver's pub/sub.
     */
    @Nested
    class Cohorts extends CohortChapter {
        Cohorts() {
            super(DriverTck.this);
        }
    }

    /**
     * Chapter 34: {@link DirectedWakeChapter}, run against this driver: a directed wake-up reaches
     * the named client only through the driver's pub/sub, on a second channel of the wait's entry.
     */
    @Nested
    class DirectedWake extends DirectedWakeChapter {
        DirectedWake() {
            super(DriverTck.this);
        }
    }

    /**
     * Chapter 23: {@link LockListenerChapter}, run against this driver: a listener hears releases
     * only through the driver's pub/sub (classic, and sharded on a cluster), so how the driver
     * confirms and delivers them matters.
     */
    @Nested
    class LockListeners extends LockListenerChapter {
        LockListeners() {
            super(DriverTck.this);
        }
    }

    /**
     * Chapter 27: {@link QueuedCallsChapter}, run against this driver: a call the driver queued
     * past its command timeout is never sent, and renewals never wait behind application calls.
     */
    @Nested
    class QueuedCalls extends QueuedCallsChapter {
        QueuedCalls() {
            super(DriverTck.this);
        }
    }

    /**
     * Chapter 28: {@link DriverUnderFaultsChapter}, run against this driver: the application's pool
     * exhausted, a channel refused by an ACL, a slot moved behind the client's back; the faults come
     * from the hooks {@link #exhaustPool} and {@link #newNativeClient(RedisTopology, String, String)}
     * and the fixtures.
     */
    @Nested
    class DriverUnderFaults extends DriverUnderFaultsChapter {
        DriverUnderFaults() {
            super(DriverTck.this);
        }
    }

    /**
     * Chapter 29: {@link TimingFaultChapter}, run against this driver: seeded schedules of late,
     * lost and refused replies, stalled async calls, and late, duplicated and lost pub/sub messages,
     * injected by wrapping this driver in a {@link FaultInjectingDriver}; one holder at a time, holds
     * that match Redis, and nothing left after close.
     */
    @Nested
    class TimingFaults extends TimingFaultChapter {
        TimingFaults() {
            super(DriverTck.this);
        }
    }

    /** Chapter 30: {@link LossChapter}, run against this driver: a loss stops the work, and says so once. */
    @Nested
    class Loss extends LossChapter {
        Loss() {
            super(DriverTck.this);
        }
    }

    /** Chapter 32: {@link LeaderElectionChapter}, run against this driver: one leader at a time, handover, epochs. */
    @Nested
    class LeaderElection extends LeaderElectionChapter {
        LeaderElection() {
            super(DriverTck.this);
        }
    }
}
