/**
 * relock's compatibility kit: abstract JUnit tests any driver runs and the fault-injecting driver,
 * on the real Redis of {@code io.github.relock.tck.fixtures}. The Redisson interop chapter is in
 * {@code io.github.relock.tck.redisson}.
 */
module io.github.relock.tck {
    requires transitive io.github.relock.core;
    requires transitive org.junit.jupiter.api;
    requires transitive io.github.relock.tck.fixtures;
    requires jdk.jfr;
    exports io.github.relock.tck;
    // JUnit discovers and runs the chapters' package-private nested classes and rule methods reflectively.
    opens io.github.relock.tck to org.junit.platform.commons;
}
