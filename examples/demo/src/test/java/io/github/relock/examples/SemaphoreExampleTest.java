package io.github.relock.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.fixtures.RedisFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The semaphore example on the fixture's Redis: never more exports at once than permits, none lost. */
class SemaphoreExampleTest {

    @Test
    void mixedFleet_neverMoreThanThePermits_allComeBack() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = SemaphoreExample.run(RedisTarget.parse(RedisFixture.shared().uri().toString()),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(Main.EXIT_OK, code, out);
        assertTrue(out.contains("permits left 3"), out);
    }
}
