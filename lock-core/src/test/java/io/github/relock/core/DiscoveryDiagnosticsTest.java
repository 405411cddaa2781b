package io.github.relock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Discovery explains itself, as SLF4J's does: drivers it dropped are named in the errors, every
 * "no usable driver" is the same exception type from create and connect, and a driver that only
 * wraps clients never makes connect(uri) ambiguous. Two test-only drivers are registered in this
 * module's test META-INF/services: one built for another SPI version, one that opens no URI.
 */
class DiscoveryDiagnosticsTest {

    @Test
    void discover_spiVersionMismatch_droppedAndNamed() {
        RedisLocks.Discovery d = RedisLocks.discover();
        assertEquals(List.of("wrap-only"), d.usable().stream().map(RedisDriverProvider::name).toList());
        assertEquals(1, d.dropped().size(), "dropped: " + d.dropped());
        assertTrue(d.dropped().get(0).contains("'old'") && d.dropped().get(0).contains("SPI version 0")
                && d.dropped().get(0).contains("speaks " + RedisDriverProvider.SPI_VERSION), d.dropped().get(0));
    }

    @Test
    void noUsableDriver_errorNamesTheDroppedOnesAndTheArtifacts() {
        IllegalStateException e = new RedisLocks.Discovery(List.of(), List.of("driver 'old' (x.Old) built for SPI version 0"))
                .noDriver();
        assertTrue(e.getMessage().contains("driver 'old'") && e.getMessage().contains("SPI version "
                + RedisDriverProvider.SPI_VERSION) && e.getMessage().contains("relock-jedis"), e.getMessage());
    }

    @Test
    void create_unsupportedClient_errorListsUsableAndDroppedDrivers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisLocks.create(new Object()));
        assertTrue(e.getMessage().contains("java.lang.Object") && e.getMessage().contains("wrap-only")
                && e.getMessage().contains("'old'"), e.getMessage());
    }

    @Test
    void connect_onlyWrapOnlyDrivers_sameExceptionTypeAsNoDriver_namesThem() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RedisLocks.connect("redis://user:secret@localhost:1"));
        assertTrue(e.getMessage().contains("wrap-only") && e.getMessage().contains("RedisLocks.create"), e.getMessage());
        assertTrue(e.getMessage().contains("'old'") && e.getMessage().contains("SPI version 0"),
                "the driver dropped for its SPI version is not named: " + e.getMessage());
        assertTrue(!e.getMessage().contains("secret"), "the password leaked into the message: " + e.getMessage());
    }

    @Test
    void connect_unparseableUriWithPassword_illegalArgumentWithoutThePassword() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RedisLocks.connect("redis://bob:secret@bad host:1"));
        assertTrue(e.getMessage().contains("redis://bob:***@bad host:1"), e.getMessage());
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertTrue(!t.getMessage().contains("secret"), "the password leaked into: " + t);
        }
    }

    @Test
    void connect_uriRedisUriRefuses_illegalArgumentBeforeAnyDriverIsAsked() {
        for (String bad : List.of("redis://localhost/abc", "redis://localhost?timeout=1", "redis-sentinel://localhost")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisLocks.connect(bad), bad);
            assertTrue(e.getMessage().contains("cannot use Redis URI") && e.getMessage().contains("expected redis://"),
                    e.getMessage());
        }
    }

    /** Built for an SPI version this lock-core does not speak. */
    public static final class OldSpiDriver implements RedisDriverProvider {
        @Override
        public String name() {
            return "old";
        }

        @Override
        public int spiVersion() {
            return 0;
        }

        @Override
        public boolean supports(Object nativeClient) {
            return true;
        }

        @Override
        public CommandExecutor create(Object nativeClient, DriverOptions options) {
            throw new AssertionError("a dropped driver was used");
        }

        @Override
        public CommandExecutor connect(URI uri, DriverOptions options) {
            throw new AssertionError("a dropped driver was used");
        }
    }

    /** Wraps only its own client type and opens no connection from a URI. */
    public static final class WrapOnlyDriver implements RedisDriverProvider {
        @Override
        public String name() {
            return "wrap-only";
        }

        @Override
        public int spiVersion() {
            return SPI_VERSION;
        }

        @Override
        public boolean supports(Object nativeClient) {
            return false;
        }

        @Override
        public boolean supportsUri(URI uri) {
            return false;
        }

        @Override
        public CommandExecutor create(Object nativeClient, DriverOptions options) {
            throw new IllegalArgumentException("wrap-only supports no client in this test");
        }

        @Override
        public CommandExecutor connect(URI uri, DriverOptions options) {
            throw new AssertionError("connect was called on a driver that opens no URI");
        }
    }
}
