package io.github.relock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.RedisFixture;
import org.junit.jupiter.api.Test;

/** The health check's ends that need no failing Redis: UP for an idle client, UNKNOWN once it is closed. */
class RelockHealthTest {

    @Test
    void idleClient_isUp_andAClosedOneIsUnknown() {
        io.lettuce.core.RedisClient redis = io.lettuce.core.RedisClient.create(RedisFixture.shared().uri().toString());
        try {
            LockClient client = RedisLocks.create(redis);
            RelockHealth health = new RelockHealth(client);
            RelockHealth.Result up = health.check();
            assertEquals("UP", up.status(), up.details().toString());
            assertThat(up.details()).containsEntry("heldLocks", 0).containsKey("redis").doesNotContainKey("reason");

            client.close();
            RelockHealth.Result closed = health.check();
            assertEquals("UNKNOWN", closed.status(), closed.details().toString());
            assertThat((String) closed.details().get("reason")).startsWith("the client is closed");
            health.close();
        } finally {
            redis.shutdown();
        }
    }
}
