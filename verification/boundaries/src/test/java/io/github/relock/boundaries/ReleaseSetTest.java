package io.github.relock.boundaries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release-set check ({@link ReleaseSet}, run by bin/release-dry-run on a real deploy) on small
 * fabricated repositories: it passes a complete set and names what is missing from an incomplete one.
 */
class ReleaseSetTest {

    private static final String VERSION = "1.2.0";
    private static final List<String> JARS = List.of("lock-api", "lock-core");

    @TempDir
    Path repo;

    @Test
    void completeSet_unsigned_passes() throws IOException {
        deploySet(false);
        ReleaseSet.Report report = ReleaseSet.check(repo, VERSION, JARS, false, false);
        assertEquals(List.of(), report.problems());
        assertEquals(11, report.files(), "5 files per jar, the BOM's POM");
        assertTrue(report.notes().stream().anyMatch(n -> n.contains("<licenses>")),
                "what Central will also need is said: " + report.notes());
    }

    @Test
    void completeSet_signed_passesWithSigned() throws IOException {
        deploySet(true);
        assertEquals(List.of(), ReleaseSet.check(repo, VERSION, JARS, true, false).problems());
    }

    @Test
    void missingJavadoc_andSignatures_areNamed() throws IOException {
        deploySet(false);
        Files.delete(dir("lock-core").resolve("lock-core-1.2.0-javadoc.jar"));
        List<String> problems = ReleaseSet.check(repo, VERSION, JARS, true, false).problems();
        assertTrue(problems.contains("lock-core: no lock-core-1.2.0-javadoc.jar"), problems.toString());
        assertTrue(problems.contains("lock-api: lock-api-1.2.0.jar is not signed (no .asc)"), problems.toString());
        assertTrue(problems.contains("relock-bom: relock-bom-1.2.0.pom is not signed (no .asc)"), problems.toString());
    }

    @Test
    void unflattenedPom_jarWithoutModuleInfo_andAnUnpublishedArtifact_areNamed() throws IOException {
        deploySet(false);
        Files.writeString(dir("lock-api").resolve("lock-api-1.2.0.pom"), pom("lock-api",
                "<parent><groupId>io.github.relock</groupId><artifactId>relock-parent</artifactId><version>1.2.0</version></parent>"
                        + "<dependencies><dependency><groupId>x</groupId><artifactId>y</artifactId></dependency></dependencies>"));
        jar(dir("lock-core").resolve("lock-core-1.2.0.jar"), "io/github/relock/core/RedisLocks.class");
        Files.createDirectories(repo.resolve("io/github/relock/relock-parent/1.2.0"));
        List<String> problems = ReleaseSet.check(repo, VERSION, JARS, false, false).problems();
        assertEquals(List.of(
                "lock-api: lock-api-1.2.0.pom is not a flattened, publishable POM: <parent>, y without a resolved version",
                "lock-core: lock-core-1.2.0.jar holds no module-info.class",
                "relock-parent: deployed, but not published (it is not in bom/pom.xml)"), problems);
    }

    @Test
    void central_requiresTheElementsCentralChecks() throws IOException {
        deploySet(false);
        List<String> problems = ReleaseSet.check(repo, VERSION, JARS, false, true).problems();
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).endsWith("no <url> (Central requires it), no <licenses> (Central requires it), "
                + "no <developers> (Central requires it), no <scm> (Central requires it)"), problems.get(0));
    }

    @Test
    void snapshot_readsTheLatestTimestampedBuild() throws IOException {
        String snapshot = "1.3.0-SNAPSHOT";
        for (String a : JARS) {
            Path d = repo.resolve("io/github/relock/" + a + "/" + snapshot);
            writeArtifact(d, a, a + "-1.3.0-20261126.101010-2", false);
            Files.writeString(d.resolve("maven-metadata.xml"), "<metadata><versioning><snapshot><timestamp>20261126.101010"
                    + "</timestamp><buildNumber>2</buildNumber></snapshot></versioning></metadata>");
        }
        Path bom = repo.resolve("io/github/relock/relock-bom/" + snapshot);
        Files.createDirectories(bom);
        Files.writeString(bom.resolve("relock-bom-1.3.0-20261126.101010-2.pom"), bomPom());
        Files.writeString(bom.resolve("maven-metadata.xml"), "<metadata><versioning><snapshot><timestamp>20261126.101010"
                + "</timestamp><buildNumber>2</buildNumber></snapshot></versioning></metadata>");
        assertEquals(List.of(), ReleaseSet.check(repo, snapshot, JARS, false, false).problems());
    }

    private Path dir(String artifactId) {
        return repo.resolve("io/github/relock/" + artifactId + "/" + VERSION);
    }

    private void deploySet(boolean signed) throws IOException {
        for (String a : JARS) {
            writeArtifact(dir(a), a, a + "-" + VERSION, signed);
        }
        Path bom = repo.resolve("io/github/relock/relock-bom/" + VERSION);
        Files.createDirectories(bom);
        Files.writeString(bom.resolve("relock-bom-1.2.0.pom"), bomPom());
        if (signed) {
            Files.writeString(bom.resolve("relock-bom-1.2.0.pom.asc"), "sig");
        }
    }

    private static void writeArtifact(Path dir, String artifactId, String base, boolean signed) throws IOException {
        Files.createDirectories(dir);
        jar(dir.resolve(base + ".jar"), "module-info.class");
        Files.writeString(dir.resolve(base + ".pom"), pom(artifactId,
                "<dependencies><dependency><groupId>io.github.relock</groupId><artifactId>relock-api</artifactId>"
                        + "<version>" + VERSION + "</version></dependency></dependencies>"));
        jar(dir.resolve(base + "-sources.jar"), "io/github/relock/X.java");
        jar(dir.resolve(base + "-javadoc.jar"), "index.html");
        Files.writeString(dir.resolve(base + "-cyclonedx.json"), "{ \"bomFormat\" : \"CycloneDX\" }");
        if (signed) {
            for (String suffix : List.of(".jar", ".pom", "-sources.jar", "-javadoc.jar", "-cyclonedx.json")) {
                Files.writeString(dir.resolve(base + suffix + ".asc"), "sig");
            }
        }
    }

    private static String pom(String artifactId, String body) {
        return "<project><modelVersion>4.0.0</modelVersion><groupId>io.github.relock</groupId><artifactId>" + artifactId
                + "</artifactId><version>" + VERSION + "</version>" + body + "</project>";
    }

    private static String bomPom() {
        StringBuilder b = new StringBuilder("<project><artifactId>relock-bom</artifactId><packaging>pom</packaging>"
                + "<dependencyManagement><dependencies>");
        for (String a : JARS) {
            b.append("<dependency><groupId>io.github.relock</groupId><artifactId>").append(a)
                    .append("</artifactId><version>${project.version}</version></dependency>");
        }
        return b.append("</dependencies></dependencyManagement></project>").toString();
    }

    private static void jar(Path file, String entry) throws IOException {
        try (OutputStream out = Files.newOutputStream(file); ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.putNextEntry(new ZipEntry(entry));
            zip.write(1);
            zip.closeEntry();
        }
    }
}
