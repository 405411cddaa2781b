/**
 * OpenRewrite recipes that migrate Redisson lock and synchronizer code to relock: the composite
 * {@code io.github.relock.openrewrite.MigrateFromRedisson} (META-INF/rewrite/relock.yml) and the Java
 * recipes it runs. OpenRewrite loads recipes from the class path; the descriptor is for the release
 * checks and for module-path builds that compose these recipes into their own. OpenRewrite's jars
 * declare no module name, so {@code rewrite.core} and {@code rewrite.java} are the names Java derives
 * from their file names (the compiler warns about that; it cannot be helped until they declare one).
 */
module io.github.relock.openrewrite {
    requires transitive rewrite.core;
    requires transitive rewrite.java;
    requires static org.jspecify;
    exports io.github.relock.openrewrite;
}
