package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.core.RedisLocks;
import io.github.relock.tck.RedisFixture;
import org.junit.jupiter.api.Test;

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
}
