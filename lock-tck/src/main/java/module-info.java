/**
 * relock's compatibility kit: abstract JUnit 5 tests any driver runs, the Redisson interop
 * chapters, and the real-Redis fixture.
 */
module io.github.relock.tck {
    requires transitive io.github.relock.core;
    requires transitive org.junit.jupiter.api;
    requires static testcontainers;
    requires redisson;
    requires jdk.jfr;
    exports io.github.relock.tck;
    // JUnit discovers and runs the chapters' package-private nested classes and rule methods reflectively.
    opens io.github.relock.tck to org.junit.platform.commons;
}
