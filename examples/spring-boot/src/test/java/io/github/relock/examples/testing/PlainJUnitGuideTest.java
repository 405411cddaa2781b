package io.github.relock.examples.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.embeddedredis.RedisProcess;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** docs/guide/testing.md's plain JUnit 5 test, compiled and run as the guide shows it. */
class PlainJUnitGuideTest {
    private static RedisProcess redis;
    private static LockClient locks;

    @BeforeAll
    static void startRedis() throws IOException {
        assumeTrue(GuideTests.embeddedAllowed(), GuideTests.WHY_SKIPPED); // not in the guide: the repository's REDIS_URL runs
        redis = RedisProcess.startOnFreePort();
        locks = RedisLocks.connect("redis://" + redis.host() + ":" + redis.port());
    }

    @AfterAll
    static void stopRedis() {
        if (locks != null) {
            locks.close();
        }
        if (redis != null) {
            redis.close(); // stops the process and waits until it has exited
        }
    }

    @Test
    void anotherInstance_cannotTakeTheLockWhileThisOneHoldsIt() throws Exception {
        try (LockClient otherInstance = RedisLocks.connect("redis://" + redis.host() + ":" + redis.port())) {
            DistributedLock lock = locks.getLock("orders:42");
            lock.lock();
            try {
                assertFalse(otherInstance.getLock("orders:42").tryLock());
            } finally {
                lock.unlock();
            }
            assertTrue(otherInstance.getLock("orders:42").tryLock(), "free once released");
            otherInstance.getLock("orders:42").unlock();
        }
    }
}
