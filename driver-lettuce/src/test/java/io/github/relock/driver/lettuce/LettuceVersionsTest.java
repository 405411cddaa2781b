package io.github.relock.driver.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.lettuce.core.RedisClient;
import io.netty.util.Version;
import org.junit.jupiter.api.Test;

/**
 * Which Lettuce and Netty the tests run on. The build tells the test JVM the versions it put on the
 * class path ({@code relock.expect.lettuce}, {@code relock.expect.netty}: the managed ones, or the
 * old ones in a {@code lettuce-*} profile), so a profile that silently ran on the compile-time
 * client fails here.
 */
class LettuceVersionsTest {

    @Test
    void runningLettuceAndNetty_areTheVersionsTheBuildPutOnTheClassPath() {
        String lettuce = System.getProperty("relock.expect.lettuce");
        String netty = System.getProperty("relock.expect.netty");
        assertNotNull(lettuce, "the build sets relock.expect.lettuce for the test JVM");
        assertNotNull(netty, "the build sets relock.expect.netty for the test JVM");
        String running = RedisClient.class.getPackage().getImplementationVersion(); // "6.6.0.RELEASE/643bd47"
        assertNotNull(running, "lettuce-core's manifest names its version");
        assertEquals(lettuce, running.split("/")[0]);
        assertEquals(netty, Version.identify().get("netty-common").artifactVersion());
    }
}
