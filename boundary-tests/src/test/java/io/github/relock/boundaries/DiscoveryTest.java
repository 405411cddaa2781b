package io.github.relock.boundaries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.RedisFixture;
import io.github.relock.tck.RedisServer;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;


/** Driver discovery with both drivers on the class path, and bad input to the factories. */
@ExtendWith(RedisFixture.class)
class DiscoveryTest {

    @Test
    void create_jedisClient_picksJedisDriver(RedisServer server) {
        try (redis.clients.jedis.RedisClient jedis = redis.clients.jedis.RedisClient.create(server.uri());
             LockClient locks = RedisLocks.create(jedis)) {
            assertTrue(locks.getLock("discovery:j").tryLock());
            locks.getLock("discovery:j").unlock();
        }
    }

    @Test
    void create_lettuceClient_picksLettuceDriver(RedisServer server) {
        RedisClient lettuce = RedisClient.create(server.uri().toString());
        try (LockClient locks = RedisLocks.create(lettuce)) {
            assertTrue(locks.getLock("discovery:l").tryLock());
            locks.getLock("discovery:l").unlock();
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void connect_twoDriversPresent_errorListsThem(RedisServer server) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RedisLocks.connect(server.uri().toString()));
        assertTrue(e.getMessage().contains("jedis") && e.getMessage().contains("lettuce"), e.getMessage());
        assertTrue(e.getMessage().contains("relock.driver"), e.getMessage());
    }

    @Test
    void connect_driverPropertyPicksOne(RedisServer server) {
        System.setProperty(RedisLocks.DRIVER_PROPERTY, "jedis");
        try (LockClient locks = RedisLocks.connect(server.uri().toString())) {
            assertTrue(locks.getLock("discovery:p").tryLock());
            locks.getLock("discovery:p").unlock();
        } finally {
            System.clearProperty(RedisLocks.DRIVER_PROPERTY);
        }
    }

    @Test
    void connect_unknownDriverProperty_errorNamesIt(RedisServer server) {
        System.setProperty(RedisLocks.DRIVER_PROPERTY, "nope");
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RedisLocks.connect(server.uri().toString()));
            assertTrue(e.getMessage().contains("nope"), e.getMessage());
        } finally {
            System.clearProperty(RedisLocks.DRIVER_PROPERTY);
        }
    }

    @Test
    void create_null_npeNamesArgument() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> RedisLocks.create(null));
        assertTrue(e.getMessage().contains("nativeClient"), e.getMessage());
    }

    @Test
    void create_unsupportedType_errorNamesType() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisLocks.create("not a client"));
        assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
    }

    @Test
    void connect_malformedUri_errorNamesIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisLocks.connect("redis://bad host:x"));
        assertTrue(e.getMessage().contains("bad host"), e.getMessage());
        IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class, () -> RedisLocks.connect("http://localhost:6379"));
        assertTrue(scheme.getMessage().contains("http://localhost:6379"), scheme.getMessage());
        assertEquals(NullPointerException.class,
                assertThrows(NullPointerException.class, () -> RedisLocks.connect((String) null)).getClass());
    }
}
