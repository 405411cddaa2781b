package io.github.relock.core.internal;

import io.github.relock.spi.Script;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Lua scripts, one resource per operation, loaded and hashed once. Redis scripts cannot import
 * each other, so a line {@code --@include name} is replaced at load time by
 * {@code scripts/fragments/name.lua} (the queue prune and the publish helper are shared this way).
 */
final class Scripts {
    static final Script LOCK_ACQUIRE = load("lock-acquire");
    static final Script LOCK_RELEASE = load("lock-release");
    static final Script LOCK_FORCE_RELEASE = load("lock-force-release");
    static final Script LOCK_RENEW = load("lock-renew");
    static final Script LOCK_RENEW_NODE = load("lock-renew-node");
    static final Script LOCK_STATE = load("lock-state");
    static final Script LOCK_EXPIRE = load("lock-expire");
    static final Script READ_EXPIRE = load("read-expire");
    static final Script FAIR_ACQUIRE = load("fair-acquire");
    static final Script FAIR_RELEASE = load("fair-release");
    static final Script FAIR_FORCE_RELEASE = load("fair-force-release");
    static final Script FAIR_ACQUIRE_FAILED = load("fair-acquire-failed");
    static final Script FENCED_ACQUIRE = load("fenced-acquire");
    static final Script FENCED_TOKEN = load("fenced-token");
    static final Script READ_ACQUIRE = load("read-acquire");
    static final Script READ_RELEASE = load("read-release");
    static final Script WRITE_ACQUIRE = load("write-acquire");
    static final Script WRITE_RELEASE = load("write-release");
    static final Script RW_FORCE_RELEASE = load("rw-force-release");
    static final Script RW_STATE = load("rw-state");
    static final Script SYNC_BARRIER = load("sync-barrier");

    /** @return a marker key for {@link #SYNC_BARRIER} in the same cluster slot as {@code key} */
    static String barrierKey(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return key.substring(open, close + 1) + ":relock-sync-barrier";
            }
        }
        if (key.indexOf('}') < 0) {
            return "{" + key + "}:relock-sync-barrier"; // the whole key becomes the tag
        }
        // A '}' but no usable tag (rare): find a short tag hashing to the same slot.
        int slot = Slots.slot(key);
        for (int i = 0; ; i++) {
            String tag = Integer.toString(i, 36);
            if (Slots.slot(tag) == slot) {
                return "{" + tag + "}:relock-sync-barrier";
            }
        }
    }

    private Scripts() {
    }

    private static Script load(String name) {
        StringBuilder text = new StringBuilder();
        for (String line : read("scripts/" + name + ".lua").split("\n", -1)) {
            if (line.startsWith("--@include ")) {
                text.append(read("scripts/fragments/" + line.substring("--@include ".length()).strip() + ".lua"));
            } else {
                text.append(line).append('\n');
            }
        }
        return new Script(name, text.toString());
    }

    private static String read(String path) {
        try (InputStream in = Scripts.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + path + " in lock-core");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + path, e);
        }
    }
}
