package io.github.relock.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The listener on a real Redis (Jedis driver): after lock activity the meters hold the expected counts. */
class MicrometerLockEventListenerTest {

    private static RedisServer server;

    @BeforeAll
    static void server() {
        server = RedisFixture.shared();
    }

    private static LockClient client(MicrometerLockEventListener listener) {
        return RedisLocks.connect(server.uri(), LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(300))
                .eventListener(listener).build());
    }

    @Test
    void lockActivity_recordsWaitHoldTimeoutLostAndRenewals() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LockClient c = client(MicrometerLockEventListener.builder(registry).build());
             LockClient other = RedisLocks.connect(server.uri(), LockOptions.defaults())) {
            DistributedLock lock = c.getLock("metrics:a");
            for (int i = 0; i < 3; i++) {
                lock.lock();
                lock.unlock();
            }
            DistributedLock busy = other.getLock("metrics:a");
            busy.lock();
            assertFalse(lock.tryLock(20, TimeUnit.MILLISECONDS));
            busy.unlock();

            lock.lock();
            Await.until(Duration.ofSeconds(5),
                    () -> registry.get("relock.renewal.batches").timer().count() >= 1, () -> "no renewal batch");
            server.admin().call("DEL", "metrics:a");
            Await.until(Duration.ofSeconds(5),
                    () -> registry.get("relock.lock.lost").tag("reason", "NOT_HELD").counter().count() == 1,
                    () -> "no loss counted");

            assertEquals(4, registry.get("relock.lock.wait").tag("outcome", "acquired").timer().count());
            assertEquals(1, registry.get("relock.lock.wait").tag("outcome", "timeout").timer().count());
            assertEquals(3, registry.get("relock.lock.hold").timer().count());
            assertTrue(registry.get("relock.renewal.failures").counter().count() >= 1);
            assertNull(registry.find("relock.lock.wait").tagKeys("lock").timer(), "lock name tag is off by default");
        }
    }

    @Test
    void lockNameTag_on_tagsMetersWithTheLockName() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LockClient c = client(MicrometerLockEventListener.builder(registry).lockNameTag(true).build())) {
            DistributedLock lock = c.getLock("metrics:named");
            lock.lock();
            lock.unlock();
            assertEquals(1, registry.get("relock.lock.wait").tags("lock", "metrics:named", "outcome", "acquired")
                    .timer().count());
            assertEquals(1, registry.get("relock.lock.hold").tag("lock", "metrics:named").timer().count());
        }
    }
}
