package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.RedisFixture;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InventoryTest {

    @Test
    void reserve_driverFoundByServiceLoader_onExpectedPath() {
        String expected = System.getProperty("expected.path");
        boolean named = RedisLocks.class.getModule().isNamed();
        assertEquals(expected.equals("module"), named, "lock-core loaded as named module: " + named);
        assertTrue(Inventory.reserve(RedisFixture.shared().uri().toString()));
    }

    @Test
    void kit_baseArtifactAlone_resolvesNoRedisson() {
        // A third-party driver runs the base kit with only lock-tck and its own client on the path.
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.redisson.Redisson"));
    }

    /**
     * A plain {@code java -m} launch, as a user runs an application, with only the application's
     * runtime dependencies on the module path and only one driver among them (so the other
     * driver's descriptor cannot resolve a module for this one). No {@code --add-modules}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jedis", "lettuce"})
    void plainModulePathLaunch_eachDriver_needsNoAddModules(String driver) throws Exception {
        assumeTrue(System.getProperty("expected.path").equals("module"), "launched once, from the module-path run");
        String other = driver.equals("jedis") ? "relock-lettuce" : "relock-jedis";
        List<String> runtime = Arrays.stream(Files.readString(Path.of(System.getProperty("runtime.path.file"))).strip()
                        .split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith(other + "-"))
                .collect(Collectors.toList());
        runtime.add(0, Path.of("target", "classes").toAbsolutePath().toString());
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "--module-path", String.join(File.pathSeparator, runtime),
                "-m", "com.example.consumer/com.example.consumer.Main", driver, RedisFixture.shared().uri().toString())
                .redirectErrorStream(true)
                .start();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the launch did not finish within 60 s");
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, child.exitValue(), "java -m with driver " + driver + " failed:\n" + output);
        assertTrue(output.contains("locked and released through " + driver + " on the module path: true"), output);
    }
}
