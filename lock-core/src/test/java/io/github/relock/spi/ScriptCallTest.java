package io.github.relock.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A script call: how it is sent, its fallback by text, and the input it refuses. */
class ScriptCallTest {
    private static final Script SCRIPT = new Script("test-script", "return ARGV[1]");

    @Test
    void bySha_withText_isTheSameCallByText_andByTextStaysItself() {
        ScriptCall sha = ScriptCall.bySha(SCRIPT, List.of("k"), List.of("a"));
        ScriptCall text = sha.withText();

        assertTrue(sha.bySha());
        assertFalse(text.bySha());
        assertSame(SCRIPT, text.script());
        assertEquals(List.of("k"), text.keys());
        assertEquals(List.of("a"), text.args());
        assertEquals(ScriptCall.byText(SCRIPT, List.of("k"), List.of("a")), text);
        assertSame(text, text.withText());
    }

    @Test
    void keysAndArgs_areCopied_soTheCallerChangingItsListChangesNoCall() {
        List<String> keys = new ArrayList<>(List.of("k"));
        ScriptCall call = ScriptCall.bySha(SCRIPT, keys, List.of());

        keys.set(0, "other");

        assertEquals(List.of("k"), call.keys());
        assertThrows(UnsupportedOperationException.class, () -> call.keys().add("x"));
    }

    @Test
    void nullScriptListsOrElements_failWithAMessageNamingThem() {
        assertEquals("script must not be null",
                assertThrows(NullPointerException.class, () -> ScriptCall.bySha(null, List.of(), List.of())).getMessage());
        assertEquals("keys must not be null (an empty list for none)",
                assertThrows(NullPointerException.class, () -> ScriptCall.byText(SCRIPT, null, List.of())).getMessage());
        assertEquals("args must not be null (an empty list for none)",
                assertThrows(NullPointerException.class, () -> ScriptCall.bySha(SCRIPT, List.of(), null)).getMessage());
        assertEquals("args[1] is null", assertThrows(NullPointerException.class,
                () -> ScriptCall.bySha(SCRIPT, List.of(), Arrays.asList("a", null))).getMessage());
    }
}
