package io.github.relock.boundaries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.boundaries.PublishedArtifacts.Poms;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The POMs agree on what is published (bom/pom.xml is the one list) and on how the release is built;
 * cheap enough for every build. The release set itself is checked by {@link ReleaseSet} after
 * bin/release-dry-run.
 */
class ReleaseBuildTest {

    private static final Path ROOT = Repository.root();

    @Test
    void everyModule_isEitherInTheBom_orMarkedUnpublished() {
        List<String> published = PublishedArtifacts.jars();
        List<String> wrong = new ArrayList<>();
        TreeSet<String> seen = new TreeSet<>();
        for (String module : modules(Poms.read(ROOT.resolve("pom.xml")))) {
            Element pom = Poms.read(ROOT.resolve(module).resolve("pom.xml"));
            String artifactId = Poms.text(pom, "artifactId");
            seen.add(artifactId);
            Element properties = Poms.child(pom, "properties");
            boolean unpublished = properties != null && Poms.text(properties, "relock.unpublished").equals("true");
            if (artifactId.equals(PublishedArtifacts.BOM)) {
                continue;
            }
            if (published.contains(artifactId) == unpublished) {
                wrong.add(module + " (" + artifactId + "): " + (unpublished
                        ? "listed in bom/pom.xml but sets relock.unpublished"
                        : "not in bom/pom.xml, so it must set <relock.unpublished>true</relock.unpublished>"));
            }
        }
        assertEquals(List.of(), wrong);
        assertTrue(seen.containsAll(published), "the BOM lists artifacts no module builds: " + published + " vs " + seen);
    }

    @Test
    void bom_managesReactorVersions_andBuildsItsReleaseLikeTheParent() {
        Element parent = Poms.read(ROOT.resolve("pom.xml"));
        Element bom = Poms.read(ROOT.resolve("bom/pom.xml"));
        assertEquals(Poms.text(parent, "version"), Poms.text(bom, "version"), "the BOM is released with the rest");
        assertEquals(Poms.text(child(parent, "properties"), "project.build.outputTimestamp"),
                Poms.text(child(bom, "properties"), "project.build.outputTimestamp"));
        NodeList dependencies = bom.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element d = (Element) dependencies.item(i);
            if (Poms.text(d, "groupId").equals(PublishedArtifacts.GROUP)) {
                assertEquals("${project.version}", Poms.text(d, "version"), Poms.text(d, "artifactId"));
            }
        }
        String shedlock = Poms.text(child(parent, "properties"), "shedlock.version");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element d = (Element) dependencies.item(i);
            if (Poms.text(d, "groupId").equals("net.javacrumbs.shedlock")) {
                assertEquals(shedlock, Poms.text(d, "version"), Poms.text(d, "artifactId")
                        + ": the BOM aligns ShedLock at the version relock-shedlock is built with");
            }
        }
        Map<String, String> parentPlugins = pluginVersions(parent);
        Map<String, String> bomPlugins = pluginVersions(bom);
        assertTrue(bomPlugins.keySet().containsAll(List.of("maven-gpg-plugin", "central-publishing-maven-plugin",
                "maven-deploy-plugin")), bomPlugins.toString());
        bomPlugins.forEach((plugin, version) -> assertEquals(parentPlugins.get(plugin), version,
                plugin + ": the BOM's version differs from the parent's pluginManagement"));
    }

    private static List<String> modules(Element pom) {
        List<String> modules = new ArrayList<>();
        NodeList list = child(pom, "modules").getElementsByTagName("module");
        for (int i = 0; i < list.getLength(); i++) {
            modules.add(list.item(i).getTextContent().strip());
        }
        return modules;
    }

    /** artifactId to version of every plugin with a version, anywhere in the POM. */
    private static Map<String, String> pluginVersions(Element pom) {
        Map<String, String> versions = new TreeMap<>();
        NodeList plugins = pom.getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element plugin = (Element) plugins.item(i);
            String version = Poms.text(plugin, "version");
            if (!version.isEmpty()) {
                versions.put(Poms.text(plugin, "artifactId"), version);
            }
        }
        return versions;
    }

    private static Element child(Element parent, String name) {
        Element child = Poms.child(parent, name);
        if (child == null) {
            throw new AssertionError("no <" + name + "> in " + parent.getTagName());
        }
        return child;
    }
}
