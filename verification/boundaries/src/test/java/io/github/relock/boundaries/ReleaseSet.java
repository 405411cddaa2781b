package io.github.relock.boundaries;

import io.github.relock.boundaries.PublishedArtifacts.Poms;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Proves that a deployed release set is complete: what {@code mvn -Prelease deploy} wrote into a
 * Maven repository folder (bin/release-dry-run) holds, for every published artifact and nothing
 * else, what Maven Central requires and relock promises.
 *
 * <ul>
 * <li>every jar bom/pom.xml lists: the jar (with a module-info.class, or for a
 *     {@link #CLASS_PATH_ONLY} one an {@code Automatic-Module-Name}), a flattened POM (no parent,
 *     build, profiles or dependencyManagement; every dependency versioned), a sources jar (with
 *     .java files), a javadoc jar (with index.html) and a CycloneDX SBOM;</li>
 * <li>the BOM: its POM, listing exactly those jars;</li>
 * <li>with {@code --signed}: an {@code .asc} signature beside each of those files;</li>
 * <li>with {@code --central}: the POM elements Central requires (url, licenses, developers, scm);
 *     without it, their absence is reported but not an error;</li>
 * <li>no other {@code io.github.relock} artifact (relock-parent, examples, tests).</li>
 * </ul>
 *
 * <p>Run it from the repository's root after a build has compiled verification/boundaries' test classes:
 * {@code java -cp verification/boundaries/target/test-classes io.github.relock.boundaries.ReleaseSet <folder> [--signed] [--central]}.
 * It needs only the JDK. {@code ReleaseSetTest} checks the checker on small fabricated sets.
 *
 * <p>Thread-safety: stateless.
 */
final class ReleaseSet {

    private static final String GROUP = PublishedArtifacts.GROUP;
    private static final String BOM = PublishedArtifacts.BOM;
    private static final List<String> CENTRAL_ELEMENTS = List.of("url", "licenses", "developers", "scm");

    private ReleaseSet() {
    }

    /**
     * @param args the repository folder, then {@code --signed} and/or {@code --central}
     */
    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: ReleaseSet <repository folder> [--signed] [--central]");
            System.exit(2);
        }
        Path repo = Path.of(args[0]);
        List<String> options = List.of(args).subList(1, args.length);
        String version = Poms.text(Poms.read(Repository.root().resolve("bom/pom.xml")), "version");
        List<String> jars = PublishedArtifacts.jars();
        Report report = check(repo, version, jars, options.contains("--signed"), options.contains("--central"));
        report.notes().forEach(n -> System.out.println("note: " + n));
        if (report.problems().isEmpty()) {
            System.out.println("release set complete: " + (jars.size() + 1) + " artifacts (" + jars.size()
                    + " jars and " + BOM + ") of version " + version + ", " + report.files() + " files, in " + repo
                    + (options.contains("--signed") ? ", every file signed" : ", unsigned"));
        } else {
            report.problems().forEach(p -> System.out.println("MISSING OR WRONG: " + p));
            System.out.println(report.problems().size() + " problem(s): the release set in " + repo + " is not complete");
            System.exit(1);
        }
    }

    /**
     * What a check found.
     *
     * @param problems what is missing or wrong (empty: complete)
     * @param notes what Central will also need, when not checked strictly
     * @param files how many files the set holds (signatures and checksums not counted)
     */
    record Report(List<String> problems, List<String> notes, int files) {
    }

    static Report check(Path repo, String version, List<String> jars, boolean signed, boolean central) {
        List<String> problems = new ArrayList<>();
        Set<String> notes = new TreeSet<>();
        int files = 0;
        Path group = repo.resolve(GROUP.replace('.', '/'));
        for (String artifactId : jars) {
            Path dir = group.resolve(artifactId).resolve(version);
            String base = baseName(dir, artifactId, version, problems);
            if (base == null) {
                continue;
            }
            for (String suffix : List.of(".jar", ".pom", "-sources.jar", "-javadoc.jar", "-cyclonedx.json")) {
                Path file = dir.resolve(base + suffix);
                if (!Files.isRegularFile(file)) {
                    problems.add(artifactId + ": no " + file.getFileName());
                    continue;
                }
                files++;
                if (signed && !Files.isRegularFile(dir.resolve(file.getFileName() + ".asc"))) {
                    problems.add(artifactId + ": " + file.getFileName() + " is not signed (no .asc)");
                }
                String wrong = switch (suffix) {
                    case ".jar" -> CLASS_PATH_ONLY.contains(artifactId)
                            ? automaticModuleName(file) : entry(file, "module-info.class", "module-info.class");
                    case "-sources.jar" -> entry(file, ".java", ".java file");
                    case "-javadoc.jar" -> entry(file, "index.html", "index.html");
                    case "-cyclonedx.json" -> text(file, "\"bomFormat\" : \"CycloneDX\"", "a CycloneDX document");
                    default -> flattened(file, central, notes);
                };
                if (wrong != null) {
                    problems.add(artifactId + ": " + file.getFileName() + " " + wrong);
                }
            }
        }
        Path bomDir = group.resolve(BOM).resolve(version);
        String bomBase = baseName(bomDir, BOM, version, problems);
        if (bomBase != null) {
            Path pom = bomDir.resolve(bomBase + ".pom");
            if (!Files.isRegularFile(pom)) {
                problems.add(BOM + ": no " + pom.getFileName());
            } else {
                files++;
                if (signed && !Files.isRegularFile(bomDir.resolve(pom.getFileName() + ".asc"))) {
                    problems.add(BOM + ": " + pom.getFileName() + " is not signed (no .asc)");
                }
                List<String> managed = managedRelockArtifacts(pom);
                if (!new TreeSet<>(managed).equals(new TreeSet<>(jars))) {
                    problems.add(BOM + ": manages " + managed + ", the published jars are " + jars);
                }
            }
        }
        Set<String> expected = new TreeSet<>(jars);
        expected.add(BOM);
        for (String found : children(group)) {
            if (!expected.contains(found)) {
                problems.add(found + ": deployed, but not published (it is not in bom/pom.xml)");
            }
        }
        return new Report(problems, List.copyOf(notes), files);
    }

    /**
     * The file name every file of one artifact starts with: {@code a-1.0}, or for a snapshot the
     * timestamped {@code a-1.0-20261126.101010-3} that maven-metadata.xml names as the latest.
     */
    private static String baseName(Path dir, String artifactId, String version, List<String> problems) {
        if (!Files.isDirectory(dir)) {
            problems.add(artifactId + ": not deployed (no " + dir + ")");
            return null;
        }
        if (!version.endsWith("-SNAPSHOT")) {
            return artifactId + "-" + version;
        }
        Path metadata = dir.resolve("maven-metadata.xml");
        if (!Files.isRegularFile(metadata)) {
            problems.add(artifactId + ": a snapshot without maven-metadata.xml in " + dir);
            return null;
        }
        Element snapshot = (Element) Poms.read(metadata).getElementsByTagName("snapshot").item(0);
        if (snapshot == null) {
            return artifactId + "-" + version; // installed, not deployed: no timestamp
        }
        return artifactId + "-" + version.substring(0, version.length() - "SNAPSHOT".length())
                + Poms.text(snapshot, "timestamp") + "-" + Poms.text(snapshot, "buildNumber");
    }

    /**
     * Published jars that run on the class path only and name their module in the manifest instead
     * of a descriptor: OpenRewrite loads recipes from the class path, and its jars declare no module
     * name a descriptor could require.
     */
    static final Set<String> CLASS_PATH_ONLY = Set.of("relock-openrewrite");

    private static String automaticModuleName(Path jar) {
        try (java.util.jar.JarFile f = new java.util.jar.JarFile(jar.toFile())) {
            var manifest = f.getManifest();
            return manifest != null && manifest.getMainAttributes().getValue("Automatic-Module-Name") != null ? null
                    : "names no Automatic-Module-Name in its manifest";
        } catch (IOException e) {
            return "is not a readable jar: " + e.getMessage();
        }
    }

    private static String entry(Path jar, String suffix, String what) {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.stream().anyMatch(e -> e.getName().endsWith(suffix)) ? null : "holds no " + what;
        } catch (IOException e) {
            return "is not a readable jar: " + e.getMessage();
        }
    }

    private static String text(Path file, String expected, String what) {
        try {
            return Files.readString(file).contains(expected) ? null : "is not " + what;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A published POM must stand alone: consumers never see relock-parent or its build. */
    private static String flattened(Path pom, boolean central, Set<String> notes) {
        Element project = Poms.read(pom);
        List<String> wrong = new ArrayList<>();
        for (String element : List.of("parent", "build", "profiles", "dependencyManagement", "modules")) {
            if (Poms.child(project, element) != null) {
                wrong.add("<" + element + ">");
            }
        }
        NodeList dependencies = project.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element d = (Element) dependencies.item(i);
            String v = Poms.text(d, "version");
            if (v.isEmpty() || v.contains("${")) {
                wrong.add(Poms.text(d, "artifactId") + " without a resolved version");
            }
        }
        for (String element : CENTRAL_ELEMENTS) {
            if (Poms.child(project, element) == null) {
                if (central) {
                    wrong.add("no <" + element + "> (Central requires it)");
                } else {
                    notes.add("the POMs have no <" + element + ">: Maven Central requires it (ReleaseSet --central)");
                }
            }
        }
        return wrong.isEmpty() ? null : "is not a flattened, publishable POM: " + String.join(", ", wrong);
    }

    private static List<String> managedRelockArtifacts(Path bom) {
        Element project = Poms.read(bom);
        List<String> ids = new ArrayList<>();
        NodeList dependencies = project.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element d = (Element) dependencies.item(i);
            if (Poms.text(d, "groupId").equals(GROUP)) {
                ids.add(Poms.text(d, "artifactId"));
            }
        }
        return ids;
    }

    private static List<String> children(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
