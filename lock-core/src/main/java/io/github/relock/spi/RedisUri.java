package io.github.relock.spi;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;

/**
 * A parsed {@code redis://[user:password@]host[:port][/db]} or {@code rediss://...} URI, and the
 * one place URIs are masked for messages: every driver and core parse and redact through it, so
 * a password never reaches a log line or an exception.
 *
 * <p>Thread-safety: immutable.
 */
public final class RedisUri {
    private static final String ALLOWED = "; expected redis://[user:password@]host[:port][/db] or rediss://...";

    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final int database;
    private final boolean ssl;
    private final String redacted;

    private RedisUri(String host, int port, String user, String password, int database, boolean ssl, String redacted) {
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
        this.database = database;
        this.ssl = ssl;
        this.redacted = redacted;
    }

    /**
     * @param uri a Redis URI
     * @return it, parsed: port 6379 and database 0 when absent; {@code redis://secret@host} is a
     *     password alone, as {@code redis-cli} reads it
     * @throws IllegalArgumentException naming the (masked) URI and what is allowed, if the scheme is
     *     not redis/rediss, the host is missing, the path is not a database number, or it has a query
     *     or fragment
     */
    public static RedisUri parse(URI uri) {
        Objects.requireNonNull(uri, "uri must not be null");
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        String shown = redact(uri);
        if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
            throw new IllegalArgumentException("cannot use Redis URI '" + shown + "': scheme must be redis or rediss, was "
                    + (scheme == null ? "none" : "'" + scheme + "'") + ALLOWED);
        }
        String host = uri.getHost();
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("cannot use Redis URI '" + shown + "': no host" + ALLOWED);
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1); // IPv6 literal
        }
        String user = null;
        String password = null;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                password = decode(userInfo);
            } else {
                String u = userInfo.substring(0, colon);
                user = u.isEmpty() ? null : decode(u);
                password = decode(userInfo.substring(colon + 1));
            }
        }
        int db = 0;
        String path = uri.getPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            String d = path.substring(1);
            try {
                db = Integer.parseInt(d);
            } catch (NumberFormatException e) {
                db = -1;
            }
            if (db < 0) {
                throw new IllegalArgumentException("cannot use Redis URI '" + shown
                        + "': the path must be a database number >= 0, was '/" + d + "'" + ALLOWED);
            }
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("cannot use Redis URI '" + shown
                    + "': query parameters and fragments are not supported" + ALLOWED);
        }
        return new RedisUri(host, uri.getPort() < 0 ? 6379 : uri.getPort(), user, password, db, "rediss".equals(scheme), shown);
    }

    /**
     * @param uri any URI
     * @return it with the password replaced by {@code ***} (the user name kept), for messages
     */
    public static String redact(URI uri) {
        String info = uri.getRawUserInfo();
        if (info == null) {
            return uri.toString();
        }
        int colon = info.indexOf(':');
        String shown = colon < 0 ? "***" : info.substring(0, colon) + ":***";
        return uri.toString().replace(info + "@", shown + "@");
    }

    /**
     * Masks a URI given as text, which need not parse (for the message that says it does not):
     * whatever stands between {@code ://} and the last {@code @} is taken as user information.
     *
     * @param uri any text
     * @return it with the password replaced by {@code ***} (the user name kept)
     */
    public static String redact(String uri) {
        Objects.requireNonNull(uri, "uri must not be null");
        int start = uri.indexOf("://");
        if (start < 0) {
            return uri;
        }
        start += 3;
        int at = uri.lastIndexOf('@');
        if (at < start) {
            return uri;
        }
        String info = uri.substring(start, at);
        int colon = info.indexOf(':');
        return uri.substring(0, start) + (colon < 0 ? "***" : info.substring(0, colon) + ":***") + uri.substring(at);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** @return the host (an IPv6 literal without brackets) */
    public String host() {
        return host;
    }

    /** @return the port, 6379 when the URI has none */
    public int port() {
        return port;
    }

    /** @return the ACL user name, or null */
    public String user() {
        return user;
    }

    /** @return the password, or null; never put it in a message, use {@link #redacted()} */
    public String password() {
        return password;
    }

    /** @return the database number, 0 when the URI has none */
    public int database() {
        return database;
    }

    /** @return whether the scheme is {@code rediss} (TLS) */
    public boolean ssl() {
        return ssl;
    }

    /** @return the URI with its password masked */
    public String redacted() {
        return redacted;
    }

    @Override
    public String toString() {
        return redacted;
    }
}
