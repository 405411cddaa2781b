package io.github.relock.boundaries;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * What relock publishes, read from one place: {@code bom/pom.xml}. Every artifact the BOM manages is
 * published, and so is the BOM; nothing else is.
 */
final class PublishedArtifacts {

    /** relock's group id. */
    static final String GROUP = "io.github.relock";
    /** The BOM's artifact id: published as a POM of its own. */
    static final String BOM = "relock-bom";

    private PublishedArtifacts() {
    }

    /** @return the artifact ids the BOM manages, in its order: every published jar */
    static List<String> jars() {
        Element bom = Poms.read(Repository.root().resolve("bom/pom.xml"));
        List<String> ids = new ArrayList<>();
        NodeList dependencies = bom.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            if (Poms.text(dependency, "groupId").equals(GROUP)) {
                ids.add(Poms.text(dependency, "artifactId"));
            }
        }
        return ids;
    }

    /**
     * @param artifactId a relock artifact
     * @return its jar (or classes folder) on this JVM's class path, or null
     */
    static Path onClassPath(String artifactId) {
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            String name = path.getFileName().toString();
            boolean reactorClasses = name.equals("classes") && path.getParent() != null
                    && path.getParent().getParent() != null
                    && artifactId.equals(ownArtifactId(path.getParent().getParent().resolve("pom.xml")));
            if (reactorClasses || name.matches(java.util.regex.Pattern.quote(artifactId) + "-\\d[^/]*\\.jar")) {
                return path;
            }
        }
        return null;
    }

    /** @return the artifactId a module's POM declares for itself (not its parent's), or null without a POM */
    static String ownArtifactId(Path pom) {
        return Files.isRegularFile(pom) ? Poms.text(Poms.read(pom), "artifactId") : null;
    }

    /** Just enough POM reading for these checks. */
    static final class Poms {
        private Poms() {
        }

        static Element read(Path pom) {
            try {
                DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
                factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
                return factory.newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
            } catch (ParserConfigurationException | SAXException | IOException e) {
                throw new IllegalStateException("cannot read " + pom + ": " + e.getMessage(), e);
            }
        }

        /** @return the text of the first direct child called {@code name}, or "" */
        static String text(Element parent, String name) {
            Element child = child(parent, name);
            return child == null ? "" : child.getTextContent().strip();
        }

        /** @return the first direct child called {@code name}, or null */
        static Element child(Element parent, String name) {
            for (var node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
                if (node instanceof Element child && child.getTagName().equals(name)) {
                    return child;
                }
            }
            return null;
        }
    }
}
