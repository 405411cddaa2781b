package io.github.relock.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** RedisUri: one parser and one password mask for every driver and core. */
class RedisUriTest {

    @Test
    void parse_fullUri_everyPart() {
        RedisUri u = RedisUri.parse(URI.create("rediss://alice:s%3Acret@cache.example:6380/3"));
        assertEquals("cache.example", u.host());
        assertEquals(6380, u.port());
        assertEquals("alice", u.user());
        assertEquals("s:cret", u.password());
        assertEquals(3, u.database());
        assertTrue(u.ssl());
        assertEquals("rediss://alice:***@cache.example:6380/3", u.redacted());
    }

    @Test
    void parse_defaults_portDatabaseNoAuth() {
        RedisUri u = RedisUri.parse(URI.create("redis://localhost"));
        assertEquals(6379, u.port());
        assertEquals(0, u.database());
        assertNull(u.user());
        assertNull(u.password());
        assertFalse(u.ssl());
    }

    @Test
    void parse_passwordAlone_andIpv6Literal() {
        RedisUri u = RedisUri.parse(URI.create("redis://secret@[::1]:7000"));
        assertNull(u.user());
        assertEquals("secret", u.password());
        assertEquals("::1", u.host());
        assertEquals("redis://***@[::1]:7000", u.redacted());
    }

    @Test
    void parse_badUris_rejectedWithMaskedUriAndWhatIsAllowed() {
        IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class,
                () -> RedisUri.parse(URI.create("http://u:pw@localhost")));
        assertTrue(scheme.getMessage().contains("'http'") && scheme.getMessage().contains("expected redis://")
                && !scheme.getMessage().contains("pw@"), scheme.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RedisUri.parse(URI.create("redis:///0")));
        IllegalArgumentException db = assertThrows(IllegalArgumentException.class,
                () -> RedisUri.parse(URI.create("redis://localhost/abc")));
        assertTrue(db.getMessage().contains("/abc"), db.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RedisUri.parse(URI.create("redis://localhost?timeout=1")));
        assertThrows(NullPointerException.class, () -> RedisUri.parse(null));
    }

    @Test
    void redact_keepsUserMasksPassword_leavesOthersAlone() {
        assertEquals("redis://bob:***@h:1", RedisUri.redact(URI.create("redis://bob:pw@h:1")));
        assertEquals("redis://h:1", RedisUri.redact(URI.create("redis://h:1")));
    }

    @Test
    void redactText_unparseableUri_passwordMaskedUserKept() {
        assertEquals("redis://bob:***@bad host:1", RedisUri.redact("redis://bob:p@ss word@bad host:1"));
        assertEquals("redis://***@h", RedisUri.redact("redis://secret@h"));
        assertEquals("redis://bad host:x", RedisUri.redact("redis://bad host:x"));
        assertEquals("not a uri @ all", RedisUri.redact("not a uri @ all"));
    }
}
