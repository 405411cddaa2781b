package io.github.relock.spi;

import java.util.List;
import java.util.Objects;

/**
 * One script call for {@link CommandExecutor}: the script, its KEYS and ARGV, and how it is sent,
 * by SHA ({@code EVALSHA script.sha1()}, {@link #bySha}) or by text ({@code EVAL script.text()},
 * {@link #byText}). Core sends by SHA and, on {@link NoScriptException}, once more by text
 * ({@link #withText()}), which also caches the script on that node.
 *
 * <p>Thread-safety: immutable.
 */
public final class ScriptCall {
    private final Script script;
    private final List<String> keys;
    private final List<String> args;
    private final boolean bySha;

    private ScriptCall(Script script, List<String> keys, List<String> args, boolean bySha) {
        this.script = Objects.requireNonNull(script, "script must not be null");
        this.keys = copy(keys, "keys");
        this.args = copy(args, "args");
        this.bySha = bySha;
    }

    /**
     * {@code EVALSHA script.sha1()}.
     *
     * @param script the script
     * @param keys KEYS, sent as UTF-8 bulk strings; no null element
     * @param args ARGV, sent as UTF-8 bulk strings; no null element
     * @return the call
     * @throws NullPointerException if any argument or element is null
     */
    public static ScriptCall bySha(Script script, List<String> keys, List<String> args) {
        return new ScriptCall(script, keys, args, true);
    }

    /**
     * {@code EVAL script.text()}; otherwise as {@link #bySha}.
     *
     * @param script the script
     * @param keys KEYS, sent as UTF-8 bulk strings; no null element
     * @param args ARGV, sent as UTF-8 bulk strings; no null element
     * @return the call
     * @throws NullPointerException if any argument or element is null
     */
    public static ScriptCall byText(Script script, List<String> keys, List<String> args) {
        return new ScriptCall(script, keys, args, false);
    }

    /** @return this call sent by text ({@code EVAL}): the NOSCRIPT fallback; this call if it already is */
    public ScriptCall withText() {
        return bySha ? new ScriptCall(script, keys, args, false) : this;
    }

    /** @return the script */
    public Script script() {
        return script;
    }

    /** @return KEYS, unmodifiable; on a cluster {@code keys().get(0)} chooses the node */
    public List<String> keys() {
        return keys;
    }

    /** @return ARGV, unmodifiable */
    public List<String> args() {
        return args;
    }

    /** @return {@code true} for {@code EVALSHA script.sha1()}, {@code false} for {@code EVAL script.text()} */
    public boolean bySha() {
        return bySha;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScriptCall c && bySha == c.bySha && script.equals(c.script)
                && keys.equals(c.keys) && args.equals(c.args);
    }

    @Override
    public int hashCode() {
        return Objects.hash(script, keys, args, bySha);
    }

    @Override
    public String toString() {
        return (bySha ? "EVALSHA " : "EVAL ") + script + " keys=" + keys + " args=" + args;
    }

    private static List<String> copy(List<String> list, String what) {
        Objects.requireNonNull(list, () -> what + " must not be null (an empty list for none)");
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == null) {
                throw new NullPointerException(what + "[" + i + "] is null");
            }
        }
        return List.copyOf(list);
    }
}
