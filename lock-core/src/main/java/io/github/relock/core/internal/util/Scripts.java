package io.github.relock.core.internal.util;

import io.github.relock.spi.Script;
import io.github.relock.spi.Slots;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Lua scripts, one resource per operation, loaded and hashed once. Redis scripts cannot import
 * each other, so a line {@code --@include name} is replaced at load time by
 * {@code scripts/fragments/name.lua} (the queue prune and the publish helper are shared this way).
 */
public final class Scripts {
    /** Where the scripts live (resources of lock-core, beside the old package layout). */
    private static final String BASE = "/io/github/relock/core/internal/scripts/";

    public static final Script LOCK_ACQUIRE = load("lock-acquire");
    public static final Script LOCK_RELEASE = load("lock-release");
    public static final Script LOCK_FORCE_RELEASE = load("lock-force-release");
    public static final Script LOCK_WAKE_LEAVE = load("lock-wake-leave");
    public static final Script LOCK_RENEW = load("lock-renew");
    public static final Script LOCK_RENEW_NODE = load("lock-renew-node");
    public static final Script LOCK_STATE = load("lock-state");
    public static final Script LOCK_EXPIRE = load("lock-expire");
    public static final Script READ_EXPIRE = load("read-expire");
    public static final Script FAIR_ACQUIRE = load("fair-acquire");
    public static final Script FAIR_RELEASE = load("fair-release");
    public static final Script FAIR_FORCE_RELEASE = load("fair-force-release");
    public static final Script FAIR_ACQUIRE_FAILED = load("fair-acquire-failed");
    public static final Script FENCED_ACQUIRE = load("fenced-acquire");
    public static final Script FENCED_TOKEN = load("fenced-token");
    public static final Script READ_ACQUIRE = load("read-acquire");
    public static final Script READ_RELEASE = load("read-release");
    public static final Script WRITE_ACQUIRE = load("write-acquire");
    public static final Script WRITE_RELEASE = load("write-release");
    public static final Script RW_FORCE_RELEASE = load("rw-force-release");
    public static final Script RW_STATE = load("rw-state");
    public static final Script REPLICA_BARRIER = load("replica-barrier");
    public static final Script INSPECT = load("inspect");
    public static final Script OWNER_REGISTER = load("owner-register");
    public static final Script OWNER_READ = load("owner-read");
    public static final Script OWNER_DELETE = load("owner-delete");
    public static final Script GROUPED_ACQUIRE = load("grouped-acquire");
    public static final Script GROUPED_RELEASE = load("grouped-release");
    public static final Script GROUPED_FORCE_RELEASE = load("grouped-force-release");
    public static final Script GROUPED_EXPIRE = load("grouped-expire");
    public static final Script GROUPED_STATE = load("grouped-state");

    /** @return a marker key for {@link #REPLICA_BARRIER} in the same cluster slot as {@code key} */
    public static String barrierKey(String key) {
        return sameSlotTag(key) + ":relock-sync-barrier";
    }

    /** @return a hash tag <code>&#123;...&#125;</code> whose cluster slot is {@code key}'s */
    public static String sameSlotTag(String key) {
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                return key.substring(open, close + 1);
            }
        }
        if (key.indexOf('}') < 0) {
            return "{" + key + "}"; // the whole key becomes the tag
        }
        // A '}' but no usable tag (rare): find a short tag hashing to the same slot.
        int slot = Slots.slot(key);
        for (int i = 0; ; i++) {
            String tag = Integer.toString(i, 36);
            if (Slots.slot(tag) == slot) {
                return "{" + tag + "}";
            }
        }
    }

    private Scripts() {
    }

    /** @return the script {@code name} ({@code scripts/<name>.lua}) with its includes resolved */
    public static Script load(String name) {
        StringBuilder text = new StringBuilder();
        for (String line : read(BASE + name + ".lua").split("\n", -1)) {
            if (line.startsWith("--@include ")) {
                text.append(read(BASE + "fragments/" + line.substring("--@include ".length()).strip() + ".lua"));
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
