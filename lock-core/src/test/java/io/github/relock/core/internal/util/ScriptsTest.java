package io.github.relock.core.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.Script;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import io.github.relock.spi.Slots;

/** The Lua scripts load, their {@code --@include} fragments are inlined, and their SHA-1 is Redis's. */
class ScriptsTest {

    private static final Pattern INCLUDE = Pattern.compile("(?m)^--@include (\\S+)[ \\t]*\\n");

    /** Every script Scripts loads, found by reflection so a new script is covered without editing this test. */
    private static List<Script> all() throws IllegalAccessException {
        List<Script> scripts = new ArrayList<>();
        for (Field f : Scripts.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Script.class) {
                scripts.add((Script) f.get(null));
            }
        }
        return scripts;
    }

    private static String resource(String path) throws IOException {
        try (InputStream in = Scripts.class.getResourceAsStream("/io/github/relock/core/internal/" + path)) {
            assertTrue(in != null, "missing resource " + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The .lua files directly in a resource folder (the tests run from target/classes, a directory). */
    private static Set<String> luaFiles(String folder) throws IOException, URISyntaxException {
        Path dir = Path.of(Scripts.class.getResource("/io/github/relock/core/internal/" + folder).toURI());
        try (Stream<Path> files = Files.list(dir)) {
            Set<String> names = new TreeSet<>();
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lua"))
                    .forEach(n -> names.add(n.substring(0, n.length() - ".lua".length())));
            return names;
        }
    }

    @Test
    void everyScriptResource_isLoaded_andNothingElse() throws Exception {
        Set<String> loaded = new TreeSet<>();
        for (Script s : all()) {
            assertTrue(loaded.add(s.name()), "two scripts named " + s.name());
        }
        assertEquals(luaFiles("scripts"), loaded, "scripts/*.lua against the Script constants of Scripts");
    }

    @Test
    void everyScript_loads_withTextAndNoIncludeLineLeft() throws Exception {
        for (Script s : all()) {
            assertFalse(s.text().isBlank(), s.name());
            assertFalse(s.text().contains("--@include"), s.name() + " still has an include line");
            assertTrue(s.text().contains("redis.call"), s.name() + " does not look like a loaded script");
        }
    }

    @Test
    void includeLines_areReplacedByTheFragmentText_restUnchanged() throws Exception {
        for (Script s : all()) {
            String raw = resource("scripts/" + s.name() + ".lua");
            Matcher m = INCLUDE.matcher(raw);
            StringBuilder expected = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(expected, Matcher.quoteReplacement(resource("scripts/fragments/" + m.group(1) + ".lua")));
            }
            m.appendTail(expected);
            assertEquals(expected.toString().stripTrailing(), s.text().stripTrailing(), s.name());
        }
    }

    @Test
    void everyFragment_isIncludedBySomeScript() throws Exception {
        Set<String> used = new HashSet<>();
        for (Script s : all()) {
            Matcher m = INCLUDE.matcher(resource("scripts/" + s.name() + ".lua"));
            while (m.find()) {
                used.add(m.group(1));
            }
        }
        Set<String> fragments = luaFiles("scripts/fragments");
        assertFalse(fragments.isEmpty(), "no fragments: the include mechanism is untested");
        assertEquals(fragments, new TreeSet<>(used), "fragments against the includes that name them");
    }

    @Test
    void sha1_isTheSha1OfTheUtf8Text() throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-1");
        for (Script s : all()) {
            String expected = HexFormat.of().formatHex(md.digest(s.text().getBytes(StandardCharsets.UTF_8)));
            assertEquals(expected, s.sha1(), s.name());
        }
    }

    @Test
    void sha1_equalsWhatRedisScriptLoadReturns() {
        // SCRIPT LOAD on redis-server 7.0.15 returned these for the same texts.
        assertEquals("e0e1f9fabfc9d4800c877a703b823ac0578ff8db", new Script("t", "return 1").sha1());
        assertEquals("6ffbd9f92765c5b4e1e990ce16e972c407211b99", new Script("t", "return 'clé \uD83D\uDD12'\n").sha1());
    }

    @Test
    void barrierKey_isInTheSameClusterSlotAsTheLockKey() {
        for (String key : List.of("plain", "{tag}rest", "pre{tag}post", "a{}b", "a}b{", "{}x", "rw{x}:write", "redisson_lock__channel:{n}")) {
            String barrier = Scripts.barrierKey(key);
            assertEquals(Slots.slot(key), Slots.slot(barrier), key + " -> " + barrier);
        }
    }
}
