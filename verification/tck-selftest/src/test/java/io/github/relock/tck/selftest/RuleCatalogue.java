package io.github.relock.tck.selftest;

import io.github.relock.tck.DriverKit;
import io.github.relock.tck.DriverTck;
import io.github.relock.tck.EngineSpec;
import io.github.relock.tck.FailoverKit;
import io.github.relock.tck.RelockTck;
import io.github.relock.tck.RuleStrength;
import io.github.relock.tck.RuleStrength.Strength;
import io.github.relock.tck.VirtualThreadsKit;
import io.github.relock.tck.redisson.RedissonDriverTck;
import io.github.relock.tck.redisson.RedissonEngineSpec;
import io.github.relock.tck.redisson.RedissonTck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * Every rule of the kit, read from the rules themselves: the chapter sources of {@code lock-tck} and
 * {@code relock-tck-redisson} (each rule's javadoc: what it proves, then "When it fails: ...") and
 * the compiled classes (tags, {@link RuleStrength}, and which kit classes nest each chapter).
 * {@link RulesCatalogueTest} writes {@code lock-tck/RULES.md} from it; {@link BrokenDriverKitTest}
 * takes the required rules from it.
 */
final class RuleCatalogue {

    /** The kit classes a driver extends, in the order the catalogue names them. */
    static final List<Class<?>> KITS = List.of(DriverTck.class, EngineSpec.class, RelockTck.class,
            RedissonTck.class, RedissonDriverTck.class, RedissonEngineSpec.class, FailoverKit.class,
            VirtualThreadsKit.class);

    private static final Pattern RULE = Pattern.compile(
            "/\\*\\*((?:(?!\\*/).)*)\\*/\\s*((?:@[\\w.]+(?:\\([^)]*\\))?\\s*)*)void (rule(\\d+(?:_\\d+)+)_\\w+)\\(\\)",
            Pattern.DOTALL);

    /**
     * @param id the rule number, e.g. {@code 21.2}
     * @param chapter the chapter number
     * @param chapterClass the class that declares the rule
     * @param method the test method's name
     * @param proves what the rule proves (its javadoc up to "When it fails")
     * @param whenItFails what to look at when it fails (empty if the javadoc has none)
     * @param strength required or optional for a driver
     * @param because why an optional rule is optional
     * @param tags the rule's JUnit tags, its chapter's included
     */
    record Rule(String id, int chapter, Class<?> chapterClass, String method, String proves, String whenItFails,
            Strength strength, String because, Set<String> tags) {

        /** @return the rule's number as sortable parts */
        List<Integer> order() {
            return Arrays.stream(id.split("\\.")).map(Integer::parseInt).toList();
        }
    }

    private RuleCatalogue() {
    }

    /** @return the repository's root (the folder with {@code lock-tck/RULES.md}) */
    static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("lock-tck/RULES.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("no lock-tck/RULES.md above " + Path.of("").toAbsolutePath());
    }

    /** @return every rule, by chapter and number */
    static List<Rule> rules() {
        Path root = root();
        List<Rule> all = new ArrayList<>();
        for (Path source : sources(root)) {
            String text = read(source);
            if (!RULE.matcher(text).find()) {
                continue;
            }
            Class<?> chapter = load(source);
            Matcher m = RULE.matcher(text);
            while (m.find()) {
                all.add(rule(chapter, m.group(3), m.group(4), m.group(1)));
            }
        }
        all.sort(Comparator.comparing(Rule::order, RuleCatalogue::compare));
        return all;
    }

    /** @return the chapter classes nested by each kit class, kit by kit */
    static Map<Class<?>, List<Class<?>>> chaptersByKit() {
        Map<Class<?>, List<Class<?>>> byKit = new LinkedHashMap<>();
        for (Class<?> kit : KITS) {
            List<Class<?>> chapters = new ArrayList<>(chaptersOf(kit));
            if (kit == VirtualThreadsKit.class) {
                chapters.add(kit);
            }
            byKit.put(kit, chapters);
        }
        return byKit;
    }

    /**
     * @param kit a kit class
     * @return the chapter classes its nested classes (and its superclasses') extend; a nested class
     *     that is itself a kit (as {@code RelockTck} nests the engine spec's chapters) adds its own
     */
    static List<Class<?>> chaptersOf(Class<?> kit) {
        return nestedChapters(kit).stream().<Class<?>>map(Class::getSuperclass).toList();
    }

    /**
     * @param kit a kit class
     * @return the nested classes that run its chapters, declared in it, its superclasses or a kit it nests
     */
    static List<Class<?>> nestedChapters(Class<?> kit) {
        List<Class<?>> nested = new ArrayList<>();
        for (Class<?> k = kit; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Class<?> n : k.getDeclaredClasses()) {
                if (DriverKit.class.isAssignableFrom(n)) {
                    nested.addAll(nestedChapters(n));
                } else if (n.isAnnotationPresent(Nested.class)) {
                    nested.add(n);
                }
            }
        }
        return nested;
    }

    /** @return the kits that run the chapter class, in {@link #KITS} order */
    static List<Class<?>> kitsOf(Class<?> chapter) {
        return chaptersByKit().entrySet().stream().filter(e -> e.getValue().contains(chapter)).map(Map.Entry::getKey)
                .toList();
    }

    /** @return the chapters of {@link DriverTck} */
    static Set<Class<?>> driverContract() {
        return new LinkedHashSet<>(chaptersByKit().get(DriverTck.class));
    }

    /** @return the first sentence of a chapter class's javadoc, its title ("Chapter N: title.") */
    static String title(Class<?> chapter) {
        String doc = classDoc(chapter);
        Matcher m = Pattern.compile("Chapter \\d+(?:, with Redisson)?: (.*?)(?:\\.|:| —| \\(| \\{)").matcher(doc);
        if (!m.find()) {
            throw new AssertionError(chapter.getName() + "'s javadoc must start \"Chapter N: title.\"");
        }
        String t = m.group(1);
        return Character.toUpperCase(t.charAt(0)) + t.substring(1);
    }

    /** @return the first paragraph of a chapter class's javadoc, as Markdown */
    static String intro(Class<?> chapter) {
        String doc = classDoc(chapter).replaceFirst("^Chapter \\d+(?:, with Redisson)?: ", "");
        int p = doc.indexOf("<p>");
        String intro = markdown(p < 0 ? doc : doc.substring(0, p), chapter);
        return Character.toUpperCase(intro.charAt(0)) + intro.substring(1);
    }

    /** @return the javadoc of the class, its lines joined */
    private static String classDoc(Class<?> chapter) {
        String text = read(sourceOf(chapter));
        Matcher m = Pattern.compile("/\\*\\*((?:(?!\\*/).)*)\\*/\\s*(?:@[\\w.]+(?:\\([^)]*\\))?\\s*)*public (?:abstract )?class "
                + chapter.getSimpleName(), Pattern.DOTALL).matcher(text);
        if (!m.find()) {
            throw new AssertionError("no class javadoc in " + sourceOf(chapter));
        }
        return join(m.group(1));
    }

    private static Rule rule(Class<?> chapter, String method, String number, String javadoc) {
        String id = String.join(".", number.split("_"));
        String doc = markdown(join(javadoc), chapter);
        String prefix = "Rule " + id + ": ";
        if (!doc.startsWith(prefix)) {
            throw new AssertionError(method + ": its javadoc must start \"" + prefix + "\", starts \""
                    + doc.substring(0, Math.min(40, doc.length())) + "\"");
        }
        doc = doc.substring(prefix.length());
        Matcher when = Pattern.compile("When it fails( [^:.]{1,40})?:").matcher(doc);
        boolean found = when.find();
        String proves = (found ? doc.substring(0, when.start()) : doc).trim();
        String fails = !found ? "" : (when.group(1) == null ? "" : when.group(1).trim() + ": ")
                + doc.substring(when.end()).trim();
        Method m = method(chapter, method);
        RuleStrength s = Optional.ofNullable(m.getAnnotation(RuleStrength.class))
                .orElse(chapter.getAnnotation(RuleStrength.class));
        Set<String> tags = new LinkedHashSet<>();
        for (Class<?> c = chapter; c != null; c = c.getSuperclass()) {
            Arrays.stream(c.getAnnotationsByType(Tag.class)).forEach(t -> tags.add(t.value()));
        }
        Arrays.stream(m.getAnnotationsByType(Tag.class)).forEach(t -> tags.add(t.value()));
        Strength strength = s == null ? Strength.OPTIONAL : s.value();
        String because = s != null && !s.because().isEmpty() ? s.because()
                : strength == Strength.REQUIRED ? "" : defaultReason(chapter);
        return new Rule(id, Integer.parseInt(number.split("_")[0]), chapter, method, proves, fails, strength, because,
                tags);
    }

    /** Why a rule is optional when neither it nor its chapter says: where its chapter runs. */
    static String defaultReason(Class<?> chapter) {
        List<Class<?>> kits = kitsOf(chapter);
        if (kits.contains(EngineSpec.class)) {
            return "engine spec: it checks lock-core, not the driver";
        }
        if (kits.contains(RedissonTck.class)) {
            return "needs Redisson (relock-tck-redisson)";
        }
        if (kits.contains(FailoverKit.class)) {
            return "needs a cluster or Sentinel client and deployments the kit breaks";
        }
        if (kits.contains(VirtualThreadsKit.class)) {
            return "needs a JDK 21+ at run time";
        }
        return "not in any kit class: a driver's own test nests it (see the chapter)";
    }

    private static Method method(Class<?> chapter, String name) {
        try {
            return chapter.getDeclaredMethod(name);
        } catch (NoSuchMethodException e) {
            throw new AssertionError(chapter.getName() + " has no " + name + "() (compiled classes older than the source?)");
        }
    }

    /** Javadoc to Markdown, for one table cell or paragraph. */
    static String markdown(String doc, Class<?> chapter) {
        StringBuilder sb = new StringBuilder();
        Matcher v = Pattern.compile("\\{@value #(\\w+)}").matcher(doc);
        while (v.find()) {
            v.appendReplacement(sb, Matcher.quoteReplacement(String.valueOf(constant(chapter, v.group(1)))));
        }
        v.appendTail(sb);
        // Code first, so that the HTML below is never looked for inside it ({@code List<Object>}).
        List<String> code = new ArrayList<>();
        Matcher c = Pattern.compile("\\{@(?:code|link|linkplain) ([^{}]*(?:\\{[^{}]*}[^{}]*)*)}|<code>(.*?)</code>")
                .matcher(sb.toString());
        StringBuilder out = new StringBuilder();
        while (c.find()) {
            String text = entities(c.group(1) != null ? c.group(1) : c.group(2));
            text = text.replaceAll("^([\\w.]+)#(\\w+)", "$1.$2").replaceAll("^#(\\w+)", "$1");
            code.add("`" + text + "`");
            c.appendReplacement(out, "\uE000" + (code.size() - 1) + "\uE000");
        }
        c.appendTail(out);
        String s = out.toString();
        s = s.replace("<b>", "**").replace("</b>", "**").replace("<i>", "*").replace("</i>", "*");
        s = entities(s.replaceAll("<[^>]+>", " "));
        Matcher back = Pattern.compile("\uE000(\\d+)\uE000").matcher(s);
        StringBuilder done = new StringBuilder();
        while (back.find()) {
            back.appendReplacement(done, Matcher.quoteReplacement(code.get(Integer.parseInt(back.group(1)))));
        }
        back.appendTail(done);
        return done.toString().replace("|", "\\|").replaceAll("\\s+", " ").trim();
    }

    /** HTML entities the javadoc uses, decoded. */
    private static String entities(String s) {
        Matcher n = Pattern.compile("&#(\\d+);").matcher(s);
        StringBuilder sb = new StringBuilder();
        while (n.find()) {
            n.appendReplacement(sb, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(n.group(1)))));
        }
        n.appendTail(sb);
        return sb.toString().replace("&gt;", ">").replace("&lt;", "<").replace("&quot;", "\"").replace("&amp;", "&");
    }

    private static Object constant(Class<?> chapter, String name) {
        for (Class<?> c = chapter; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                if (Modifier.isStatic(f.getModifiers())) {
                    f.setAccessible(true);
                    return f.get(null);
                }
            } catch (NoSuchFieldException e) {
                // look further up
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return name;
    }

    /** Javadoc lines without their leading {@code *}, joined with spaces. */
    private static String join(String javadoc) {
        return javadoc.replaceAll("(?m)^\\s*\\*\\s?", " ").replaceAll("\\s+", " ").trim();
    }

    private static int compare(List<Integer> a, List<Integer> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Integer.compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** @return the chapter and kit sources of lock-tck and relock-tck-redisson */
    static List<Path> sources(Path root) {
        List<Path> all = new ArrayList<>();
        for (String dir : List.of("lock-tck/src/main/java/io/github/relock/tck",
                "kit/redisson/src/main/java/io/github/relock/tck/redisson")) {
            try (Stream<Path> files = Files.list(root.resolve(dir))) {
                files.filter(p -> p.toString().endsWith(".java")).sorted().forEach(all::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return all;
    }

    private static Path sourceOf(Class<?> chapter) {
        String module = chapter.getPackageName().endsWith(".redisson") ? "kit/redisson" : "lock-tck";
        return root().resolve(module + "/src/main/java/" + chapter.getName().replace('.', '/') + ".java");
    }

    private static Class<?> load(Path source) {
        String pkg = source.getParent().toString().replace('\\', '/');
        pkg = pkg.substring(pkg.indexOf("src/main/java/") + "src/main/java/".length()).replace('/', '.');
        String name = pkg + "." + source.getFileName().toString().replace(".java", "");
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("no class for " + source, e);
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the rules by chapter number, in order */
    static Map<Integer, List<Rule>> byChapter(List<Rule> rules) {
        Map<Integer, List<Rule>> map = new TreeMap<>();
        for (Rule r : rules) {
            map.computeIfAbsent(r.chapter(), k -> new ArrayList<>()).add(r);
        }
        return map;
    }
}
