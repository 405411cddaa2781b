package io.github.relock.examples.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.examples.boot.SampleApplication;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** docs/guide/testing.md's Spring Boot test, compiled and run as the guide shows it, on the sample application. */
@SpringBootTest(classes = SampleApplication.class)
class SpringBootGuideTest {

    @BeforeAll
    static void embeddedAllowed() { // not in the guide: the repository's REDIS_URL runs
        assumeTrue(GuideTests.embeddedAllowed(), GuideTests.WHY_SKIPPED);
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
    }

    @Autowired
    LockClient locks;

    @Autowired
    StringRedisTemplate redis;

    @Test
    void theOrderLock_isHeldInTheTestsRedis() throws InterruptedException {
        DistributedLock lock = locks.getLock("orders:42");
        assertTrue(lock.tryLock(5, TimeUnit.SECONDS));
        try {
            assertTrue(redis.hasKey("orders:42"));
        } finally {
            lock.unlock();
        }
        assertFalse(redis.hasKey("orders:42"));
    }
}
