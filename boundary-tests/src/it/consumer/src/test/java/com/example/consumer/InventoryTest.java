package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
