package io.github.relock.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A Lua script with its SHA-1, computed once. Drivers send {@code EVALSHA sha1()} for a
 * {@link ScriptCall#bySha} call and {@code EVAL text()} for a {@link ScriptCall#byText} one.
 *
 * <p>Thread-safety: immutable.
 */
public final class Script {
    private final String name;
    private final String text;
    private final String sha1;

    /**
     * @param name a short name for messages and logs, e.g. {@code "lock-acquire"}
     * @param text the Lua source
     */
    public Script(String name, String text) {
        this.name = Objects.requireNonNull(name, "name");
        this.text = Objects.requireNonNull(text, "text");
        this.sha1 = sha1Hex(text);
    }

    /** @return the short name */
    public String name() {
        return name;
    }

    /** @return the Lua source */
    public String text() {
        return text;
    }

    /** @return lowercase hex SHA-1 of the UTF-8 source, as Redis computes it */
    public String sha1() {
        return sha1;
    }

    @Override
    public String toString() {
        return "Script[" + name + ", " + sha1 + "]";
    }

    private static String sha1Hex(String text) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }
}
