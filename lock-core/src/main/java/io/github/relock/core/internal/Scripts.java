package io.github.relock.core.internal;

import io.github.relock.spi.Script;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The Lua scripts, one resource per operation, loaded and hashed once. */
final class Scripts {
    static final Script LOCK_ACQUIRE = load("lock-acquire");
    static final Script LOCK_RELEASE = load("lock-release");
    static final Script LOCK_FORCE_RELEASE = load("lock-force-release");
    static final Script LOCK_RENEW = load("lock-renew");
    static final Script LOCK_STATE = load("lock-state");

    private Scripts() {
    }

    private static Script load(String name) {
        String path = "scripts/" + name + ".lua";
        try (InputStream in = Scripts.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + path + " in lock-core");
            }
            return new Script(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + path, e);
        }
    }
}
