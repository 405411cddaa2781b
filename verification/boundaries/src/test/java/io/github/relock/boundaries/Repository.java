package io.github.relock.boundaries;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository's files are, for the checks that read them. */
final class Repository {

    private static final Path ROOT = find();

    private Repository() {
    }

    /** @return the folder that holds the reactor pom (surefire runs in verification/boundaries, one level below) */
    static Path root() {
        return ROOT;
    }

    /**
     * @param path a path in the repository
     * @return it, relative to the root, with forward slashes
     */
    static String relative(Path path) {
        return ROOT.relativize(path).toString().replace('\\', '/');
    }

    private static Path find() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("verification/boundaries"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
    }
}
