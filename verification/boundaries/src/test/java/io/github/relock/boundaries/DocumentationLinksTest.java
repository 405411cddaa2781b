package io.github.relock.boundaries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every repository path the documentation names exists: the READMEs, {@code lock-tck/RULES.md},
 * {@code benchmarks/*.md} and {@code docs/**}{@code /*.md} (in fact every Markdown file outside
 * {@code target/} and hidden folders).
 *
 * <p>Checked: relative Markdown links {@code [text](path)} and {@code [label]: path} (resolved
 * against the file's folder), with their {@code #fragment} when they point into a Markdown file or
 * within the same file: the target must have a heading of that anchor (GitHub's rule: lower case,
 * punctuation dropped, spaces to hyphens, {@code -1}, {@code -2} for repeats), and
 * backticked paths that name this repository: a token whose first segment is a top-level entry of
 * the repository or is shaped like a module name ({@code lock-*}, {@code driver-*},
 * {@code interop-*}), resolved against the root, or a bare {@code *.md} name, resolved against the
 * file's folder. A {@code ...} segment elides folders: {@code verification/tck-selftest/src/test/.../BrokenDriverKitTest}
 * needs a file of that name somewhere under {@code driver-jedis/src/test}. Not checked: http(s) and
 * mailto links, fenced code blocks, and paths in other projects (for example
 * the spec's {@code redisson/src/test/...}), and build output ({@code target/...}).
 *
 * <p>No network: links to other sites are not followed.
 */
class DocumentationLinksTest {

    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[[^\\]]*]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_LINK = Pattern.compile("^\\s{0,3}\\[[^\\]]+]:\\s*<?(\\S+?)>?(?:\\s+\"[^\"]*\")?\\s*$");
    private static final Pattern BACKTICKED = Pattern.compile("`([^`\\s]+)`");
    private static final Pattern MODULE_SHAPED = Pattern.compile("(lock|driver|interop)-[a-z0-9-]+");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");

    private static final Path ROOT = Repository.root();

    @Test
    void markdownLinks_inReadmesAndDocs_resolveToExistingFiles() {
        List<Path> docs = markdownFiles();
        Set<String> scanned = docs.stream().map(DocumentationLinksTest::rel).collect(Collectors.toSet());
        for (String mustScan : List.of("README.md", "lock-tck/README.md", "docs/spec/redisson-lock-wire-format.md",
                "docs/guide/getting-started.md", "docs/RELEASING.md", "CHANGELOG.md")) {
            assertTrue(scanned.contains(mustScan), "the link check did not find " + mustScan + " (scanned " + scanned + ")");
        }

        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path doc : docs) {
            for (Reference ref : references(doc)) {
                checked++;
                if (!exists(ref)) {
                    broken.add(rel(doc) + ":" + ref.line() + ": " + ref.text() + " -> " + rel(ref.resolved()) + " does not exist");
                } else if (ref.anchor() != null && !anchors(ref.resolved()).contains(ref.anchor())) {
                    broken.add(rel(doc) + ":" + ref.line() + ": " + ref.text() + " -> " + rel(ref.resolved())
                            + " has no heading with the anchor #" + ref.anchor());
                }
            }
        }
        assertTrue(checked > 0, "no repository path found in " + scanned + ": the parser is broken");
        assertEquals(List.of(), broken, "documentation names files that are not in the repository");
    }

    /**
     * One path a Markdown file names: as written, resolved to where it must exist, and the heading
     * anchor it must have (null: none, or not a Markdown file).
     */
    private record Reference(int line, String text, Path resolved, String anchor) {
        Reference(int line, String text, Path resolved) {
            this(line, text, resolved, null);
        }
    }

    /** The anchors GitHub gives a Markdown file's headings. */
    static Set<String> anchors(Path markdown) {
        List<String> lines;
        try {
            lines = Files.readAllLines(markdown);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> anchors = new java.util.HashSet<>();
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        boolean fenced = false;
        for (String line : lines) {
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (fenced || !heading.matches()) {
                continue;
            }
            String slug = heading.group(1).strip().toLowerCase(java.util.Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return anchors;
    }

    private static List<Reference> references(Path doc) {
        List<String> lines;
        try {
            lines = Files.readAllLines(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path folder = doc.getParent();
        List<Reference> refs = new ArrayList<>();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            int lineNo = i + 1;
            Matcher reference = REFERENCE_LINK.matcher(line);
            if (reference.matches()) {
                linkTarget(lineNo, reference.group(1), doc, refs);
            }
            Matcher link = INLINE_LINK.matcher(line);
            while (link.find()) {
                linkTarget(lineNo, link.group(1), doc, refs);
            }
            Matcher code = BACKTICKED.matcher(line);
            while (code.find()) {
                repositoryPath(lineNo, code.group(1), folder, refs);
            }
        }
        return refs;
    }

    private static void linkTarget(int line, String target, Path doc, List<Reference> refs) {
        if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
            return; // http:, https:, mailto: and the like
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        refs.add(new Reference(line, target, resolved, resolved.toString().endsWith(".md") ? anchor : null));
    }

    private static void repositoryPath(int line, String token, Path folder, List<Reference> refs) {
        if (token.contains("://") || token.startsWith("-") || token.contains("<") || token.contains("*")) {
            return;
        }
        String path = token.replaceAll("[.,;:)]+$", "");
        int slash = path.indexOf('/');
        if (slash > 0) {
            String first = path.substring(0, slash);
            if (first.equals("target") || path.contains("/target/") || path.endsWith("/target")) {
                return; // build output (of any module), never in the repository
            }
            if (Files.exists(ROOT.resolve(first)) || MODULE_SHAPED.matcher(first).matches()) {
                refs.add(new Reference(line, token, ROOT.resolve(path).normalize()));
            } else if (path.endsWith(".md")) {
                refs.add(new Reference(line, token, folder.resolve(path).normalize()));
            }
        } else if (slash < 0 && path.endsWith(".md")) {
            refs.add(new Reference(line, token, folder.resolve(path).normalize()));
        }
    }

    private static boolean exists(Reference ref) {
        String path = ref.resolved().toString().replace('\\', '/');
        int elided = path.indexOf("/.../");
        if (elided < 0) {
            return Files.exists(ref.resolved());
        }
        Path under = Path.of(path.substring(0, elided));
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (!Files.isDirectory(under)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(under)) {
            return files.map(p -> p.getFileName().toString())
                    .anyMatch(f -> f.equals(name) || f.startsWith(name + "."));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every Markdown file, never descending into build output or hidden folders such as .git. */
    private static List<Path> markdownFiles() {
        List<Path> found = new ArrayList<>();
        try {
            Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    String name = dir.equals(ROOT) ? "" : dir.getFileName().toString();
                    return name.equals("target") || name.equals("node_modules") || name.startsWith(".")
                            ? FileVisitResult.SKIP_SUBTREE
                            : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (file.getFileName().toString().endsWith(".md")) {
                        found.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        found.sort(null);
        return found;
    }

    private static String rel(Path p) {
        return Repository.relative(p);
    }
}
