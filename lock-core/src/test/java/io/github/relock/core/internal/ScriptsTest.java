package io.github.relock.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.Script;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Lua scripts load, their {@code --@include} fragments are inlined, and their SHA-1 is Redis's. */
class ScriptsTest {

    private static List<Script> all() throws IllegalAccessException {
        List<Script> scripts = new ArrayList<>();
        for (Field f : Scripts.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Script.class) {
                scripts.add((Script) f.get(null));
            }
        }
        return scripts;
    }

    @Test
    void everyScript_loads_withItsNameAndNoIncludeLeft() throws Exception {
        List<Script> scripts = all();
        assertEquals(10, scripts.size(), "scripts: " + scripts);
        for (Script s : scripts) {
            assertFalse(s.text().isBlank(), s.name());
            assertFalse(s.text().contains("--@include"), s.name() + " still has an include line");
        }
    }

    @Test
    void includes_areReplacedByTheFragmentText() throws Exception {
        boolean sawFragment = false;
        for (Script s : all()) {
            String raw = new String(Scripts.class.getResourceAsStream("scripts/" + s.name() + ".lua").readAllBytes(),
                    StandardCharsets.UTF_8);
            for (String line : raw.split("\n")) {
                if (line.startsWith("--@include ")) {
                    String fragment = new String(Scripts.class.getResourceAsStream(
                            "scripts/fragments/" + line.substring("--@include ".length()).strip() + ".lua").readAllBytes(),
                            StandardCharsets.UTF_8);
                    assertTrue(s.text().contains(fragment), s.name() + " lacks the text of " + line);
                    sawFragment = true;
                }
            }
        }
        assertTrue(sawFragment, "no script uses a fragment: the include mechanism is untested");
    }

    @Test
    void sha1_isTheSha1OfTheText_asRedisComputesIt() throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-1");
        for (Script s : all()) {
            String expected = HexFormat.of().formatHex(md.digest(s.text().getBytes(StandardCharsets.UTF_8)));
            assertEquals(expected, s.sha1(), s.name());
        }
    }
}
