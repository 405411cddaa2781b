package io.github.relock.boundaries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.lettuce.core.RedisClient;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;


/**
 * Driver discovery with both drivers on the class path, and bad input to the factories. This
 * module's test {@code META-INF/services} also registers two test-only drivers: {@link OldSpiDriver}
 * (built for another SPI version: dropped, and named in the errors) and {@link WrapOnlyDriver}
 * (opens no connection from a URI: never a candidate for {@code connect}).
 */
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
    void create_springConnectionFactory_picksSpringDataDriver(RedisServer server) {
        var factory = new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory(
                new org.springframework.data.redis.connection.RedisStandaloneConfiguration(server.host(), server.port()));
        factory.afterPropertiesSet();
        try (LockClient locks = RedisLocks.create(factory)) {
            assertTrue(locks.getLock("discovery:s").tryLock());
            locks.getLock("discovery:s").unlock();
        } finally {
            factory.destroy();
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
    void connect_wrapOnlyDriverPresent_candidatesAreOnlyTheDriversThatOpenUris(RedisServer server) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RedisLocks.connect(server.uri().toString()));
        assertTrue(e.getMessage().contains("jedis") && e.getMessage().contains("lettuce"), e.getMessage());
        assertFalse(e.getMessage().contains("wrap-only"), "a driver that opens no URI was a candidate: " + e.getMessage());
    }

    @Test
    void connect_driverPropertyNamesWrapOnlyDriver_errorSaysItCannotOpenUris(RedisServer server) {
        System.setProperty(RedisLocks.DRIVER_PROPERTY, "wrap-only");
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RedisLocks.connect(server.uri().toString()));
            assertTrue(e.getMessage().contains("'wrap-only' is present but cannot serve"), e.getMessage());
        } finally {
            System.clearProperty(RedisLocks.DRIVER_PROPERTY);
        }
    }

    @Test
    void connect_driverPropertyNamesDroppedDriver_errorSaysWhichSpiVersions(RedisServer server) {
        System.setProperty(RedisLocks.DRIVER_PROPERTY, "old-spi");
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RedisLocks.connect(server.uri().toString()));
            assertNamesOldSpiDriver(e);
        } finally {
            System.clearProperty(RedisLocks.DRIVER_PROPERTY);
        }
    }

    @Test
    void create_unsupportedType_errorNamesDroppedDriverAndSpiVersions() {
        assertNamesOldSpiDriver(assertThrows(IllegalArgumentException.class, () -> RedisLocks.create("not a client")));
    }

    @Test
    void createAndConnect_onlyDroppedDriverPresent_bothIllegalStateNamingIt(@TempDir Path services) throws Exception {
        // lock-api, lock-core and the old driver alone, in a loader of their own: no usable driver
        String file = OldSpiDriver.class.getName().replace('.', '/') + ".class";
        Path copy = services.resolve(file);
        Files.createDirectories(copy.getParent());
        try (InputStream in = OldSpiDriver.class.getClassLoader().getResourceAsStream(file)) {
            Files.copy(in, copy);
        }
        Path registration = services.resolve("META-INF/services/" + RedisDriverProvider.class.getName());
        Files.createDirectories(registration.getParent());
        Files.writeString(registration, OldSpiDriver.class.getName() + "\n");
        URL[] path = {location(RedisLocks.class), location(LockClient.class), services.toUri().toURL()};
        try (URLClassLoader alone = new URLClassLoader(path, ClassLoader.getPlatformClassLoader())) {
            Class<?> locks = Class.forName(RedisLocks.class.getName(), true, alone);
            assertEquals(alone, locks.getClassLoader(), "RedisLocks came from the test's class path");
            Throwable create = thrown(() -> locks.getMethod("create", Object.class).invoke(null, new Object()));
            Throwable connect = thrown(() -> locks.getMethod("connect", String.class).invoke(null, "redis://localhost:6379"));
            for (Throwable e : List.of(create, connect)) {
                assertInstanceOf(IllegalStateException.class, e, "'no usable driver' must be one exception type");
                assertNamesOldSpiDriver(e);
                assertTrue(e.getMessage().contains("relock-jedis") && e.getMessage().contains("relock-lettuce"), e.getMessage());
            }
            Throwable malformed = thrown(() -> locks.getMethod("connect", String.class).invoke(null, "redis://localhost/abc"));
            assertInstanceOf(IllegalArgumentException.class, malformed, "a bad URI is the caller's fault, drivers or not");
        }
    }

    private static void assertNamesOldSpiDriver(Throwable e) {
        String m = e.getMessage();
        assertTrue(m.contains("'old-spi'") && m.contains(OldSpiDriver.class.getName())
                && m.contains("built for SPI version " + OldSpiDriver.OLD_SPI)
                && m.contains("speaks " + RedisDriverProvider.SPI_VERSION), "the dropped driver is not named fully: " + m);
    }

    private static URL location(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation();
    }

    private interface Call {
        void run() throws Exception;
    }

    private static Throwable thrown(Call call) {
        InvocationTargetException e = assertThrows(InvocationTargetException.class, call::run);
        return e.getCause();
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
