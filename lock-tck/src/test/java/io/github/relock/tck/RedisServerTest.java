package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RedisFixture.class)
class RedisServerTest {

    @Test
    void shared_answersPing(RedisServer server) {
        assertEquals("PONG", server.call("PING"));
        assertTrue(server.isRunning());
    }

    @Test
    void startEmbedded_twoServers_areIndependent() {
        assumeTrue(RedisFixture.canControlServers(), "REDIS_URL is set: the kit may not start servers");
        try (RedisServer a = RedisServer.startEmbedded(); RedisServer b = RedisServer.startEmbedded()) {
            assertNotEquals(a.port(), b.port());
            a.call("SET", "k", "a");
            assertEquals("a", a.call("GET", "k"));
            assertEquals(null, b.call("GET", "k"));
        }
    }

    @Test
    void restart_samePort_dataGoneAndServing() {
        assumeTrue(RedisFixture.canControlServers(), "REDIS_URL is set: the kit may not restart servers");
        try (RedisServer a = RedisServer.startEmbedded()) {
            int port = a.port();
            a.call("SET", "k", "v");
            a.restart();
            assertEquals(port, a.port());
            assertEquals(null, a.call("GET", "k"));
            a.stop();
            assertFalse(a.isRunning());
            assertThrows(RuntimeException.class, () -> a.call("PING"));
            a.start();
            assertEquals("PONG", a.call("PING"));
        }
    }

    @Test
    void respClient_errorReply_throwsRespError(RedisServer server) {
        RespClient.RespError e = assertThrows(RespClient.RespError.class, () -> server.call("NOSUCHCOMMAND"));
        assertTrue(e.getMessage().startsWith("ERR"), e.getMessage());
    }
}
