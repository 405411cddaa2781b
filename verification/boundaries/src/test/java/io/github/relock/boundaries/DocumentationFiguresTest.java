package io.github.relock.boundaries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The figures the documentation states cannot drift from what the build uses.
 *
 * <ul>
 * <li>Every version written next to a library's name ({@code Jedis 8.0.2}, {@code | Lettuce |
 *     7.5.2.RELEASE}) in README.md, CHANGELOG.md and docs/ is one that a POM of this repository
 *     names for that library (a version property, a profile's expected version, a pinned
 *     dependency), or is listed in {@link #OUTSIDE_FACTS} with the reason it is not.</li>
 * <li>The redis-server version is the one of the binaries in {@code org.signal:embedded-redis}.</li>
 * <li>"N rules in M chapters" is what lock-tck/RULES.md lists; "N rules" written in the past
 *     ("then") is history and left alone.</li>
 * <li>The README stays a front door: at most 300 lines.</li>
 * </ul>
 */
class DocumentationFiguresTest {

    private static final Path ROOT = Repository.root();

    /** Library names as the docs write them, and the word that marks their versions in a POM. */
    private static final Map<String, String> LIBRARIES = Map.ofEntries(
            Map.entry("Jedis", "jedis"), Map.entry("Lettuce", "lettuce"), Map.entry("Netty", "netty"),
            Map.entry("Redisson", "redisson"), Map.entry("JUnit", "junit"), Map.entry("ArchUnit", "archunit"),
            Map.entry("Testcontainers", "testcontainers"), Map.entry("Jackson", "jackson"), Map.entry("JMH", "jmh"),
            Map.entry("HdrHistogram", "hdrhistogram"), Map.entry("picocli", "picocli"),
            Map.entry("Spring Boot", "spring-boot"), Map.entry("Boot", "spring-boot"),
            Map.entry("Spring Data Redis", "spring-data-redis"), Map.entry("Spring Integration", "spring-integration"),
            Map.entry("ShedLock", "shedlock"), Map.entry("Micrometer", "micrometer"), Map.entry("Reactor", "reactor"),
            Map.entry("RxJava", "rxjava"),
            Map.entry("`org.signal:embedded-redis`", "embedded-redis"),
            // kotlin.version, not kotlin: kotlinx-coroutines.version contains "kotlin" too
            Map.entry("Kotlin", "kotlin.version"), Map.entry("kotlinx.coroutines", "kotlinx-coroutines"));

    /** Versions the docs state that no POM here uses, each with why that is right. */
    private static final Map<String, String> OUTSIDE_FACTS = Map.of(
            "Reactor 3.6.6", "the Reactor that Lettuce 6.6.0.RELEASE's own POM brings, which the lettuce-6.6 profile runs on");

    private static final String VERSION = "(\\d+\\.\\d+\\.\\d+(?:\\.[A-Za-z]+)?)";
    private static final String NAMES = "(Spring Data Redis|Spring Integration|Spring Boot|Boot|Jedis|Lettuce|Netty|Redisson|"
            + "JUnit|ArchUnit|Testcontainers|Jackson|JMH|HdrHistogram|picocli|ShedLock|Micrometer|Reactor|RxJava|`org\\.signal:embedded-redis`|"
            + "Kotlin|kotlinx\\.coroutines)";
    private static final Pattern PROSE = Pattern.compile(NAMES + "\\s+" + VERSION);
    private static final Pattern TABLE = Pattern.compile("^\\|\\s*" + NAMES + "\\s*\\|\\s*" + VERSION);
    private static final Pattern REDIS_SERVER = Pattern.compile("(?<!Data )(?:redis-server`?|Redis)\\s+(\\d+\\.\\d+\\.\\d+)");
    private static final Pattern RULE_COUNT = Pattern.compile("(\\d+) rules(?: in (\\d+) chapters)?");

    @Test
    void libraryVersions_inTheDocs_areTheOnesThePomsUse() {
        Map<String, Set<String>> known = pomVersions();
        List<String> drifted = new ArrayList<>();
        int checked = 0;
        for (Path doc : docs()) {
            List<String> lines = lines(doc);
            for (int i = 0; i < lines.size(); i++) {
                for (Pattern pattern : List.of(PROSE, TABLE)) {
                    Matcher m = pattern.matcher(lines.get(i));
                    while (m.find()) {
                        checked++;
                        String library = m.group(1);
                        String version = m.group(2);
                        Set<String> versions = known.getOrDefault(LIBRARIES.get(library), Set.of());
                        boolean inAPom = versions.stream().anyMatch(v -> v.equals(version) || v.startsWith(version + "."));
                        if (!inAPom && !OUTSIDE_FACTS.containsKey(library + " " + version)) {
                            drifted.add(Repository.relative(doc) + ":" + (i + 1) + ": " + library + " " + version
                                    + " (the POMs have " + versions + ")");
                        }
                    }
                }
            }
        }
        assertTrue(checked > 20, "too few versions found in the docs, the parser is broken: " + checked);
        assertEquals(List.of(), drifted, "versions in the docs that no POM uses: update the doc, or add the"
                + " version to OUTSIDE_FACTS with the reason it is not a POM's");
    }

    @Test
    void redisServerVersion_isTheEmbeddedBinarysVersion() {
        List<String> wrong = new ArrayList<>();
        for (Path doc : docs()) {
            List<String> lines = lines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = REDIS_SERVER.matcher(lines.get(i));
                while (m.find()) {
                    if (getClass().getClassLoader().getResource("redis-server-" + m.group(1) + "-linux-amd64") == null) {
                        wrong.add(Repository.relative(doc) + ":" + (i + 1) + ": " + m.group());
                    }
                }
            }
        }
        assertEquals(List.of(), wrong, "org.signal:embedded-redis ships no redis-server of that version");
    }

    @Test
    void ruleCounts_areRulesMds() {
        List<String> rules = lines(ROOT.resolve("lock-tck/RULES.md"));
        long ruleRows = rules.stream().filter(l -> l.matches("^\\|\\s*\\d+\\.\\d+(\\.\\d+)?\\s*\\|.*")).count();
        long chapters = rules.stream().filter(l -> l.matches("^## \\d+ .*")).count();
        List<String> wrong = new ArrayList<>();
        int stated = 0;
        for (Path doc : docs()) {
            List<String> lines = lines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = RULE_COUNT.matcher(lines.get(i));
                while (m.find()) {
                    if (lines.get(i).substring(m.end()).startsWith(" then")) {
                        continue; // a count at the time of an earlier measurement
                    }
                    stated++;
                    boolean right = Long.parseLong(m.group(1)) == ruleRows
                            && (m.group(2) == null || Long.parseLong(m.group(2)) == chapters);
                    if (!right) {
                        wrong.add(Repository.relative(doc) + ":" + (i + 1) + ": " + m.group());
                    }
                }
            }
        }
        assertTrue(stated > 0, "no doc states the kit's size: docs/guide/writing-a-driver.md should");
        assertEquals(List.of(), wrong, "lock-tck/RULES.md lists " + ruleRows + " rules in " + chapters + " chapters");
    }

    @Test
    void readme_isAFrontDoor() {
        int lines = lines(ROOT.resolve("README.md")).size();
        assertTrue(lines <= 300, "README.md has " + lines + " lines; move detail into docs/guide/");
    }

    /** For each library word, every version a POM of this repository names for it. */
    private static Map<String, Set<String>> pomVersions() {
        Pattern property = Pattern.compile("<([\\w.-]+)>\\s*(\\d+\\.\\d+(?:\\.\\d+)?(?:[.-][\\w]+)?)\\s*</\\1>");
        Pattern dependency = Pattern.compile("<artifactId>([\\w.-]+)</artifactId>\\s*<version>(\\d[^<]*)</version>");
        Map<String, Set<String>> known = new TreeMap<>();
        for (Path pom : poms()) {
            String text = String.join("\n", lines(pom));
            for (Pattern p : List.of(property, dependency)) {
                Matcher m = p.matcher(text);
                while (m.find()) {
                    String tag = m.group(1).toLowerCase(java.util.Locale.ROOT);
                    for (String library : LIBRARIES.values()) {
                        if (tag.contains(library)) {
                            known.computeIfAbsent(library, k -> new TreeSet<>()).add(m.group(2));
                        }
                    }
                }
            }
        }
        return known;
    }

    private static List<Path> docs() {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
        docs.addAll(files(ROOT.resolve("docs"), ".md"));
        return docs;
    }

    private static List<Path> poms() {
        // the reactor's modules sit at most two folders down (a role folder, then the module)
        try (Stream<Path> walk = Files.walk(ROOT, 3)) {
            return walk.filter(p -> p.getFileName().toString().equals("pom.xml"))
                    .filter(p -> !ROOT.relativize(p).toString().replace('\\', '/').matches("(.*/)?(target|src)/.*"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> files(Path dir, String suffix) {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
