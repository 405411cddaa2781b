package com.example.resp;

import io.github.relock.spi.RedisUri;
import java.net.URI;
import java.util.Objects;

/**
 * The "native client" an application hands to {@code RedisLocks.create}: where one Redis server is
 * and how to log in. It holds no connection: the driver opens its own ({@link RespExecutor}), so
 * closing an executor never touches anything of the application's.
 *
 * <p>Thread-safety: immutable.
 *
 * @param host the server's host
 * @param port its port
 * @param user the ACL user, or null for the default user
 * @param password the password, or null for none
 * @param database the database number
 */
public record RespEndpoint(String host, int port, String user, String password, int database) {

    /** Validates the components. */
    public RespEndpoint {
        Objects.requireNonNull(host, "host");
        if (port <= 0 || port > 65_535 || database < 0) {
            throw new IllegalArgumentException("port must be 1 to 65535 and database >= 0, were " + port + " and " + database);
        }
        if (user != null && password == null) {
            throw new IllegalArgumentException("a user needs a password");
        }
    }

    /**
     * @param host the server's host
     * @param port its port
     * @return the endpoint of the default user, database 0
     */
    public static RespEndpoint of(String host, int port) {
        return new RespEndpoint(host, port, null, null, 0);
    }

    /**
     * @param uri {@code redis://[user:password@]host[:port][/db]}; {@code rediss://} is refused (no TLS here)
     * @return its endpoint
     * @throws IllegalArgumentException if the URI is not one this driver can use
     */
    public static RespEndpoint of(URI uri) {
        RedisUri parsed = RedisUri.parse(uri);
        if (parsed.ssl()) {
            throw new IllegalArgumentException("the RESP reference driver has no TLS: " + parsed.redacted());
        }
        return new RespEndpoint(parsed.host(), parsed.port(), parsed.user(), parsed.password(), parsed.database());
    }

    /** @return host and port, never the password */
    @Override
    public String toString() {
        return host + ":" + port + (user == null ? "" : " as " + user) + (database == 0 ? "" : " db " + database);
    }
}
