package io.github.relock.tck.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.tck.RuleStrength;
import io.github.relock.tck.RuleStrength.Strength;
import io.github.relock.tck.selftest.RuleCatalogue.Rule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code lock-tck/RULES.md} is generated from the rules themselves ({@link RuleCatalogue}): this
 * test fails when the committed file differs from what the rules say, and rewrites it with
 * {@code -Drelock.rules.write=true}:
 *
 * <pre>
 * mvn -B -pl verification/tck-selftest -am test -Dtest=RulesCatalogueTest -Dsurefire.failIfNoSpecifiedTests=false -Drelock.rules.write=true
 * </pre>
 *
 * It also holds the rules to the catalogue's promises: every rule says what to look at when it
 * fails, every rule of the driver contract kit has a strength chosen on purpose, and only rules of
 * the driver contract kit are required.
 */
class RulesCatalogueTest {
    private static final String WRITE = "relock.rules.write";

    @Test
    void rulesMd_isWhatTheRulesSay() throws IOException {
        Path file = RuleCatalogue.root().resolve("lock-tck/RULES.md");
        String generated = render(RuleCatalogue.rules());
        if (Boolean.getBoolean(WRITE)) {
            Files.writeString(file, generated);
        }
        assertEquals(generated, Files.readString(file), "lock-tck/RULES.md is generated from the rules' javadoc and"
                + " annotations; regenerate it with -D" + WRITE + "=true (see RulesCatalogueTest's javadoc)");
    }

    @Test
    void everyRule_saysWhatToLookAtWhenItFails() {
        List<String> missing = RuleCatalogue.rules().stream().filter(r -> r.whenItFails().isEmpty())
                .map(r -> r.id() + " " + r.method()).toList();
        assertEquals(List.of(), missing, "rules whose javadoc has no \"When it fails: ...\"");
    }

    @Test
    void ruleNumbers_areUnique() {
        Map<String, List<String>> byId = new LinkedHashMap<>();
        RuleCatalogue.rules().forEach(r -> byId.computeIfAbsent(r.id(), k -> new ArrayList<>()).add(r.method()));
        assertEquals(Map.of(), byId.entrySet().stream().filter(e -> e.getValue().size() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }

    @Test
    void driverContractRules_haveAStrengthChosenOnPurpose_andOnlyTheyAreRequired() throws Exception {
        Set<Class<?>> contract = RuleCatalogue.driverContract();
        List<String> unmarked = new ArrayList<>();
        List<String> requiredElsewhere = new ArrayList<>();
        for (Rule r : RuleCatalogue.rules()) {
            boolean marked = r.chapterClass().isAnnotationPresent(RuleStrength.class)
                    || r.chapterClass().getDeclaredMethod(r.method()).isAnnotationPresent(RuleStrength.class);
            if (contract.contains(r.chapterClass()) && !marked) {
                unmarked.add(r.id());
            }
            if (r.strength() == Strength.REQUIRED && !contract.contains(r.chapterClass())) {
                requiredElsewhere.add(r.id());
            }
        }
        assertEquals(List.of(), unmarked, "rules of DriverTck's chapters without @RuleStrength on them or their chapter");
        assertEquals(List.of(), requiredElsewhere, "required rules outside DriverTck: a driver author runs DriverTck");
    }

    /** @return RULES.md for these rules */
    static String render(List<Rule> rules) {
        Map<Integer, List<Rule>> byChapter = RuleCatalogue.byChapter(rules);
        long required = rules.stream().filter(r -> r.strength() == Strength.REQUIRED).count();
        StringBuilder md = new StringBuilder();
        md.append("# The kit's rules\n\n");
        md.append("Every rule of `lock-tck` and `relock-tck-redisson`, one line each: its number (chapter.rule), whether a\n"
                + "driver must pass it, its test method, what it proves and what to look at when it fails. Chapter\n"
                + "numbers are the rule prefixes (there is no chapter 3). Generated from the rules themselves (their\n"
                + "javadoc, JUnit tags and `@RuleStrength`) by `RulesCatalogueTest` in `verification/tck-selftest`, which fails\n"
                + "the build when this file differs from them; regenerate it with\n"
                + "`mvn -B -pl verification/tck-selftest -am test -Dtest=RulesCatalogueTest -Dsurefire.failIfNoSpecifiedTests=false -Drelock.rules.write=true`.\n\n");
        md.append(rules.size()).append(" rules in ").append(byChapter.size()).append(" chapters, ").append(required)
                .append(" of them required for a driver:\n\n");
        md.append("- **required**: a driver must pass it. What it checks depends on the driver keeping the\n"
                + "  `CommandExecutor` contract, and `verification/tck-selftest` (`BrokenDriverKitTest`) shows a broken driver\n"
                + "  failing it. All are in `DriverTck`.\n");
        md.append("- **optional**: a conforming driver passes it too, but it checks the engine (`lock-core`), or needs\n"
                + "  something a driver may lack (a capability, Redisson, a JDK, a topology); the row or its chapter\n"
                + "  says which. relock runs it on its reference driver, Jedis.\n\n");
        md.append("Which kit class runs which chapters (a driver extends one; see the kit's README):\n\n");
        md.append("| kit class | chapters |\n| --- | --- |\n");
        for (Map.Entry<Class<?>, List<Class<?>>> e : RuleCatalogue.chaptersByKit().entrySet()) {
            Set<Integer> numbers = new java.util.TreeSet<>();
            for (Rule r : rules) {
                if (e.getValue().contains(r.chapterClass())) {
                    numbers.add(r.chapter());
                }
            }
            String slice = e.getKey().getSimpleName().equals("RedissonDriverTck") ? " (of 10, the rules tagged `interop-pubsub`)" : "";
            md.append("| `").append(e.getKey().getSimpleName()).append("` | ")
                    .append(numbers.stream().map(String::valueOf).collect(Collectors.joining(", "))).append(slice)
                    .append(" |\n");
        }
        for (Map.Entry<Integer, List<Rule>> chapter : byChapter.entrySet()) {
            List<Rule> rs = chapter.getValue();
            Set<Class<?>> classes = new LinkedHashSet<>();
            rs.forEach(r -> classes.add(r.chapterClass()));
            Class<?> main = classes.iterator().next();
            md.append("\n## ").append(chapter.getKey()).append(' ').append(RuleCatalogue.title(main)).append("\n\n");
            for (Class<?> c : classes) {
                List<Rule> of = rs.stream().filter(r -> r.chapterClass() == c).toList();
                Set<String> tags = new LinkedHashSet<>();
                of.forEach(r -> tags.addAll(chapterTags(r, c)));
                List<Class<?>> kits = RuleCatalogue.kitsOf(c);
                md.append(classes.size() > 1 ? "Rules " + of.get(0).id() + (of.size() > 1 ? "–" + of.get(of.size() - 1).id() : "")
                        + ": `" + c.getSimpleName() + "`" : "`" + c.getSimpleName() + "`");
                md.append(tags.isEmpty() ? "" : ", tag " + tags.stream().map(t -> "`" + t + "`").collect(Collectors.joining(", ")));
                List<String> nested = RuleCatalogue.KITS.stream().flatMap(k -> RuleCatalogue.nestedChapters(k).stream())
                        .distinct().filter(n -> n.getSuperclass() == c).map(n -> "`" + n.getDeclaringClass().getSimpleName() + "$"
                                + n.getSimpleName() + "`").toList();
                md.append(nested.isEmpty() ? "" : "; nested as " + String.join(", ", nested));
                md.append(kits.isEmpty() ? "; in no kit class" : "; run by " + kits.stream().map(k -> "`" + k.getSimpleName() + "`")
                        .collect(Collectors.joining(", ")));
                String cs = chapterStrength(c);
                md.append(cs.equals("required") ? ". Rules required for a driver unless marked.\n"
                        : ". Optional for a driver unless marked: " + cs + ".\n");
            }
            md.append("\n").append(RuleCatalogue.intro(main)).append("\n\n");
            md.append("| rule | strength | test | proves | when it fails |\n| --- | --- | --- | --- | --- |\n");
            for (Rule r : rs) {
                md.append("| ").append(r.id()).append(" | ").append(strength(r)).append(" | ").append(test(r))
                        .append(" | ").append(r.proves()).append(" | ").append(r.whenItFails()).append(" |\n");
            }
        }
        return md.toString();
    }

    private static List<String> chapterTags(Rule r, Class<?> chapter) {
        List<String> tags = new ArrayList<>();
        for (Class<?> c = chapter; c != null; c = c.getSuperclass()) {
            for (org.junit.jupiter.api.Tag t : c.getAnnotationsByType(org.junit.jupiter.api.Tag.class)) {
                tags.add(t.value());
            }
        }
        return tags;
    }

    /** The strength cell: the reason only where the rule's differs from its chapter's. */
    private static String strength(Rule r) {
        if (r.strength() == Strength.REQUIRED) {
            return "required";
        }
        return r.because().equals(chapterStrength(r.chapterClass())) ? "optional" : "optional: " + r.because();
    }

    /** The test cell: the method, and the tags the rule has beyond its chapter's. */
    private static String test(Rule r) {
        Set<String> own = new LinkedHashSet<>(r.tags());
        own.removeAll(chapterTags(r, r.chapterClass()));
        return "`" + r.method() + "`" + (own.isEmpty() ? "" : " (tag " + own.stream().map(t -> "`" + t + "`")
                .collect(Collectors.joining(", ")) + ")");
    }

    /** @return "required", or the reason the chapter's rules are optional */
    private static String chapterStrength(Class<?> chapter) {
        RuleStrength s = chapter.getAnnotation(RuleStrength.class);
        if (s != null && s.value() == Strength.REQUIRED) {
            return "required";
        }
        return s != null && !s.because().isEmpty() ? s.because() : RuleCatalogue.defaultReason(chapter);
    }
}
