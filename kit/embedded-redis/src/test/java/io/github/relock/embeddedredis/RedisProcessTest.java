package io.github.relock.embeddedredis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The platform table against the binaries jar, and a real server's start, PING and stop. */
class RedisProcessTest {

    @Test
    void resourceFor_linuxAndMacOnEveryJavaArchName_namesTheShippedBinary() {
        assertEquals("redis-server-7.0.15-linux-amd64", RedisProcess.resourceFor("Linux", "amd64"));
        assertEquals("redis-server-7.0.15-linux-amd64", RedisProcess.resourceFor("Linux", "x86_64"));
        assertEquals("redis-server-7.0.15-linux-arm64", RedisProcess.resourceFor("Linux", "aarch64"));
        assertEquals("redis-server-7.0.15-linux-386", RedisProcess.resourceFor("Linux", "i686"));
        assertEquals("redis-server-7.0.15-linux-386", RedisProcess.resourceFor("Linux", "x86"));
        assertEquals("redis-server-7.0.15-darwin-arm64", RedisProcess.resourceFor("Mac OS X", "aarch64"));
        assertEquals("redis-server-7.0.15-darwin-amd64", RedisProcess.resourceFor("Mac OS X", "x86_64"));
    }

    @Test
    void resourceFor_redis62_namesTheCodemonsturBuilds() {
        assertEquals("redis-server-6.2.6-v5-linux-amd64", RedisProcess.resourceFor(RedisProcess.REDIS_62, "Linux", "amd64"));
        assertEquals("redis-server-6.2.7-linux-arm64", RedisProcess.resourceFor(RedisProcess.REDIS_62, "Linux", "aarch64"));
        assertEquals("redis-server-6.2.6-v5-darwin-arm64",
                RedisProcess.resourceFor(RedisProcess.REDIS_62, "Mac OS X", "aarch64"));
        assertThrows(IllegalStateException.class, () -> RedisProcess.resourceFor(RedisProcess.REDIS_62, "Linux", "ppc64le"));
    }

    @Test
    void startOnFreePort_serverChoiceThatIsNoExecutable_failsNamingTheProperty() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RedisProcess.startOnFreePort("/no/such/redis-server"));
        assertTrue(e.getMessage().contains(RedisProcess.SERVER_PROPERTY), e::getMessage);
    }

    @Test
    void resourceFor_platformWithoutBinary_failsNamingItAndTheShippedOnes() {
        for (List<String> p : List.of(List.of("Windows 11", "amd64"), List.of("Linux", "ppc64le"),
                List.of("Mac OS X", "x86"), List.of("FreeBSD", "amd64"))) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> RedisProcess.resourceFor(p.get(0), p.get(1)), p::toString);
            assertTrue(e.getMessage().contains(p.get(0) + "/" + p.get(1)), e::getMessage);
            assertTrue(e.getMessage().contains("linux-amd64"), e::getMessage);
        }
    }

    @Test
    void shipped_everyPlatformNamed_isInTheBinariesJar() throws IOException {
        for (String platform : RedisProcess.SHIPPED) {
            String resource = "redis-server-" + RedisProcess.VERSION + "-" + platform;
            try (InputStream in = RedisProcess.class.getClassLoader().getResourceAsStream(resource)) {
                assertNotNull(in, resource + " is not in org.signal:embedded-redis: VERSION or SHIPPED is out of date");
            }
        }
    }

    @Test
    void startOnFreePort_thisPlatform_answersPingUntilClosed() throws IOException {
        assumeEmbeddedAllowed();
        RedisProcess server = RedisProcess.startOnFreePort();
        try {
            assertEquals("127.0.0.1", server.host());
            assertTrue(server.isAlive(), server::toString);
            assertEquals("+PONG\r\n", ping(server.port()));
        } finally {
            server.close();
        }
        assertFalse(server.isAlive(), "close() waits until the process has exited");
        assertThrows(IOException.class, () -> ping(server.port()), "nothing listens after close()");
        server.close(); // a second close is harmless
    }

    @Test
    void start_portAlreadyTaken_failsWithIOExceptionAndLeavesNoProcess() throws IOException {
        assumeEmbeddedAllowed();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            IOException e = assertThrows(IOException.class, () -> RedisProcess.start(taken.getLocalPort()));
            assertTrue(e.getMessage().contains("redis-server exited with"), e::getMessage);
        }
        assertEquals(0, ProcessHandle.current().children()
                .filter(c -> c.info().command().orElse("").endsWith("redis-server")).count(),
                "a server that failed to start is not left running");
    }

    @Test
    void start_portOutOfRange_isRefusedBeforeAnythingStarts() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisProcess.start(0));
        assertEquals("port must be 1 to 65535, was 0", e.getMessage());
    }

    /** Like the kit's fixture: with REDIS_URL set, this machine may have no binary it can run. */
    private static void assumeEmbeddedAllowed() {
        String url = System.getenv("REDIS_URL");
        assumeTrue(url == null || url.isBlank(), "REDIS_URL is set: this machine may have no embedded redis-server to start");
    }

    private static String ping(int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(s.getInputStream().readNBytes(7), StandardCharsets.US_ASCII);
        }
    }
}
